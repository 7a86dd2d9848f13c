package pgstore

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/memhost/memhost/host/internal/core/store"
)

// exportPage is how many memories Export reads before it reads their history.
const exportPage = 500

// Export implements store.Store. It reads one consistent snapshot (a repeatable-read
// transaction), so a concurrent write cannot split a memory from its history. Memories come
// through a cursor a page at a time: a connection runs one query at a time, and the history of
// each page is read between two pages, never while memory rows are still streaming.
func (s *Store) Export(ctx context.Context, scope store.ScopeRef, fn func(store.ExportRecord) error) error {
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var args []any
		filter := scopeFilter([]store.ScopeRef{scope}, &args)
		// One vector per memory goes out: the one its text was written with, else its newest
		// (re-embedded) one; an importing host re-embeds what it lacks.
		if _, err := tx.Exec(ctx, `DECLARE export_memories NO SCROLL CURSOR FOR SELECT `+qualifiedMemoryColumns+`,
				v.embedder, v.embedding::text, vector_dims(v.embedding)
			FROM memories m LEFT JOIN LATERAL (SELECT embedder, embedding FROM memory_vectors WHERE memory_id = m.id
				ORDER BY embedder = m.embedder DESC, created_at DESC LIMIT 1) v ON true
			WHERE `+filter+` ORDER BY m.created_at, m.id`, args...); err != nil {
			return fmt.Errorf("read memories: %w", err)
		}
		for {
			recs, err := fetchExportPage(ctx, tx)
			if err != nil || len(recs) == 0 {
				return err
			}
			if err := flushExport(ctx, tx, recs, fn); err != nil {
				return err
			}
		}
	})
	if err != nil {
		return fmt.Errorf("export %s %q: %w", scope.Scope, scope.Key, err)
	}
	return nil
}

// fetchExportPage reads the cursor's next page of memories and their vectors.
func fetchExportPage(ctx context.Context, tx pgx.Tx) ([]store.ExportRecord, error) {
	rows, err := tx.Query(ctx, fmt.Sprintf(`FETCH %d FROM export_memories`, exportPage))
	if err != nil {
		return nil, fmt.Errorf("read memories: %w", err)
	}
	defer rows.Close()
	recs := make([]store.ExportRecord, 0, exportPage)
	for rows.Next() {
		var rec store.ExportRecord
		var embedder, vec *string
		var dims *int
		m, err := scanMemory(scanExtra{rows, []any{&embedder, &vec, &dims}})
		if err != nil {
			return nil, fmt.Errorf("read memories: %w", err)
		}
		if vec == nil {
			// Every write stores a vector with its text; saying so beats an export missing a row.
			return nil, fmt.Errorf("memory %s holds no vector to export", m.ID)
		}
		rec.Memory = m
		rec.Vector.Embedder, rec.Vector.Dimensions = *embedder, *dims
		if rec.Vector.Values, err = parseVector(*vec); err != nil {
			return nil, fmt.Errorf("memory %s: %w", m.ID, err)
		}
		recs = append(recs, rec)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read memories: %w", err)
	}
	return recs, nil
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
		FROM memory_history WHERE memory_id = ANY($1) ORDER BY id`, uuidArray(ids))
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

// Import implements store.Store: ImportBatches with one batch.
func (s *Store) Import(ctx context.Context, records []store.ExportRecord) (store.ImportResult, error) {
	return s.ImportBatches(ctx, func(yield func([]store.ExportRecord, error) bool) { yield(records, nil) })
}

// importDuplicateKey is what makes two staged live rows duplicates of each other: a fact's
// text, a document's kind (one live goal and plan per project), and nothing for a journal
// entry (its own id).
const importDuplicateKey = `CASE WHEN kind = 'journal' THEN id::text WHEN kind IN ('goal', 'plan') THEN kind ELSE encode(text_hash, 'hex') END`

// importColumns are the memory columns a batch is copied into the staging table with.
var importColumns = []string{"id", "scope", "scope_key", "kind", "text", "text_hash", "importance", "confidence", "pinned", "hit_count",
	"last_hit_at", "agent", "session_id", "source", "embedder", "embedding", "metadata", "created_at", "updated_at",
	"archived_at", "archived_reason"}

// importVectorsSQL stores the vectors of the memories a batch inserted, each deferred when its
// scope has a graph (see ImportBatches).
var importVectorsSQL = `INSERT INTO memory_vectors (memory_id, embedder, scope, scope_key, kind, archived, embedding, ann_deferred)
	SELECT i.id, i.embedder, i.scope, i.scope_key, i.kind, n.archived, i.embedding::vector, to_regclass(` + graphNameSQL("i.embedder") + `) IS NOT NULL
	FROM import_memories i JOIN (SELECT id AS inserted, archived FROM import_inserted) n ON n.inserted = i.id`

// importInsertColumns and importSelect move a staged row into memories, up to its archived
// state and seq, which each insert sets.
const (
	importInsertColumns = `id, scope, scope_key, kind, text, text_hash, importance, confidence, pinned, hit_count,
		last_hit_at, agent, session_id, source, embedder, metadata, created_at, updated_at, archived_at, archived_reason, seq`
	importSelect = `i.id, i.scope, i.scope_key, i.kind, i.text, i.text_hash, i.importance, i.confidence, i.pinned, i.hit_count,
		i.last_hit_at, i.agent, i.session_id, i.source, i.embedder, i.metadata, i.created_at, i.updated_at`
)

// ImportBatches implements store.Store. Every batch goes in with COPY into a temporary staging
// table and one INSERT ... SELECT that skips ids already present, so re-importing a file is a
// no-op; all batches share one transaction, so the whole import lands or none of it does. Rows
// of a scope that has a graph are marked ann_deferred: they stay out of it (exact scans find
// them) until IndexDeferred inserts them, so the load runs at COPY speed. Rows of a scope
// without one are not: its exact scan finds them as they are, and the graph built when the
// scope outgrows it takes them in. Deferring those too would make the indexer rewrite every
// row of a load into a fresh database for nothing, a dead copy of each left in the table.
func (s *Store) ImportBatches(ctx context.Context, batches iter.Seq2[[]store.ExportRecord, error]) (store.ImportResult, error) {
	var res store.ImportResult
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `CREATE TEMP TABLE import_memories (LIKE memories INCLUDING DEFAULTS) ON COMMIT DROP;
			ALTER TABLE import_memories ALTER COLUMN seq DROP NOT NULL;
			ALTER TABLE import_memories ADD COLUMN embedding text;
			CREATE TEMP TABLE import_history (ord integer, memory_id uuid, scope text, scope_key text, event text,
				before_text text, after_text text, actor text, detail jsonb, created_at timestamptz) ON COMMIT DROP;
			CREATE TEMP TABLE import_inserted (id uuid, scope text, scope_key text, text text, archived boolean) ON COMMIT DROP`); err != nil {
			return fmt.Errorf("create staging tables: %w", err)
		}
		for records, err := range batches {
			if err != nil {
				return err
			}
			inserted, err := importBatch(ctx, tx, records)
			if err != nil {
				return err
			}
			res.Inserted += inserted
			res.Skipped += len(records) - inserted
		}
		// Seqs are taken last, under the feed lock, so followers see the import in commit order.
		// The lock is held from here to the commit: about 3 s per 100K rows on 2 cores.
		_, err := tx.Exec(ctx, `UPDATE memories SET seq = next_change_seq() WHERE seq = 0`)
		return err
	})
	if err != nil {
		return store.ImportResult{}, fmt.Errorf("import: %w", err)
	}
	return res, nil
}

// importBatch stages records and inserts the ones not present yet with seq 0 (ImportBatches
// numbers them at the end), then their history. It returns how many it inserted.
func importBatch(ctx context.Context, tx pgx.Tx, records []store.ExportRecord) (int, error) {
	if len(records) == 0 {
		return 0, nil
	}
	for _, r := range records {
		if err := checkVector(r.Vector); err != nil {
			return 0, fmt.Errorf("memory %s: %w", r.Memory.ID, err)
		}
	}
	if _, err := tx.Exec(ctx, `TRUNCATE import_memories, import_history, import_inserted`); err != nil {
		return 0, fmt.Errorf("clear staging tables: %w", err)
	}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"import_memories"}, importColumns, pgx.CopyFromSlice(len(records), func(i int) ([]any, error) {
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
		return 0, fmt.Errorf("copy memories: %w", err)
	}
	// A live row whose text is already live in the target, or live earlier in the same batch,
	// would break the one-live-text rule: it is imported archived (nothing is dropped) and says
	// why. Redaction can make two texts of one export the same. The layer kinds (migration
	// 0004) have rules of their own: a live goal or plan is a duplicate of the project's live
	// goal or plan whatever its text; journal entries are never duplicates.
	//
	// The unique indexes decide (ON CONFLICT), so memories is only ever probed by a unique
	// index: a join into memories, which the planner hashes or walks by another index while
	// the table's statistics say it is small, made every batch of a large import cost a scan
	// of every row imported before it.
	tag, err := tx.Exec(ctx, `WITH ins AS (
		INSERT INTO memories (`+importInsertColumns+`)
			SELECT `+importSelect+`,
				CASE WHEN i.archived_at IS NULL AND i.nth > 1 THEN now() ELSE i.archived_at END,
				CASE WHEN i.archived_at IS NULL AND i.nth > 1 THEN 'import: duplicate of another live memory in the same import'
					ELSE i.archived_reason END,
				0
			FROM (SELECT *, row_number() OVER (PARTITION BY scope, scope_key, `+importDuplicateKey+`, archived_at IS NULL ORDER BY created_at, id) AS nth
				FROM import_memories) i
			ON CONFLICT DO NOTHING
			RETURNING id, scope, scope_key, text, archived_at IS NOT NULL)
		INSERT INTO import_inserted SELECT * FROM ins`)
	if err != nil {
		return 0, fmt.Errorf("insert memories: %w", err)
	}
	inserted := int(tag.RowsAffected())
	if inserted < len(records) {
		// Rows left out are present already (by id, probed per row in the primary key), or
		// duplicates of a live row: those go in archived.
		tag, err := tx.Exec(ctx, `WITH ins AS (
			INSERT INTO memories (`+importInsertColumns+`)
				SELECT `+importSelect+`, now(),
					CASE WHEN i.kind IN ('goal', 'plan') THEN 'import: the project already has a live ' || i.kind
						ELSE 'import: duplicate of a live memory with the same text' END,
					0
				FROM import_memories i
				WHERE NOT EXISTS (SELECT 1 FROM import_inserted n WHERE n.id = i.id)
					AND NOT (SELECT EXISTS (SELECT 1 FROM memories m WHERE m.id = i.id))
				ON CONFLICT DO NOTHING
				RETURNING id, scope, scope_key, text, archived_at IS NOT NULL)
			INSERT INTO import_inserted SELECT * FROM ins`)
		if err != nil {
			return 0, fmt.Errorf("insert duplicates archived: %w", err)
		}
		inserted += int(tag.RowsAffected())
	}
	if _, err := tx.Exec(ctx, importVectorsSQL); err != nil {
		return 0, fmt.Errorf("insert vectors: %w", err)
	}
	if err := importHistory(ctx, tx, records); err != nil {
		return 0, err
	}
	return inserted, nil
}

// importHistory copies history rows of the memories this batch inserted, keeping their
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
			rows = append(rows, []any{len(rows), r.Memory.ID, string(r.Memory.Scope), r.Memory.ScopeKey, string(h.Event), h.BeforeText, h.AfterText, h.Actor, detail, h.CreatedAt})
		}
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"import_history"},
		[]string{"ord", "memory_id", "scope", "scope_key", "event", "before_text", "after_text", "actor", "detail", "created_at"},
		pgx.CopyFromRows(rows)); err != nil {
		return fmt.Errorf("copy history: %w", err)
	}
	// Ledger ids follow insertion order, so the copied entries go in in their file order.
	_, err := tx.Exec(ctx, `INSERT INTO memory_history (memory_id, scope, scope_key, event, before_text, after_text, actor, detail, created_at)
		(SELECT h.memory_id, h.scope, h.scope_key, h.event, h.before_text, h.after_text, h.actor, h.detail, h.created_at
		FROM import_history h JOIN import_inserted n ON n.id = h.memory_id ORDER BY h.ord)
		UNION ALL
		(SELECT n.id, n.scope, n.scope_key, 'import', NULL, n.text, 'import', jsonb_build_object('archived', n.archived), now()
		FROM import_inserted n)`)
	if err != nil {
		return fmt.Errorf("insert history: %w", err)
	}
	return nil
}
