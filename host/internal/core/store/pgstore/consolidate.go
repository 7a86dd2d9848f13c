package pgstore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/memhost/memhost/host/internal/core/store"
)

// ProjectsWithFacts returns the projects with at least two live facts (what consolidation and
// the conflicts job look at), in key order; project "" means every project, else that one (if
// it has two).
func (s *Store) ProjectsWithFacts(ctx context.Context, project string) ([]string, error) {
	return queryValues[string](ctx, s.pool, "find projects with facts", `SELECT scope_key FROM memories WHERE scope = 'project' AND archived_at IS NULL AND `+factKinds+`
		AND (@project = '' OR scope_key = @project) GROUP BY scope_key HAVING count(*) > 1 ORDER BY scope_key`,
		pgx.NamedArgs{"project": project})
}

// ConsolidationFacts returns up to limit live facts of project with their vectors of
// embedder (only one embedder's: vectors of two are never compared), the most recently changed
// first: a run bounded by its row budget compares what changed since the last, where new
// duplicates are.
func (s *Store) ConsolidationFacts(ctx context.Context, project, embedder string, limit int) ([]store.ConsolidationFact, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+qualifiedMemoryColumns+`, v.embedding::text
		FROM memories m LEFT JOIN memory_vectors v ON v.memory_id = m.id AND v.embedder = $3
		WHERE m.scope = 'project' AND m.scope_key = $1 AND m.archived_at IS NULL AND m.`+factKinds+`
		ORDER BY m.updated_at DESC, m.id LIMIT $2`, project, limit, embedder)
	if err != nil {
		return nil, fmt.Errorf("read facts of %q: %w", project, err)
	}
	defer rows.Close()
	var out []store.ConsolidationFact
	for rows.Next() {
		var vec *string
		m, err := scanMemory(rows, &vec)
		if err != nil {
			return nil, fmt.Errorf("read facts of %q: %w", project, err)
		}
		f := store.ConsolidationFact{Memory: m}
		if vec != nil {
			f.VectorOf = embedder
			if f.Vector, err = parseVector(*vec); err != nil {
				return nil, fmt.Errorf("read vector of %s: %w", m.ID, err)
			}
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// Merge archives the absorbed memories with reason MergedIntoReason, keeps their texts in the
// survivor's merged_from (the oldest dropping out past MergedFromMax; the archived rows keep
// them whole until purge), gives the survivor their highest importance and confidence and
// the replacement text, and records a merge row on the survivor, all in one transaction under
// the scope's lock. A member that is no longer live in the survivor's scope, changed since it
// was read, or an absorbed one that is pinned, fails with rules.ErrConflict and changes
// nothing. It returns the survivor and the absorbed rows as they are after.
func (s *Store) Merge(ctx context.Context, p store.MergeParams) (survivor store.Memory, absorbed []store.Memory, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		sv, err := lockRow(ctx, tx, p.Survivor)
		if err != nil {
			return err
		}
		if err := mergeMember(sv, sv, p, false); err != nil {
			return err
		}
		now := time.Now().UTC()
		meta := metadata{DedupedCount: sv.DedupedCount, MergedFrom: slices.Clone(sv.MergedFrom)}
		importance, confidence := sv.Importance, sv.Confidence
		reason := store.MergedIntoReason(sv.ID)
		for _, id := range p.Absorbed {
			m, err := scanMemory(tx.QueryRow(ctx, `SELECT `+memoryColumns+` FROM memories WHERE id = $1 FOR UPDATE`, id))
			if err != nil {
				return fmt.Errorf("absorbed %s: %w", id, err)
			}
			if err := mergeMember(sv, m, p, true); err != nil {
				return err
			}
			if err := appendHistory(ctx, tx, m, store.EventArchive, &m.Text, &m.Text, p.Actor, map[string]any{"reason": reason}, now); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `UPDATE memories SET archived_at = $2, archived_reason = $3, updated_at = $2, seq = next_change_seq() WHERE id = $1`, id, now, reason); err != nil {
				return fmt.Errorf("archive %s: %w", id, err)
			}
			meta.DedupedCount += m.DedupedCount + 1
			meta.MergedFrom = append(meta.MergedFrom, store.Merged{Text: m.Text, Agent: m.Provenance.Agent, At: now})
			importance, confidence = max(importance, m.Importance), max(confidence, m.Confidence)
		}
		if p.MergedFromMax >= 0 && len(meta.MergedFrom) > p.MergedFromMax {
			meta.MergedFrom = meta.MergedFrom[len(meta.MergedFrom)-p.MergedFromMax:]
		}
		encoded, err := json.Marshal(meta)
		if err != nil {
			return fmt.Errorf("encode metadata: %w", err)
		}
		after := sv.Text
		args := []any{sv.ID, importance, confidence, encoded, now}
		set := `importance = $2, confidence = $3, metadata = metadata || $4::jsonb, updated_at = $5, seq = next_change_seq()`
		if r := p.Replacement; r != nil {
			if err := checkVector(r.Vector); err != nil {
				return err
			}
			after = r.Text
			// The new text drops the old one's vectors (migration 0012's trigger); its own
			// vector is stored after the update.
			args = append(args, r.Text, TextHash(r.Text), r.Vector.Embedder)
			set += `, text = $6, text_hash = $7, embedder = $8`
		}
		detail := map[string]any{"absorbed": idStrings(p.Absorbed)}
		for k, v := range p.Detail {
			detail[k] = v
		}
		if err := appendHistory(ctx, tx, sv, store.EventMerge, &sv.Text, &after, p.Actor, detail, now); err != nil {
			return err
		}
		if survivor, err = scanMemory(tx.QueryRow(ctx, `UPDATE memories SET `+set+` WHERE id = $1 RETURNING `+memoryColumns, args...)); err != nil {
			if isUniqueViolation(err) {
				return fmt.Errorf("%w: another live memory has the merged text", rules.ErrConflict)
			}
			return fmt.Errorf("update survivor: %w", err)
		}
		if r := p.Replacement; r != nil {
			if _, err := tx.Exec(ctx, putVectorSQL, sv.ID, r.Vector.Embedder, vectorText(r.Vector.Values), TextHash(r.Text)); err != nil {
				return fmt.Errorf("store the survivor's vector: %w", err)
			}
		}
		absorbed, err = readMemories(ctx, tx, p.Absorbed)
		return err
	})
	if err != nil {
		return survivor, nil, fmt.Errorf("merge into %s: %w", p.Survivor, err)
	}
	return survivor, absorbed, nil
}

// mergeMember checks that m may take part in a merge into sv as the job read it.
func mergeMember(sv, m store.Memory, p store.MergeParams, absorbed bool) error {
	switch {
	case m.Archived():
		return fmt.Errorf("%w: %s is archived", rules.ErrConflict, m.ID)
	case m.Scope != sv.Scope || m.ScopeKey != sv.ScopeKey:
		return fmt.Errorf("%w: %s is in another scope", rules.ErrConflict, m.ID)
	case store.IsLayer(m.Kind):
		return fmt.Errorf("%w: %s is not a fact", rules.ErrConflict, m.ID)
	case absorbed && (m.Pinned || m.ID == sv.ID):
		return fmt.Errorf("%w: %s is pinned or the survivor", rules.ErrConflict, m.ID)
	case p.Texts[m.ID] != m.Text:
		return fmt.Errorf("%w: %s changed since it was read", rules.ErrConflict, m.ID)
	}
	return nil
}

func idStrings(ids []uuid.UUID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.String()
	}
	return out
}

func readMemories(ctx context.Context, tx pgx.Tx, ids []uuid.UUID) ([]store.Memory, error) {
	rows, err := tx.Query(ctx, `SELECT `+memoryColumns+` FROM memories WHERE id = ANY($1) ORDER BY id`, uuidArray(ids))
	if err != nil {
		return nil, err
	}
	return collectMemories(rows)
}

// PendingUnmerge reads what unmerging survivor would restore (store.MergeUndo).
func (s *Store) PendingUnmerge(ctx context.Context, survivor store.Memory) (store.MergeUndo, error) {
	var u store.MergeUndo
	rows, err := s.pool.Query(ctx, `SELECT id FROM memories WHERE scope = $1 AND scope_key = $2
		AND archived_at IS NOT NULL AND archived_reason = $3 ORDER BY id`, string(survivor.Scope), survivor.ScopeKey, store.MergedIntoReason(survivor.ID))
	if err != nil {
		return u, fmt.Errorf("find what %s absorbed: %w", survivor.ID, err)
	}
	if u.Absorbed, err = pgx.CollectRows(rows, pgx.RowTo[uuid.UUID]); err != nil {
		return u, fmt.Errorf("find what %s absorbed: %w", survivor.ID, err)
	}
	// The merges since the last unmerge (an update row with detail.unmerged), oldest first.
	rows, err = s.pool.Query(ctx, `SELECT before_text, after_text FROM memory_history WHERE memory_id = $1 AND event = 'merge'
		AND id > coalesce((SELECT max(id) FROM memory_history WHERE memory_id = $1 AND event = 'update' AND detail ? 'unmerged'), 0)
		ORDER BY id`, survivor.ID)
	if err != nil {
		return u, fmt.Errorf("read merges of %s: %w", survivor.ID, err)
	}
	type texts struct{ Before, After *string }
	merges, err := pgx.CollectRows(rows, pgx.RowToStructByPos[texts])
	if err != nil {
		return u, fmt.Errorf("read merges of %s: %w", survivor.ID, err)
	}
	if len(merges) > 0 {
		first, last := merges[0], merges[len(merges)-1]
		if first.Before != nil && last.After != nil && *last.After == survivor.Text && *first.Before != survivor.Text {
			u.PriorText = *first.Before
		}
	}
	return u, nil
}

// Unmerge restores the absorbed memories and the survivor's prior text in one transaction
// under the scope's lock, removes the restored texts from the survivor's merged_from, records
// an update row (detail.unmerged) on the survivor and a restore row on each restored memory,
// and keeps every pair of the survivor and the restored apart (KeptApart): the operator's
// decision, which consolidation never undoes. An absorbed memory whose text a live memory now
// has stays archived. It returns the survivor and the restored memories.
func (s *Store) Unmerge(ctx context.Context, p store.UnmergeParams) (survivor store.Memory, restored []store.Memory, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		sv, err := lockRow(ctx, tx, p.Survivor)
		if err != nil {
			return err
		}
		now := time.Now().UTC()
		text := sv.Text
		args := []any{sv.ID, now}
		set := `updated_at = $2, seq = next_change_seq()`
		if r := p.Prior; r != nil && sv.Text == p.Expect {
			if err := checkVector(r.Vector); err != nil {
				return err
			}
			text = r.Text
			args = append(args, r.Text, TextHash(r.Text), r.Vector.Embedder)
			set += `, text = $3, text_hash = $4, embedder = $5`
		}
		// The survivor's text first: the text it gives back may be one an absorbed memory held.
		if _, err := tx.Exec(ctx, `UPDATE memories SET `+set+` WHERE id = $1`, args...); err != nil {
			if isUniqueViolation(err) {
				return fmt.Errorf("%w: another live memory has the survivor's prior text", rules.ErrConflict)
			}
			return fmt.Errorf("update survivor: %w", err)
		}
		if r := p.Prior; r != nil && text == r.Text && sv.Text != r.Text {
			if _, err := tx.Exec(ctx, putVectorSQL, sv.ID, r.Vector.Embedder, vectorText(r.Vector.Values), TextHash(r.Text)); err != nil {
				return fmt.Errorf("store the survivor's vector: %w", err)
			}
		}
		reason := store.MergedIntoReason(sv.ID)
		merged := slices.Clone(sv.MergedFrom)
		var ids []uuid.UUID
		for _, id := range p.Restore {
			m, err := scanMemory(tx.QueryRow(ctx, `SELECT `+memoryColumns+` FROM memories WHERE id = $1 FOR UPDATE`, id))
			if err != nil || !m.Archived() || m.ArchivedReason != reason {
				continue // purged or restored meanwhile: nothing to undo
			}
			var taken bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM memories WHERE scope = $1 AND scope_key = $2 AND text_hash = $3 AND archived_at IS NULL)`,
				string(m.Scope), m.ScopeKey, TextHash(m.Text)).Scan(&taken); err != nil {
				return fmt.Errorf("check %s's text is free: %w", id, err)
			}
			if taken {
				continue
			}
			if err := appendHistory(ctx, tx, m, store.EventRestore, &m.Text, &m.Text, p.Actor, map[string]any{"unmerged_from": sv.ID.String()}, now); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `UPDATE memories SET archived_at = NULL, archived_reason = NULL, updated_at = $2, seq = next_change_seq() WHERE id = $1`, id, now); err != nil {
				return fmt.Errorf("restore %s: %w", id, err)
			}
			if i := slices.IndexFunc(merged, func(x store.Merged) bool { return x.Text == m.Text }); i >= 0 {
				merged = slices.Delete(merged, i, i+1)
			}
			ids = append(ids, id)
		}
		encoded, err := json.Marshal(map[string]any{"merged_from": merged})
		if err != nil {
			return fmt.Errorf("encode metadata: %w", err)
		}
		if err := keepApart(ctx, tx, sv.ScopeKey, append([]uuid.UUID{sv.ID}, ids...), p.Actor, now); err != nil {
			return err
		}
		if err := appendHistory(ctx, tx, sv, store.EventUpdate, &sv.Text, &text, p.Actor, map[string]any{"unmerged": idStrings(ids)}, now); err != nil {
			return err
		}
		if survivor, err = scanMemory(tx.QueryRow(ctx, `UPDATE memories SET metadata = metadata || $2::jsonb WHERE id = $1 RETURNING `+memoryColumns, sv.ID, encoded)); err != nil {
			return fmt.Errorf("update survivor: %w", err)
		}
		restored, err = readMemories(ctx, tx, ids)
		return err
	})
	if err != nil {
		return survivor, nil, fmt.Errorf("unmerge %s: %w", p.Survivor, err)
	}
	return survivor, restored, nil
}

// keepApart records every pair of ids, memories of scopeKey an operator decided are not one
// fact (memory_kept_apart); a pair recorded before keeps its first decision.
func keepApart(ctx context.Context, tx pgx.Tx, scopeKey string, ids []uuid.UUID, actor string, now time.Time) error {
	for i, a := range ids {
		for _, b := range ids[i+1:] {
			if _, err := tx.Exec(ctx, `INSERT INTO memory_kept_apart (scope_key, pair_key, memory_a, memory_b, decided_at, decided_by)
				VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`, scopeKey, store.PairKey(a, b), a, b, now, actor); err != nil {
				return fmt.Errorf("keep %s and %s apart: %w", a, b, err)
			}
		}
	}
	return nil
}

// KeptApart returns the pairs of project's memories an operator kept apart by an unmerge,
// keyed by store.PairKey: consolidation never merges them again.
func (s *Store) KeptApart(ctx context.Context, project string) (map[string]bool, error) {
	return querySet(ctx, s.pool, fmt.Sprintf("read the pairs kept apart in %q", project), `SELECT pair_key FROM memory_kept_apart WHERE scope_key = $1`, project)
}
