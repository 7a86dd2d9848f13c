package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/memhost/memhost/host/internal/core/store"
)

func formatFloat(f float32) string { return strconv.FormatFloat(float64(f), 'g', -1, 32) }

// TextHash is the exact-duplicate key (store.TextHash).
func TextHash(text string) []byte { return store.TextHash(text) }

// scopeLock serialises writes to one scope across every host on the database; $1 is the
// scope's lock key.
const scopeLock = `pg_advisory_xact_lock(hashtextextended($1, 7420))`

// scopeLockSQL takes the scope lock.
const scopeLockSQL = `SELECT ` + scopeLock

// writeLockSQL takes the scope lock and keeps the write's plans: a custom plan of a query on
// memories costs a millisecond and more once the table has a few dozen graphs (the planner
// weighs every index), while the lookups' generic plans are as good (see genericPlansSQL).
const writeLockSQL = `SELECT ` + scopeLock + `, ` + genericPlans

// unflushed ends a lock statement so that the transaction commits without waiting for its WAL
// flush (WithFlushedWrites(false) says when and why): set in the statement the write sends
// anyway, it costs no round trip.
const unflushed = `, set_config('synchronous_commit', 'off', true)`

// lockSQL is the statement that takes a write's scope lock: lock (writeLockSQL or
// scopeLockSQL), unflushed when the operator traded the flush away.
func (s *Store) lockSQL(lock string) string {
	if s.flushWrites {
		return lock
	}
	return lock + unflushed
}

func scopeLockKey(scope store.Scope, key string) string { return string(scope) + ":" + key }

// WithScopeLock implements store.Store. A write through it costs two round trips on one
// pooled connection, each a pipelined batch: the first call on tx sends BEGIN, the lock with
// the lookup's queries; the final Insert or Fold
// sends the row, its history entry and COMMIT. If fn ends without a final change, the
// transaction commits (or, on an error, rolls back) on its own round trip.
//
// A connection goes back to the pool outside any transaction: after a failed batch, or an
// error from fn, WithScopeLock sends ROLLBACK, and the pool discards a connection that cannot
// take it (a cancelled context closes the connection, for one).
func (s *Store) WithScopeLock(ctx context.Context, scope store.ScopeRef, fn func(store.ScopeTx) error) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("write memory: %w", err)
	}
	defer conn.Release()
	tx := &scopeTx{conn: conn, scope: scope, lock: s.lockSQL(writeLockSQL)}
	if err := fn(tx); err != nil {
		tx.rollback(ctx)
		return fmt.Errorf("write memory: %w", err)
	}
	if err := tx.commit(ctx); err != nil {
		tx.rollback(ctx)
		return fmt.Errorf("write memory: %w", err)
	}
	return nil
}

// rollbackTimeout bounds the ROLLBACK that cleans a connection up after a failed write; it
// runs even when the write's own context is done.
const rollbackTimeout = 5 * time.Second

// errWriteFinished is a call on a ScopeTx after its final change.
var errWriteFinished = errors.New("the write is finished: no call may follow Insert, Fold or Edit")

// scopeTx is store.ScopeTx on a pooled connection that begins its transaction, and takes the
// scope lock, with the first batch it sends.
type scopeTx struct {
	conn  *pgxpool.Conn
	scope store.ScopeRef
	lock  string // the statement that takes the lock (Store.lockSQL)
	begun bool   // BEGIN and the lock went out
	final bool   // Insert or Fold ran: nothing may follow
}

var _ store.ScopeTx = (*scopeTx)(nil)

// batch starts a batch for tx: on the first one, BEGIN and the lock lead it.
func (t *scopeTx) batch() *pgx.Batch {
	b := &pgx.Batch{}
	if !t.begun {
		b.Queue(`BEGIN`)
		b.Queue(t.lock, scopeLockKey(t.scope.Scope, t.scope.Key))
	}
	return b
}

// send sends b in one round trip; final adds COMMIT and ends the write. Postgres runs a
// pipelined batch up to its one sync point, so an error skips everything after it, COMMIT
// included, and leaves the transaction aborted for rollback to end.
func (t *scopeTx) send(ctx context.Context, b *pgx.Batch, final bool) error {
	if t.final {
		return errWriteFinished
	}
	if final {
		b.Queue(`COMMIT`)
		t.final = true
	}
	t.begun = true
	return t.conn.SendBatch(ctx, b).Close()
}

// commit ends a transaction fn left open without a final change (it only looked).
func (t *scopeTx) commit(ctx context.Context) error {
	if t.conn.Conn().PgConn().TxStatus() == 'I' {
		return nil
	}
	tag, err := t.conn.Exec(ctx, `COMMIT`)
	if err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	// COMMIT of a transaction a failed statement aborted rolls it back without an error.
	if tag.String() == "ROLLBACK" {
		return errors.New("commit: a failed statement had aborted the transaction, which rolled back")
	}
	return nil
}

// rollback ends whatever transaction a failed write left on the connection, so the pool gets
// it back clean. A connection the rollback cannot reach is left for Release to discard.
func (t *scopeTx) rollback(ctx context.Context) {
	c := t.conn.Conn()
	if c.IsClosed() || c.PgConn().TxStatus() == 'I' {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
	defer cancel()
	_, _ = c.Exec(ctx, `ROLLBACK`) // on failure the connection stays outside 'I' and is discarded
}

// exactSQL finds the live fact with a text through the unique index on live texts.
const exactSQL = `SELECT ` + memoryColumns + ` FROM memories
	WHERE scope = $1 AND scope_key = $2 AND text_hash = $3 AND archived_at IS NULL AND ` + factKinds

// Lookup implements store.ScopeTx in one round trip (with BEGIN and the lock when it is the
// first call): the exact lookup, and the candidates read by primary key with their exact
// cosine.
func (t *scopeTx) Lookup(ctx context.Context, text string, v store.Vector, candidates []uuid.UUID) (store.Candidates, error) {
	var c store.Candidates
	neighbours := v.Embedder != ""
	if neighbours {
		if err := checkVector(v); err != nil {
			return c, err
		}
		neighbours = !v.IsZero()
	}
	b := t.batch()
	b.Queue(exactSQL, string(t.scope.Scope), t.scope.Key, TextHash(text)).QueryRow(func(row pgx.Row) error {
		m, err := scanMemory(row)
		switch {
		case err == nil:
			c.Exact = &m
		case !errors.Is(err, rules.ErrNotFound):
			return fmt.Errorf("look up exact duplicate: %w", err)
		}
		return nil
	})
	readNeighbours := func(rows pgx.Rows) error {
		for rows.Next() {
			var n store.Neighbour
			var err error
			if n.Memory, err = scanMemory(scanExtra{rows, []any{&n.Similarity}}); err != nil {
				return fmt.Errorf("find nearest neighbours: %w", err)
			}
			c.Neighbours = append(c.Neighbours, n)
		}
		return rows.Err()
	}
	switch {
	case neighbours:
		// Facts fold into facts only: a goal, plan or journal entry never absorbs one.
		b.Queue(candidatesSQL(v), uuidArray(candidates), string(t.scope.Scope), t.scope.Key, v.Embedder, vectorText(v.Values)).Query(readNeighbours)
	case v.Pending():
		b.Queue(pendingCandidatesSQL, uuidArray(candidates), string(t.scope.Scope), t.scope.Key).Query(readNeighbours)
	}
	if err := t.send(ctx, b, false); err != nil {
		return store.Candidates{}, fmt.Errorf("look up fold candidates: %w", err)
	}
	return c, nil
}

// recentCandidates is how many of its scope's newest facts a write's lookup adds to the
// caller's candidates (store.ScopeTx.Lookup).
const recentCandidates = 5

// candidatesSQL loads a write's fold candidates — the ids the caller chose ($1) and the
// scope's newest facts — that are live facts of the scope ($2, $3) holding a vector of the
// embedder ($4), with their cosine to the write's vector ($5), most similar first. Only that
// embedder's vectors are read (the join's key), so every cast meets vectors of one width, and a
// zero vector's NaN cosine drops its row.
func candidatesSQL(v store.Vector) string {
	return `SELECT * FROM (
		SELECT ` + qualifiedMemoryColumns + `, 1 - (v.` + vecExpr(v.Dimensions) + fmt.Sprintf(` <=> $5::vector(%d))`, v.Dimensions) + ` AS similarity
		FROM memories m JOIN memory_vectors v ON v.memory_id = m.id AND v.embedder = $4 AND v.ann_error IS NULL
		WHERE m.id IN (
			SELECT unnest($1::uuid[])
			UNION
			SELECT id FROM (SELECT id FROM memories WHERE scope = $2 AND scope_key = $3 AND archived_at IS NULL AND ` + factKinds + `
				ORDER BY created_at DESC, id DESC LIMIT ` + strconv.Itoa(recentCandidates) + `) recent
		) AND m.scope = $2 AND m.scope_key = $3
			AND m.archived_at IS NULL AND m.` + factKinds + `
	) c WHERE similarity <> 'NaN' ORDER BY similarity DESC`
}

// pendingCandidatesSQL loads a pending write's fold candidates (store.Vector.Pending): the
// same rows as candidatesSQL's, whatever vectors they hold, with no similarity (0), in the
// caller's order (its best lexical matches first), then the scope's newest facts.
var pendingCandidatesSQL = `SELECT ` + qualifiedMemoryColumns + `, 0::float8 AS similarity
	FROM memories m
	WHERE m.id IN (
		SELECT unnest($1::uuid[])
		UNION
		SELECT id FROM (SELECT id FROM memories WHERE scope = $2 AND scope_key = $3 AND archived_at IS NULL AND ` + factKinds + `
			ORDER BY created_at DESC, id DESC LIMIT ` + strconv.Itoa(recentCandidates) + `) recent
	) AND m.scope = $2 AND m.scope_key = $3 AND m.archived_at IS NULL AND m.` + factKinds + `
	ORDER BY array_position($1::uuid[], m.id) NULLS LAST, m.created_at DESC, m.id DESC`

// putVectorSQL stores a vector of embedder $2 for memory $1 ($3, its text form), replacing the
// one that embedder held, if the memory's text still has the hash $4 the vector was computed
// from: a vector always embeds its memory's current text, whoever changed the text meanwhile. In a scope with a graph of its own the row joins it later, through
// the background indexer (IndexDeferred): a graph insertion costs milliseconds, and until then
// Nearest finds the row by its exact scan of deferred rows, so the vector is searchable as soon
// as it commits.
var putVectorSQL = `INSERT INTO memory_vectors (memory_id, embedder, scope, scope_key, kind, archived, embedding, ann_deferred)
	SELECT id, $2, scope, scope_key, kind, archived_at IS NOT NULL, $3::vector, to_regclass(` + graphNameSQL("$2::text") + `) IS NOT NULL
	FROM memories WHERE id = $1 AND text_hash = $4
	ON CONFLICT (memory_id, embedder) DO UPDATE SET embedding = EXCLUDED.embedding, ann_deferred = EXCLUDED.ann_deferred,
		ann_error = NULL, created_at = now()`

// queuePutVector adds v, the vector of text, to a batch that leaves memory id holding text;
// a pending vector (store.Vector.Pending) adds nothing: it follows in its own transaction.
func queuePutVector(b *pgx.Batch, id uuid.UUID, text string, v store.Vector) {
	if v.Pending() {
		return
	}
	b.Queue(putVectorSQL, id, v.Embedder, vectorText(v.Values), TextHash(text))
}

// Insert implements store.ScopeTx: the row, its add entry and COMMIT go in one batch.
func (t *scopeTx) Insert(ctx context.Context, w store.Write) (store.Memory, error) {
	if w.Ref() != t.scope {
		return store.Memory{}, fmt.Errorf("insert memory: its scope is not the locked one")
	}
	b := t.batch()
	m, err := queueInsert(b, w)
	if err != nil {
		return store.Memory{}, err
	}
	if err := t.send(ctx, b, true); err != nil {
		if isUniqueViolation(err) {
			return *m, fmt.Errorf("insert memory: %w: the same text is live", rules.ErrConflict)
		}
		return *m, fmt.Errorf("insert memory: %w", err)
	}
	return *m, nil
}

// queueInsert queues w's row and its add entry on b; the row's seq is set on the returned
// memory when b's results are read. Insert and InsertWith share it.
func queueInsert(b *pgx.Batch, w store.Write) (*store.Memory, error) {
	if err := checkVector(w.Vector); err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	m := &store.Memory{
		ID: w.ID, Scope: w.Scope, ScopeKey: w.ScopeKey, Kind: w.Kind, Text: w.Text,
		Importance: w.Importance, Confidence: w.Confidence, Pinned: w.Pinned, Provenance: w.Provenance,
		Embedder: w.Vector.Embedder, CreatedAt: now, UpdatedAt: now,
	}
	if m.ID == uuid.Nil {
		m.ID = uuid.Must(uuid.NewV7())
	}
	after := w.Text
	if err := queueHistory(b, *m, store.EventAdd, nil, &after, w.Actor, provenanceDetail(w.Provenance), now); err != nil {
		return nil, err
	}
	b.Queue(`INSERT INTO memories (id, scope, scope_key, kind, text, text_hash, importance, confidence, pinned,
			agent, session_id, source, embedder, metadata, created_at, updated_at, seq)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, '{}', $14, $14, next_change_seq())
		RETURNING seq`,
		m.ID, string(m.Scope), m.ScopeKey, string(m.Kind), m.Text, TextHash(m.Text), m.Importance, m.Confidence, m.Pinned,
		m.Provenance.Agent, m.Provenance.Session, m.Provenance.Source, m.Embedder, now,
	).QueryRow(func(row pgx.Row) error { return row.Scan(&m.Seq) })
	queuePutVector(b, m.ID, m.Text, w.Vector)
	return m, nil
}

// InsertWith inserts w, as ScopeTx.Insert does under its scope's lock, and runs then in the
// same transaction: what then writes (a maintenance job queued for the row) commits exactly
// when the row does. It is for rows that never fold (journal entries), so it looks nothing up.
func (s *Store) InsertWith(ctx context.Context, w store.Write, then func(tx pgx.Tx, m store.Memory) error) (store.Memory, error) {
	var out store.Memory
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		b.Queue(s.lockSQL(scopeLockSQL), scopeLockKey(w.Scope, w.ScopeKey))
		m, err := queueInsert(b, w)
		if err != nil {
			return err
		}
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			if isUniqueViolation(err) {
				return fmt.Errorf("%w: the same text is live", rules.ErrConflict)
			}
			return err
		}
		out = *m
		if then != nil {
			return then(tx, out)
		}
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("insert memory: %w", err)
	}
	return out, nil
}

// Fold implements store.ScopeTx: the update, its fold entry and COMMIT go in one batch. The
// entry is written by the update's statement from the row it returns, so a row that is not
// live in the locked scope changes nothing and records nothing, though COMMIT runs. Every fold
// gives the row a new change seq so followers re-index it.
func (t *scopeTx) Fold(ctx context.Context, p store.FoldParams) (store.Memory, error) {
	meta, err := json.Marshal(metadata{DedupedCount: p.DedupedCount, MergedFrom: p.MergedFrom})
	if err != nil {
		return store.Memory{}, fmt.Errorf("encode metadata: %w", err)
	}
	now := time.Now().UTC()
	target := store.Memory{ID: p.ID, Scope: t.scope.Scope, ScopeKey: t.scope.Key}
	entry, err := historyArgs(target, store.EventFold, &p.Before, &p.After, p.Actor, p.Detail, now)
	if err != nil {
		return store.Memory{}, err
	}
	// $1..$9: the row and the time; $10..$14: the entry (event, before, after, actor, detail).
	args := append([]any{p.ID, string(t.scope.Scope), t.scope.Key, string(p.Kind), p.Importance, p.Confidence, p.Pinned, meta, now}, entry[3:8]...)
	set := `kind = $4, importance = $5, confidence = $6, pinned = $7, metadata = $8, updated_at = $9, seq = next_change_seq()`
	r := p.Replacement
	if r != nil {
		if err := checkVector(r.Vector); err != nil {
			return store.Memory{}, err
		}
		// A new text drops the vectors of the old one (migration 0012's trigger); the new
		// vector follows the update in the same batch.
		args = append(args, r.Text, TextHash(r.Text), r.Vector.Embedder, r.Provenance.Agent, r.Provenance.Session, r.Provenance.Source)
		set += `, text = $15, text_hash = $16, embedder = $17, agent = $18, session_id = $19, source = $20`
	}
	b := t.batch()
	var m store.Memory
	b.Queue(`WITH folded AS (
			UPDATE memories SET `+set+`
			WHERE id = $1 AND scope = $2 AND scope_key = $3 AND archived_at IS NULL RETURNING `+memoryColumns+`
		), entry AS (
			INSERT INTO memory_history (memory_id, scope, scope_key, event, before_text, after_text, actor, detail, created_at)
			SELECT id, scope, scope_key, $10::text, $11::text, $12::text, $13::text, $14::jsonb, $9 FROM folded
		)
		SELECT `+memoryColumns+` FROM folded`, args...,
	).QueryRow(func(row pgx.Row) error {
		m, err = scanMemory(row)
		return err
	})
	if r != nil {
		queuePutVector(b, p.ID, r.Text, r.Vector)
	}
	if err := t.send(ctx, b, true); err != nil {
		if errors.Is(err, rules.ErrNotFound) {
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
func (s *Store) SetArchived(ctx context.Context, p store.ArchiveParams) (store.Memory, error) {
	out, _, err := s.setArchived(ctx, p.ID, p.Archived, p.Reason, p.Actor, "", nil)
	return out, err
}

// setArchived archives or restores id. still, when not "", is a predicate on the memories row
// (its @names bound from stillArgs) checked under the row's lock: a maintenance job's rule,
// asked again of the row as it is now. changed reports whether anything changed.
func (s *Store) setArchived(ctx context.Context, id uuid.UUID, archived bool, reason, actor, still string, stillArgs pgx.NamedArgs) (out store.Memory, changed bool, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		m, err := lockRow(ctx, tx, id)
		if err != nil {
			return err
		}
		due := true
		if still != "" {
			args := pgx.NamedArgs{"id": id}
			maps.Copy(args, stillArgs)
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM memories WHERE id = @id AND `+still+`)`, args).Scan(&due); err != nil {
				return fmt.Errorf("check %s is still due: %w", id, err)
			}
		}
		if m.Archived() == archived || !due {
			out = m // already in the asked state, or no longer due: idempotent, no history row
			return nil
		}
		changed = true
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
				return fmt.Errorf("restore %s: %w: another live memory has the same text", id, rules.ErrConflict)
			}
		}
		if err != nil {
			return fmt.Errorf("update %s: %w", id, err)
		}
		out, err = scanMemory(tx.QueryRow(ctx, `SELECT `+memoryColumns+` FROM memories WHERE id = $1`, id))
		return err
	})
	if err != nil {
		return out, false, fmt.Errorf("set archived=%t on %s: %w", archived, id, err)
	}
	return out, changed, nil
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
			return store.Memory{}, rules.ErrNotFound
		}
		return store.Memory{}, err
	}
	if _, err := tx.Exec(ctx, scopeLockSQL, scopeLockKey(store.Scope(scope), key)); err != nil {
		return store.Memory{}, fmt.Errorf("lock scope: %w", err)
	}
	return scanMemory(tx.QueryRow(ctx, `SELECT `+memoryColumns+` FROM memories WHERE id = $1 FOR UPDATE`, id))
}
