package pgstore

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/memhost/memhost/host/internal/store"
)

func formatFloat(f float32) string { return strconv.FormatFloat(float64(f), 'g', -1, 32) }

// TextHash is the exact-duplicate key: sha256 of store.NormalizeText(text).
func TextHash(text string) []byte {
	sum := sha256.Sum256([]byte(store.NormalizeText(text)))
	return sum[:]
}

// scopeLock serialises writes to one scope across every host on the database; $1 is the
// scope's lock key.
const scopeLock = `pg_advisory_xact_lock(hashtextextended($1, 7420))`

// scopeLockSQL takes the scope lock.
const scopeLockSQL = `SELECT ` + scopeLock

// writeLockSQL takes the scope lock and, in the same round trip, the planner settings of the
// neighbour lookup that usually follows (see nearestSettingsSQL): SET LOCAL as set_config calls.
const writeLockSQL = `SELECT ` + scopeLock + `,
	set_config('plan_cache_mode', 'force_generic_plan', true),
	set_config('hnsw.iterative_scan', 'relaxed_order', true),
	set_config('hnsw.ef_search', $2, true)`

func scopeLockKey(scope store.Scope, key string) string { return string(scope) + ":" + key }

// WithScopeLock implements store.Store. A write through it costs six round trips: begin, the
// lock, the exact and neighbour lookups, one batch with the row and its history entry, commit.
func (s *Store) WithScopeLock(ctx context.Context, scope store.ScopeRef, fn func(store.ScopeTx) error) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, writeLockSQL, scopeLockKey(scope.Scope, scope.Key), strconv.Itoa(foldEfSearch)); err != nil {
			return fmt.Errorf("lock scope: %w", err)
		}
		return fn(&scopeTx{tx: tx, scope: scope})
	})
	if err != nil {
		return fmt.Errorf("write memory: %w", err)
	}
	return nil
}

// scopeTx is store.ScopeTx on a transaction holding the scope lock.
type scopeTx struct {
	tx    pgx.Tx
	scope store.ScopeRef
}

var _ store.ScopeTx = (*scopeTx)(nil)

// FindExact implements store.ScopeTx through the unique index on live texts.
func (t *scopeTx) FindExact(ctx context.Context, text string) (store.Memory, error) {
	m, err := scanMemory(t.tx.QueryRow(ctx, `SELECT `+memoryColumns+` FROM memories
		WHERE scope = $1 AND scope_key = $2 AND text_hash = $3 AND archived_at IS NULL AND `+factKinds, string(t.scope.Scope), t.scope.Key, TextHash(text)))
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return m, fmt.Errorf("look up exact duplicate: %w", err)
	}
	return m, err
}

// Nearest implements store.ScopeTx: the ANN query of Store.Nearest joined to the rows, so the
// candidates arrive loaded in one round trip.
func (t *scopeTx) Nearest(ctx context.Context, v store.Vector, limit int) ([]store.Neighbour, error) {
	if err := checkVector(v); err != nil {
		return nil, err
	}
	if v.IsZero() {
		return nil, nil
	}
	// Facts fold into facts only: a goal, plan or journal entry never absorbs one.
	sql, args := neighboursSQL(store.VectorQuery{Vector: v, Scopes: []store.ScopeRef{t.scope}, Kinds: store.Kinds, Limit: limit})
	rows, err := t.tx.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("find nearest neighbours: %w", err)
	}
	defer rows.Close()
	var out []store.Neighbour
	for rows.Next() {
		var n store.Neighbour
		if n.Memory, err = scanMemory(scanExtra{rows, []any{&n.Similarity}}); err != nil {
			return nil, fmt.Errorf("find nearest neighbours: %w", err)
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find nearest neighbours: %w", err)
	}
	return out, nil
}

// neighboursSQL is NearestSQL with the rows joined on.
func neighboursSQL(q store.VectorQuery) (string, []any) {
	sql, args := NearestSQL(q)
	return `SELECT ` + memoryColumns + `, n.similarity FROM (` + sql + `) AS n (id, similarity)
		JOIN memories USING (id) ORDER BY n.similarity DESC`, args
}

// Insert implements store.ScopeTx: the row and its add entry go in one batch.
func (t *scopeTx) Insert(ctx context.Context, w store.Write) (store.Memory, error) {
	if w.Ref() != t.scope {
		return store.Memory{}, fmt.Errorf("insert memory: its scope is not the locked one")
	}
	if err := checkVector(w.Vector); err != nil {
		return store.Memory{}, err
	}
	now := time.Now().UTC()
	m := store.Memory{
		ID: w.ID, Scope: w.Scope, ScopeKey: w.ScopeKey, Kind: w.Kind, Text: w.Text,
		Importance: w.Importance, Confidence: w.Confidence, Pinned: w.Pinned, Provenance: w.Provenance,
		Embedder: w.Vector.Embedder, CreatedAt: now, UpdatedAt: now,
	}
	if m.ID == uuid.Nil {
		m.ID = uuid.Must(uuid.NewV7())
	}
	var b pgx.Batch
	after := w.Text
	if err := queueHistory(&b, m, store.EventAdd, nil, &after, w.Actor, provenanceDetail(w.Provenance), now); err != nil {
		return m, err
	}
	// In a scope with a graph of its own the row joins it later, through the background indexer
	// (IndexDeferred): a graph insertion costs milliseconds, and until then Nearest finds the row
	// by its exact scan of deferred rows, so the write is searchable as soon as it commits.
	b.Queue(`INSERT INTO memories (id, scope, scope_key, kind, text, text_hash, importance, confidence, pinned,
			agent, session_id, source, embedder, embedding, metadata, created_at, updated_at, ann_deferred, seq)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::vector, '{}', $15, $15, to_regclass($16) IS NOT NULL, next_change_seq())
		RETURNING seq`,
		m.ID, string(m.Scope), m.ScopeKey, string(m.Kind), m.Text, TextHash(m.Text), m.Importance, m.Confidence, m.Pinned,
		m.Provenance.Agent, m.Provenance.Session, m.Provenance.Source, m.Embedder, vectorText(w.Vector.Values), now,
		GraphName(m.Embedder, t.scope),
	).QueryRow(func(row pgx.Row) error { return row.Scan(&m.Seq) })
	if err := t.tx.SendBatch(ctx, &b).Close(); err != nil {
		if isUniqueViolation(err) {
			return m, fmt.Errorf("insert memory: %w: the same text is live", store.ErrConflict)
		}
		return m, fmt.Errorf("insert memory: %w", err)
	}
	return m, nil
}

// Fold implements store.ScopeTx: the update and its fold entry go in one batch. Every fold
// gives the row a new change seq so followers re-index it.
func (t *scopeTx) Fold(ctx context.Context, p store.FoldParams) (store.Memory, error) {
	meta, err := json.Marshal(metadata{DedupedCount: p.DedupedCount, MergedFrom: p.MergedFrom})
	if err != nil {
		return store.Memory{}, fmt.Errorf("encode metadata: %w", err)
	}
	now := time.Now().UTC()
	args := []any{p.ID, string(t.scope.Scope), t.scope.Key, string(p.Kind), p.Importance, p.Confidence, p.Pinned, meta, now}
	set := `kind = $4, importance = $5, confidence = $6, pinned = $7, metadata = $8, updated_at = $9, seq = next_change_seq()`
	if r := p.Replacement; r != nil {
		if err := checkVector(r.Vector); err != nil {
			return store.Memory{}, err
		}
		args = append(args, r.Text, TextHash(r.Text), r.Vector.Embedder, vectorText(r.Vector.Values), r.Provenance.Agent, r.Provenance.Session, r.Provenance.Source)
		set += `, text = $10, text_hash = $11, embedder = $12, embedding = $13::vector, agent = $14, session_id = $15, source = $16`
	}
	// Any fold rewrites the row (a new change seq at least), which would put it into its scope's
	// graph again on the write's time: defer that to the background indexer, as Insert does.
	embedder := "embedder"
	if p.Replacement != nil {
		embedder = "$12"
	}
	set += `, ann_deferred = ann_deferred OR to_regclass(` + graphNameSQL(embedder) + `) IS NOT NULL`
	var b pgx.Batch
	var m store.Memory
	target := store.Memory{ID: p.ID, Scope: t.scope.Scope, ScopeKey: t.scope.Key}
	if err := queueHistory(&b, target, store.EventFold, &p.Before, &p.After, p.Actor, p.Detail, now); err != nil {
		return m, err
	}
	b.Queue(`UPDATE memories SET `+set+`
		WHERE id = $1 AND scope = $2 AND scope_key = $3 AND archived_at IS NULL RETURNING `+memoryColumns, args...,
	).QueryRow(func(row pgx.Row) error {
		m, err = scanMemory(row)
		return err
	})
	if err := t.tx.SendBatch(ctx, &b).Close(); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return m, fmt.Errorf("fold into %s: not a live memory of the locked scope: %w", p.ID, err)
		}
		return m, fmt.Errorf("fold into %s: %w", p.ID, err)
	}
	return m, nil
}

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
