package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/memhost/memhost/host/internal/core/store"
)

// factKinds is the predicate of the partial indexes over facts (migration 0004). Queries
// that need those indexes repeat it literally: the planner proves a partial index usable only
// from the query's own text, never from a parameter.
const factKinds = `kind NOT IN ('goal', 'plan', 'journal')`

// documentKinds is the predicate of the partial indexes over goals and plans.
const documentKinds = `kind IN ('goal', 'plan')`

// documentColumns are memoryColumns and the document's version: how many times its text was
// set, counted in the history ledger (one add, then one update per change), so the first goal
// of a project is version 1 whatever else the database holds, and an export carries the
// versions with the history. A document imported without its history is version 1.
const documentColumns = memoryColumns + `, (SELECT GREATEST(count(*), 1) FROM memory_history h
	WHERE h.memory_id = memories.id AND h.event IN ('add', 'update')) AS version`

// scanDocument reads documentColumns.
func scanDocument(row pgx.Row) (store.Memory, error) {
	var version int64
	m, err := scanMemory(row, &version)
	m.Version = version
	return m, err
}

// Document returns a project's live goal or plan, or rules.ErrNotFound.
func (s *Store) Document(ctx context.Context, key string, kind store.Kind) (store.Memory, error) {
	if !store.IsDocument(kind) {
		return store.Memory{}, fmt.Errorf("document: %q is not goal or plan", kind)
	}
	m, err := scanDocument(s.pool.QueryRow(ctx, `SELECT `+documentColumns+` FROM memories
		WHERE scope = 'project' AND scope_key = $1 AND kind = $2 AND archived_at IS NULL AND `+documentKinds, key, string(kind)))
	if err != nil {
		return m, fmt.Errorf("read %s of %q: %w", kind, key, err)
	}
	return m, nil
}

// SetDocument replaces a project's live goal or plan (or creates it) under the project's
// write lock. Setting the text it already has changes nothing. Pending proposals for the
// document become stale: they were made against the text it had.
func (s *Store) SetDocument(ctx context.Context, w store.DocumentWrite) (store.Memory, error) {
	var out store.Memory
	err := s.inProject(ctx, w.ScopeKey, func(tx pgx.Tx) error {
		var err error
		out, err = writeDocument(ctx, tx, w, nil)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("set %s of %q: %w", w.Kind, w.ScopeKey, err)
	}
	return out, nil
}

// inProject runs fn in one transaction holding the project's write lock, the lock every
// write to the project takes (WithScopeLock), so documents, facts and proposals of one
// project change one at a time across hosts.
func (s *Store) inProject(ctx context.Context, key string, fn func(tx pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, scopeLockSQL, scopeLockKey(store.ScopeProject, key)); err != nil {
			return fmt.Errorf("lock project: %w", err)
		}
		return fn(tx)
	})
}

// liveDocument loads and locks the live document of kind, or returns nil.
func liveDocument(ctx context.Context, tx pgx.Tx, key string, kind store.Kind) (*store.Memory, error) {
	m, err := scanDocument(tx.QueryRow(ctx, `SELECT `+documentColumns+` FROM memories
		WHERE scope = 'project' AND scope_key = $1 AND kind = $2 AND archived_at IS NULL AND `+documentKinds+` FOR UPDATE`, key, string(kind)))
	switch {
	case errors.Is(err, rules.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("read live %s: %w", kind, err)
	}
	return &m, nil
}

// writeDocument applies w inside tx, which holds the project's lock. With base set, the live
// document's seq (0 when there is none) must still be *base, else nothing changes and the
// error is store.ErrStale.
func writeDocument(ctx context.Context, tx pgx.Tx, w store.DocumentWrite, base *int64) (store.Memory, error) {
	if !store.IsDocument(w.Kind) {
		return store.Memory{}, fmt.Errorf("%q is not goal or plan", w.Kind)
	}
	if err := checkVector(w.Vector); err != nil {
		return store.Memory{}, err
	}
	cur, err := liveDocument(ctx, tx, w.ScopeKey, w.Kind)
	if err != nil {
		return store.Memory{}, err
	}
	if base != nil && seqOf(cur) != *base {
		return store.Memory{}, store.ErrStale
	}
	if cur != nil && cur.Text == w.Text {
		return *cur, nil
	}
	// Every proposal still pending was made against the text this write replaces.
	if _, err := tx.Exec(ctx, `UPDATE proposals SET status = 'stale' WHERE scope_key = $1 AND layer = $2 AND status = 'pending'`,
		w.ScopeKey, string(w.Kind)); err != nil {
		return store.Memory{}, fmt.Errorf("mark proposals stale: %w", err)
	}
	now := time.Now().UTC()
	detail := provenanceDetail(w.Provenance)
	for k, v := range w.Detail {
		detail[k] = v
	}
	if cur == nil {
		return insertDocument(ctx, tx, w, detail, now)
	}
	var b pgx.Batch
	after := w.Text
	if err := queueHistory(&b, *cur, store.EventUpdate, &cur.Text, &after, w.Actor, detail, now); err != nil {
		return store.Memory{}, err
	}
	var m store.Memory
	b.Queue(`UPDATE memories SET text = $2, text_hash = $3, embedder = $4, agent = $5,
			session_id = $6, source = $7, updated_at = $8, seq = next_change_seq()
		WHERE id = $1 RETURNING `+documentColumns,
		cur.ID, w.Text, TextHash(w.Text), w.Vector.Embedder, w.Provenance.Agent,
		w.Provenance.Session, w.Provenance.Source, now,
	).QueryRow(func(row pgx.Row) error {
		m, err = scanDocument(row)
		return err
	})
	// The new text dropped the old one's vectors (migration 0012's trigger).
	queuePutVector(&b, cur.ID, w.Text, w.Vector)
	if err := tx.SendBatch(ctx, &b).Close(); err != nil {
		return m, fmt.Errorf("update %s: %w", w.Kind, err)
	}
	return m, nil
}

// documentWeight is a document's importance and confidence: a human set or approved it.
const documentWeight = 1.0

func insertDocument(ctx context.Context, tx pgx.Tx, w store.DocumentWrite, detail map[string]any, now time.Time) (store.Memory, error) {
	m := store.Memory{
		ID: w.ID, Scope: store.ScopeProject, ScopeKey: w.ScopeKey, Kind: w.Kind, Text: w.Text,
		Importance: documentWeight, Confidence: documentWeight, Provenance: w.Provenance, Embedder: w.Vector.Embedder,
		CreatedAt: now, UpdatedAt: now, Version: 1,
	}
	if m.ID == uuid.Nil {
		m.ID = uuid.Must(uuid.NewV7())
	}
	var b pgx.Batch
	after := w.Text
	if err := queueHistory(&b, m, store.EventAdd, nil, &after, w.Actor, detail, now); err != nil {
		return m, err
	}
	b.Queue(`INSERT INTO memories (id, scope, scope_key, kind, text, text_hash, importance, confidence, pinned,
			agent, session_id, source, embedder, metadata, created_at, updated_at, seq)
		VALUES ($1, 'project', $2, $3, $4, $5, $6, $6, false, $7, $8, $9, $10, '{}', $11, $11, next_change_seq())
		RETURNING seq`,
		m.ID, m.ScopeKey, string(m.Kind), m.Text, TextHash(m.Text), documentWeight, m.Provenance.Agent,
		m.Provenance.Session, m.Provenance.Source, m.Embedder, now,
	).QueryRow(func(row pgx.Row) error { return row.Scan(&m.Seq) })
	queuePutVector(&b, m.ID, m.Text, w.Vector)
	if err := tx.SendBatch(ctx, &b).Close(); err != nil {
		if isUniqueViolation(err) {
			return m, fmt.Errorf("insert %s: %w: the project already has a live %s", w.Kind, rules.ErrConflict, w.Kind)
		}
		return m, fmt.Errorf("insert %s: %w", w.Kind, err)
	}
	return m, nil
}

func seqOf(m *store.Memory) int64 {
	if m == nil {
		return 0
	}
	return m.Seq
}

// Journal returns a project's live journal entries, newest first, after the cursor.
func (s *Store) Journal(ctx context.Context, key string, limit int, before *store.Cursor) ([]store.Memory, error) {
	args := []any{key, limit}
	page := ""
	if before != nil {
		args = append(args, before.CreatedAt, before.ID)
		page = ` AND (created_at, id) < ($3, $4)`
	}
	rows, err := s.pool.Query(ctx, `SELECT `+memoryColumns+` FROM memories
		WHERE scope = 'project' AND scope_key = $1 AND kind = 'journal' AND archived_at IS NULL`+page+`
		ORDER BY created_at DESC, id DESC LIMIT $2`, args...)
	if err != nil {
		return nil, fmt.Errorf("read journal of %q: %w", key, err)
	}
	out, err := collectMemories(rows)
	if err != nil {
		return nil, fmt.Errorf("read journal of %q: %w", key, err)
	}
	return out, nil
}

// KnownTexts returns which of texts a project already holds, live or archived: as a fact's
// text (compared as store.NormalizeText does) or among the texts a fact absorbed in a fold.
// An import that skips them adds nothing when it runs again.
func (s *Store) KnownTexts(ctx context.Context, key string, texts []string) (map[string]bool, error) {
	if len(texts) == 0 {
		return map[string]bool{}, nil
	}
	hashes := make([][]byte, len(texts))
	for i, t := range texts {
		hashes[i] = TextHash(t)
	}
	return querySet(ctx, s.pool, "look up known texts", `SELECT x.t FROM unnest($2::text[], $3::bytea[]) AS x(t, h)
		WHERE EXISTS (SELECT 1 FROM memories m WHERE m.scope = 'project' AND m.scope_key = $1 AND m.text_hash = x.h AND m.`+factKinds+`)
		   OR EXISTS (SELECT 1 FROM memories m WHERE m.scope = 'project' AND m.scope_key = $1 AND m.`+factKinds+`
				AND m.metadata -> 'merged_from' @> jsonb_build_array(jsonb_build_object('text', x.t)))`, key, texts, hashes)
}
