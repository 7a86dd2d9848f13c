package pgstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/memhost/memhost/host/internal/store"
)

// Export implements store.Store. It reads one consistent snapshot (a repeatable-read
// transaction), so a concurrent write cannot split a memory from its history.
func (s *Store) Export(ctx context.Context, scope store.ScopeRef, fn func(store.ExportRecord) error) error {
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var args []any
		filter := scopeFilter([]store.ScopeRef{scope}, &args)
		rows, err := tx.Query(ctx, `SELECT `+memoryColumns+`, embedding::text, vector_dims(embedding) FROM memories WHERE `+filter+` ORDER BY created_at, id`, args...)
		if err != nil {
			return err
		}
		var recs []store.ExportRecord
		for rows.Next() {
			var rec store.ExportRecord
			var vec string
			m, err := scanMemory(scanExtra{rows, []any{&vec, &rec.Vector.Dimensions}})
			if err != nil {
				rows.Close()
				return err
			}
			rec.Memory = m
			rec.Vector.Embedder = m.Embedder
			if rec.Vector.Values, err = parseVector(vec); err != nil {
				rows.Close()
				return fmt.Errorf("memory %s: %w", m.ID, err)
			}
			recs = append(recs, rec)
			if len(recs) == 500 {
				if err := flushExport(ctx, tx, recs, fn); err != nil {
					rows.Close()
					return err
				}
				recs = recs[:0]
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		return flushExport(ctx, tx, recs, fn)
	})
	if err != nil {
		return fmt.Errorf("export %s %q: %w", scope.Scope, scope.Key, err)
	}
	return nil
}

func flushExport(ctx context.Context, tx pgx.Tx, recs []store.ExportRecord, fn func(store.ExportRecord) error) error {
	if len(recs) == 0 {
		return nil
	}
	ids := make([]uuid.UUID, len(recs))
	at := map[uuid.UUID]int{}
	for i, r := range recs {
		ids[i] = r.Memory.ID
		at[r.Memory.ID] = i
	}
	rows, err := tx.Query(ctx, `SELECT id, memory_id, event, before_text, after_text, actor, detail, created_at
		FROM memory_history WHERE memory_id = ANY($1) ORDER BY id`, ids)
	if err != nil {
		return fmt.Errorf("read history: %w", err)
	}
	for rows.Next() {
		var h store.HistoryEntry
		var event string
		var detail []byte
		if err := rows.Scan(&h.ID, &h.MemoryID, &event, &h.BeforeText, &h.AfterText, &h.Actor, &detail, &h.CreatedAt); err != nil {
			rows.Close()
			return fmt.Errorf("read history: %w", err)
		}
		h.Event = store.Event(event)
		if len(detail) > 2 {
			if err := json.Unmarshal(detail, &h.Detail); err != nil {
				rows.Close()
				return fmt.Errorf("decode history detail: %w", err)
			}
		}
		i := at[h.MemoryID]
		recs[i].History = append(recs[i].History, h)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, r := range recs {
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

func parseVector(s string) ([]float32, error) {
	var v []float32
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, fmt.Errorf("parse vector: %w", err)
	}
	return v, nil
}

// Import implements store.Store. Rows go in with COPY into a temporary staging table and one
// INSERT ... SELECT that skips ids already present, so re-importing a file is a no-op and the
// whole batch lands or none of it does. Rows are marked ann_deferred: they stay out of the HNSW
// graph (exact scans find them) until IndexDeferred inserts them, so the load runs at COPY speed.
func (s *Store) Import(ctx context.Context, records []store.ExportRecord) (store.ImportResult, error) {
	var res store.ImportResult
	if len(records) == 0 {
		return res, nil
	}
	for _, r := range records {
		if err := checkVector(r.Vector); err != nil {
			return res, fmt.Errorf("import memory %s: %w", r.Memory.ID, err)
		}
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `CREATE TEMP TABLE import_memories (LIKE memories INCLUDING DEFAULTS) ON COMMIT DROP;
			ALTER TABLE import_memories ALTER COLUMN seq DROP NOT NULL;
			ALTER TABLE import_memories ALTER COLUMN embedding TYPE text`); err != nil {
			return fmt.Errorf("create staging table: %w", err)
		}
		cols := []string{"id", "scope", "scope_key", "kind", "text", "text_hash", "importance", "confidence", "pinned", "hit_count",
			"last_hit_at", "agent", "session_id", "source", "embedder", "embedding", "metadata", "created_at", "updated_at",
			"archived_at", "archived_reason"}
		_, err := tx.CopyFrom(ctx, pgx.Identifier{"import_memories"}, cols, pgx.CopyFromSlice(len(records), func(i int) ([]any, error) {
			m, v := records[i].Memory, records[i].Vector
			meta, err := json.Marshal(metadata{DedupedCount: m.DedupedCount, MergedFrom: m.MergedFrom})
			if err != nil {
				return nil, err
			}
			var reason *string
			if m.ArchivedReason != "" {
				reason = &m.ArchivedReason
			}
			return []any{m.ID, string(m.Scope), m.ScopeKey, string(m.Kind), m.Text, TextHash(m.Text), float32(m.Importance), float32(m.Confidence),
				m.Pinned, m.HitCount, m.LastHitAt, m.Provenance.Agent, m.Provenance.Session, m.Provenance.Source, v.Embedder,
				vectorText(v.Values), meta, m.CreatedAt, m.UpdatedAt, m.ArchivedAt, reason}, nil
		}))
		if err != nil {
			return fmt.Errorf("copy memories: %w", err)
		}
		// A live row whose text is already live in the target would break the one-live-text
		// rule: it is imported archived (nothing is dropped) and says why.
		tag, err := tx.Exec(ctx, `INSERT INTO memories (id, scope, scope_key, kind, text, text_hash, importance, confidence, pinned, hit_count,
				last_hit_at, agent, session_id, source, embedder, embedding, metadata, created_at, updated_at, archived_at, archived_reason, seq, ann_deferred)
			SELECT i.id, i.scope, i.scope_key, i.kind, i.text, i.text_hash, i.importance, i.confidence, i.pinned, i.hit_count,
				i.last_hit_at, i.agent, i.session_id, i.source, i.embedder, i.embedding::vector, i.metadata, i.created_at, i.updated_at,
				CASE WHEN i.archived_at IS NULL AND live.id IS NOT NULL THEN now() ELSE i.archived_at END,
				CASE WHEN i.archived_at IS NULL AND live.id IS NOT NULL THEN 'import: duplicate of live memory ' || live.id ELSE i.archived_reason END,
				0, true
			FROM import_memories i
			LEFT JOIN memories live ON live.scope = i.scope AND live.scope_key = i.scope_key AND live.text_hash = i.text_hash AND live.archived_at IS NULL
			WHERE NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = i.id)
			ON CONFLICT DO NOTHING`)
		if err != nil {
			return fmt.Errorf("insert memories: %w", err)
		}
		res.Inserted = int(tag.RowsAffected())
		res.Skipped = len(records) - res.Inserted
		if err := importHistory(ctx, tx, records); err != nil {
			return err
		}
		// Seqs are taken last, under the feed lock, so followers see the batch in commit order.
		_, err = tx.Exec(ctx, `UPDATE memories SET seq = next_change_seq() WHERE seq = 0`)
		return err
	})
	if err != nil {
		return store.ImportResult{}, fmt.Errorf("import: %w", err)
	}
	return res, nil
}

// importHistory copies history rows of the memories this import inserted, keeping their
// original timestamps, and adds one "import" entry per inserted memory.
func importHistory(ctx context.Context, tx pgx.Tx, records []store.ExportRecord) error {
	var rows [][]any
	for _, r := range records {
		for _, h := range r.History {
			detail := []byte("{}")
			if len(h.Detail) > 0 {
				var err error
				if detail, err = json.Marshal(h.Detail); err != nil {
					return fmt.Errorf("encode history detail: %w", err)
				}
			}
			rows = append(rows, []any{r.Memory.ID, string(r.Memory.Scope), r.Memory.ScopeKey, string(h.Event), h.BeforeText, h.AfterText, h.Actor, detail, h.CreatedAt})
		}
	}
	if _, err := tx.Exec(ctx, `CREATE TEMP TABLE import_history (memory_id uuid, scope text, scope_key text, event text,
		before_text text, after_text text, actor text, detail jsonb, created_at timestamptz) ON COMMIT DROP`); err != nil {
		return fmt.Errorf("create history staging table: %w", err)
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"import_history"},
		[]string{"memory_id", "scope", "scope_key", "event", "before_text", "after_text", "actor", "detail", "created_at"},
		pgx.CopyFromRows(rows)); err != nil {
		return fmt.Errorf("copy history: %w", err)
	}
	_, err := tx.Exec(ctx, `INSERT INTO memory_history (memory_id, scope, scope_key, event, before_text, after_text, actor, detail, created_at)
		SELECT h.memory_id, h.scope, h.scope_key, h.event, h.before_text, h.after_text, h.actor, h.detail, h.created_at
		FROM import_history h JOIN memories m ON m.id = h.memory_id AND m.seq = 0
		UNION ALL
		SELECT m.id, m.scope, m.scope_key, 'import', NULL, m.text, 'import', jsonb_build_object('archived', m.archived_at IS NOT NULL), now()
		FROM memories m WHERE m.seq = 0`)
	if err != nil {
		return fmt.Errorf("insert history: %w", err)
	}
	return nil
}
