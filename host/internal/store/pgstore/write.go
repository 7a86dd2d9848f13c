package pgstore

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/memhost/memhost/host/internal/store"
)

func formatFloat(f float32) string { return strconv.FormatFloat(float64(f), 'g', -1, 32) }

// TextHash is the exact-duplicate key: sha256 of the case-folded text with runs of whitespace
// collapsed, so "Use pnpm." and "use  pnpm." are the same memory.
func TextHash(text string) []byte {
	sum := sha256.Sum256([]byte(strings.ToLower(strings.Join(strings.Fields(text), " "))))
	return sum[:]
}

// scopeLockSQL serialises writes to one scope across every host on the database.
const scopeLockSQL = `SELECT pg_advisory_xact_lock(hashtextextended($1, 7420))`

func scopeLockKey(scope store.Scope, key string) string { return string(scope) + ":" + key }

// Write implements store.Store.
func (s *Store) Write(ctx context.Context, w store.Write) (store.WriteResult, error) {
	if err := checkVector(w.Vector); err != nil {
		return store.WriteResult{}, err
	}
	var res store.WriteResult
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		res, err = s.write(ctx, tx, w)
		return err
	})
	if err != nil {
		return store.WriteResult{}, fmt.Errorf("write memory: %w", err)
	}
	return res, nil
}

func (s *Store) write(ctx context.Context, tx pgx.Tx, w store.Write) (store.WriteResult, error) {
	if _, err := tx.Exec(ctx, scopeLockSQL, scopeLockKey(w.Scope, w.ScopeKey)); err != nil {
		return store.WriteResult{}, fmt.Errorf("lock scope: %w", err)
	}
	hash := TextHash(w.Text)
	// 1. An identical live text folds without looking at vectors.
	existing, err := scanMemory(tx.QueryRow(ctx, `SELECT `+memoryColumns+` FROM memories
		WHERE scope = $1 AND scope_key = $2 AND text_hash = $3 AND archived_at IS NULL`, string(w.Scope), w.ScopeKey, hash))
	switch {
	case err == nil:
		m, err := fold(ctx, tx, existing, w, hash, 1)
		return store.WriteResult{Memory: m, Folded: true, Exact: true, Similarity: 1}, err
	case !errors.Is(err, store.ErrNotFound):
		return store.WriteResult{}, fmt.Errorf("look up exact duplicate: %w", err)
	}
	// 2. The nearest live neighbours of the same embedder in the same scope: the closest one
	// at or above the threshold that Distinct does not veto takes the fold.
	var nearest *store.VectorHit
	if w.FoldThreshold >= 0 {
		hits, err := nearestN(ctx, tx, w, foldCandidates)
		if err != nil {
			return store.WriteResult{}, err
		}
		if len(hits) > 0 {
			nearest = &hits[0]
		}
		for _, h := range hits {
			if h.Similarity < w.FoldThreshold {
				break
			}
			target, err := scanMemory(tx.QueryRow(ctx, `SELECT `+memoryColumns+` FROM memories WHERE id = $1`, h.ID))
			if err != nil {
				return store.WriteResult{}, fmt.Errorf("load fold target %s: %w", h.ID, err)
			}
			if w.Distinct != nil && w.Distinct(target.Text, w.Text) {
				continue
			}
			m, err := fold(ctx, tx, target, w, hash, h.Similarity)
			return store.WriteResult{Memory: m, Folded: true, Similarity: h.Similarity}, err
		}
	}
	// 3. Otherwise a new row.
	m, err := insert(ctx, tx, w, hash)
	res := store.WriteResult{Memory: m}
	if nearest != nil {
		res.Similarity = nearest.Similarity
	}
	return res, err
}

// foldCandidates is how many nearest neighbours a write considers for its fold.
const foldCandidates = 3

// nearestN finds the closest live rows to w in its scope, under the write's scope lock.
func nearestN(ctx context.Context, tx pgx.Tx, w store.Write, n int) ([]store.VectorHit, error) {
	q := store.VectorQuery{Vector: w.Vector, Scopes: []store.ScopeRef{{Scope: w.Scope, Key: w.ScopeKey}}, Limit: n}
	hits, err := nearest(ctx, tx, q, foldEfSearch)
	if err != nil {
		return nil, fmt.Errorf("find nearest neighbour: %w", err)
	}
	return hits, nil
}

func insert(ctx context.Context, tx pgx.Tx, w store.Write, hash []byte) (store.Memory, error) {
	now := time.Now().UTC()
	m := store.Memory{
		ID: w.ID, Scope: w.Scope, ScopeKey: w.ScopeKey, Kind: w.Kind, Text: w.Text,
		Importance: w.Importance, Confidence: w.Confidence, Pinned: w.Pinned, Provenance: w.Provenance,
		Embedder: w.Vector.Embedder, CreatedAt: now, UpdatedAt: now,
	}
	if m.ID == uuid.Nil {
		m.ID = uuid.Must(uuid.NewV7())
	}
	after := w.Text
	if err := appendHistory(ctx, tx, m, store.EventAdd, nil, &after, w.Actor, provenanceDetail(w.Provenance), now); err != nil {
		return m, err
	}
	err := tx.QueryRow(ctx, `INSERT INTO memories (id, scope, scope_key, kind, text, text_hash, importance, confidence, pinned,
			agent, session_id, source, embedder, embedding, metadata, created_at, updated_at, seq)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::vector, '{}', $15, $15, next_change_seq())
		RETURNING seq`,
		m.ID, string(m.Scope), m.ScopeKey, string(m.Kind), m.Text, hash, m.Importance, m.Confidence, m.Pinned,
		m.Provenance.Agent, m.Provenance.Session, m.Provenance.Source, m.Embedder, vectorText(w.Vector.Values), now).Scan(&m.Seq)
	if err != nil {
		return m, fmt.Errorf("insert memory: %w", err)
	}
	return m, nil
}

// fold merges write w into the existing row. The newer text becomes canonical (later phrasing
// tends to be the refined one) unless the existing row is pinned or more confident; either way
// the text that loses is kept in merged_from, so nothing is lost.
func fold(ctx context.Context, tx pgx.Tx, existing store.Memory, w store.Write, hash []byte, similarity float64) (store.Memory, error) {
	now := time.Now().UTC()
	m := existing
	before := existing.Text
	// Confidence is stored as real: compare at that precision so equal values stay equal.
	keepExisting := existing.Pinned || float32(existing.Confidence) > float32(w.Confidence) || sameText(existing.Text, w.Text)
	loser, loserAgent := w.Text, w.Provenance.Agent
	if !keepExisting {
		m.Text = w.Text
		loser, loserAgent = existing.Text, existing.Provenance.Agent
	}
	m.DedupedCount++
	if !sameText(existing.Text, w.Text) {
		m.MergedFrom = append(m.MergedFrom, store.Merged{Text: loser, Agent: loserAgent, At: now})
		if w.MergedFromMax >= 0 && len(m.MergedFrom) > w.MergedFromMax {
			m.MergedFrom = m.MergedFrom[len(m.MergedFrom)-w.MergedFromMax:]
		}
	}
	m.Importance = max(existing.Importance, w.Importance)
	m.Confidence = max(existing.Confidence, w.Confidence)
	if w.Kind != store.KindFact && !keepExisting {
		m.Kind = w.Kind
	}
	m.Pinned = existing.Pinned || w.Pinned
	m.UpdatedAt = now
	meta, err := json.Marshal(metadata{DedupedCount: m.DedupedCount, MergedFrom: m.MergedFrom})
	if err != nil {
		return m, fmt.Errorf("encode metadata: %w", err)
	}
	detail := provenanceDetail(w.Provenance)
	detail["similarity"] = similarity
	detail["canonical"] = map[bool]string{true: "existing", false: "incoming"}[keepExisting]
	after := m.Text
	if err := appendHistory(ctx, tx, m, store.EventFold, &before, &after, w.Actor, detail, now); err != nil {
		return m, err
	}
	// Only a text change replaces the vector and the text hash; either way the row takes a new
	// change seq so followers re-index it.
	if keepExisting {
		err = tx.QueryRow(ctx, `UPDATE memories SET kind = $2, importance = $3, confidence = $4, pinned = $5, metadata = $6,
			updated_at = $7, seq = next_change_seq() WHERE id = $1 RETURNING seq`,
			m.ID, string(m.Kind), m.Importance, m.Confidence, m.Pinned, meta, now).Scan(&m.Seq)
	} else {
		m.Embedder = w.Vector.Embedder
		err = tx.QueryRow(ctx, `UPDATE memories SET text = $2, text_hash = $3, kind = $4, importance = $5, confidence = $6, pinned = $7,
			metadata = $8, embedder = $9, embedding = $10::vector, agent = $11, session_id = $12, source = $13,
			updated_at = $14, seq = next_change_seq() WHERE id = $1 RETURNING seq`,
			m.ID, m.Text, hash, string(m.Kind), m.Importance, m.Confidence, m.Pinned, meta, m.Embedder,
			vectorText(w.Vector.Values), w.Provenance.Agent, w.Provenance.Session, w.Provenance.Source, now).Scan(&m.Seq)
		m.Provenance = w.Provenance
	}
	if err != nil {
		return m, fmt.Errorf("fold into %s: %w", m.ID, err)
	}
	return m, nil
}

func sameText(a, b string) bool { return string(TextHash(a)) == string(TextHash(b)) }

func provenanceDetail(p store.Provenance) map[string]any {
	d := map[string]any{}
	if p.Agent != "" {
		d["agent"] = p.Agent
	}
	if p.Session != "" {
		d["session"] = p.Session
	}
	if p.Source != "" {
		d["source"] = p.Source
	}
	return d
}

// SetArchived implements store.Store.
func (s *Store) SetArchived(ctx context.Context, id uuid.UUID, archived bool, reason, actor string) (store.Memory, error) {
	var out store.Memory
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		m, err := lockRow(ctx, tx, id)
		if err != nil {
			return err
		}
		if m.Archived() == archived {
			out = m // already in the asked state: idempotent, no history row
			return nil
		}
		now := time.Now().UTC()
		event, detail := store.EventRestore, map[string]any{}
		if archived {
			event, detail = store.EventArchive, map[string]any{"reason": reason}
		}
		if err := appendHistory(ctx, tx, m, event, &m.Text, &m.Text, actor, detail, now); err != nil {
			return err
		}
		if archived {
			_, err = tx.Exec(ctx, `UPDATE memories SET archived_at = $2, archived_reason = $3, updated_at = $2, seq = next_change_seq() WHERE id = $1`, id, now, reason)
		} else {
			_, err = tx.Exec(ctx, `UPDATE memories SET archived_at = NULL, archived_reason = NULL, updated_at = $2, seq = next_change_seq() WHERE id = $1`, id, now)
			if isUniqueViolation(err) {
				return fmt.Errorf("restore %s: %w: another live memory has the same text", id, store.ErrConflict)
			}
		}
		if err != nil {
			return fmt.Errorf("update %s: %w", id, err)
		}
		out, err = scanMemory(tx.QueryRow(ctx, `SELECT `+memoryColumns+` FROM memories WHERE id = $1`, id))
		return err
	})
	if err != nil {
		return out, fmt.Errorf("set archived=%t on %s: %w", archived, id, err)
	}
	return out, nil
}

// SetPinned implements store.Store.
func (s *Store) SetPinned(ctx context.Context, id uuid.UUID, pinned bool, actor string) (store.Memory, error) {
	var out store.Memory
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		m, err := lockRow(ctx, tx, id)
		if err != nil {
			return err
		}
		if m.Pinned == pinned {
			out = m
			return nil
		}
		now := time.Now().UTC()
		event := store.EventUnpin
		if pinned {
			event = store.EventPin
		}
		if err := appendHistory(ctx, tx, m, event, nil, nil, actor, nil, now); err != nil {
			return err
		}
		out, err = scanMemory(tx.QueryRow(ctx, `UPDATE memories SET pinned = $2, updated_at = $3 WHERE id = $1 RETURNING `+memoryColumns, id, pinned, now))
		return err
	})
	if err != nil {
		return out, fmt.Errorf("set pinned=%t on %s: %w", pinned, id, err)
	}
	return out, nil
}

// lockRow takes the row's scope lock (so it cannot race a fold) and loads it.
func lockRow(ctx context.Context, tx pgx.Tx, id uuid.UUID) (store.Memory, error) {
	var scope, key string
	if err := tx.QueryRow(ctx, `SELECT scope, scope_key FROM memories WHERE id = $1`, id).Scan(&scope, &key); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return store.Memory{}, store.ErrNotFound
		}
		return store.Memory{}, err
	}
	if _, err := tx.Exec(ctx, scopeLockSQL, scopeLockKey(store.Scope(scope), key)); err != nil {
		return store.Memory{}, fmt.Errorf("lock scope: %w", err)
	}
	return scanMemory(tx.QueryRow(ctx, `SELECT `+memoryColumns+` FROM memories WHERE id = $1 FOR UPDATE`, id))
}
