package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/memhost/memhost/host/internal/core/store"
)

// Store implements store.Store on a pgx pool.
type Store struct {
	pool     *pgxpool.Pool
	efSearch int
	// fixedEf keeps every walk at efSearch, however large the graph (WithFixedEfSearch).
	fixedEf bool
	// flushWrites makes a memory write's commit wait for its WAL flush (WithFlushedWrites).
	flushWrites bool
	// graphMinRows and graphEmbedders say which scopes IndexScopes gives graphs (annindex.go).
	graphMinRows   int
	graphEmbedders sync.Map // embedder name -> dimensions, from EnsureVectorIndex
}

var _ store.Store = (*Store)(nil)

// Option configures a Store.
type Option func(*Store)

// WithEfSearch sets the HNSW walk width of searches (hnsw.ef_search); 0 keeps the default.
func WithEfSearch(n int) Option {
	return func(s *Store) {
		if n > 0 {
			s.efSearch = n
		}
	}
}

// WithFixedEfSearch walks every graph at the WithEfSearch width, however large: the benchmark's
// sweep of widths measures each as set. Without it a large graph is walked wider (vector.go).
func WithFixedEfSearch() Option { return func(s *Store) { s.fixedEf = true } }

// WithFlushedWrites says whether a memory write (WithScopeLock, InsertWith) waits at its
// commit until Postgres has flushed the commit to disk, as the session's synchronous_commit
// says. It does by default: every acknowledged write survives a crash of the host, of
// Postgres or of the machine (the project's standard). WithFlushedWrites(false) is an
// operator's opt-in trade: a write commits with synchronous_commit off, acknowledged once
// Postgres holds it, which survives a kill of the host (Postgres flushes it within
// 3 x wal_writer_delay, 0.6 s by default) but not a crash of Postgres or of the machine in
// that window — what an SQLite memory in WAL mode with synchronous=NORMAL promises — for the
// difference between a 1 ms and a 3-10 ms write on a shared virtual disk (docs/benchmarks.md,
// "Where the time goes"). Other changes (edits, maintenance) keep the session's setting.
func WithFlushedWrites(flush bool) Option { return func(s *Store) { s.flushWrites = flush } }

// New wraps a pool whose schema has been migrated.
func New(pool *pgxpool.Pool, opts ...Option) *Store {
	s := &Store{pool: pool, efSearch: DefaultEfSearch, graphMinRows: DefaultGraphMinRows, flushWrites: true}
	for _, o := range opts {
		o(s)
	}
	return s
}

// embedderName is the alphabet embedder names must use, because they are inlined as SQL
// literals (a literal predicate is what lets the planner match the partial index).
var embedderName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

// MaxIndexedDimensions is pgvector's HNSW limit for the vector type.
const MaxIndexedDimensions = 2000

func checkVector(v store.Vector) error {
	if !embedderName.MatchString(v.Embedder) {
		return fmt.Errorf("embedder name %q must match %s", v.Embedder, embedderName)
	}
	if v.Dimensions <= 0 || v.Dimensions > 16000 {
		return fmt.Errorf("embedder %s: dimensions %d out of range 1..16000", v.Embedder, v.Dimensions)
	}
	if v.Values != nil && len(v.Values) != v.Dimensions {
		return fmt.Errorf("embedder %s: vector has %d values, want %d", v.Embedder, len(v.Values), v.Dimensions)
	}
	return nil
}

// vecExpr is the indexed expression for an embedder's vectors.
func vecExpr(dims int) string { return fmt.Sprintf("embedding::vector(%d)", dims) }

// vectorText renders a vector as pgvector's text input. Text keeps us independent of the
// extension's binary type OID, which does not exist until the first migration has run.
func vectorText(v []float32) string {
	var b strings.Builder
	b.Grow(len(v) * 10)
	b.WriteByte('[')
	for i, f := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(formatFloat(f))
	}
	b.WriteByte(']')
	return b.String()
}

// memoryColumns is the select list scanMemory reads.
const memoryColumns = `id, scope, scope_key, kind, text, importance, confidence, pinned, hit_count, last_hit_at,
	agent, session_id, source, embedder, metadata, created_at, updated_at, archived_at, archived_reason, seq, superseded_by`

// qualifiedMemoryColumns is memoryColumns read from memories as m, for queries that join it.
var qualifiedMemoryColumns = func() string {
	cols := strings.Split(memoryColumns, ",")
	for i, c := range cols {
		cols[i] = "m." + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}()

// metadata is the JSON shape of memories.metadata.
type metadata struct {
	DedupedCount int            `json:"deduped_count,omitempty"`
	MergedFrom   []store.Merged `json:"merged_from,omitempty"`
}

// scanMemory reads memoryColumns, then into extra whatever the query selected after them.
func scanMemory(row pgx.Row, extra ...any) (store.Memory, error) {
	var m store.Memory
	var scope, kind string
	var meta []byte
	var reason *string
	var importance, confidence float32
	dest := []any{&m.ID, &scope, &m.ScopeKey, &kind, &m.Text, &importance, &confidence, &m.Pinned, &m.HitCount, &m.LastHitAt,
		&m.Provenance.Agent, &m.Provenance.Session, &m.Provenance.Source, &m.Embedder, &meta, &m.CreatedAt, &m.UpdatedAt,
		&m.ArchivedAt, &reason, &m.Seq, &m.SupersededBy}
	err := row.Scan(append(dest, extra...)...)
	if err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return m, rules.ErrNotFound
		}
		return m, err
	}
	m.Scope, m.Kind = store.Scope(scope), store.Kind(kind)
	m.Importance, m.Confidence = float64(importance), float64(confidence)
	if reason != nil {
		m.ArchivedReason = *reason
	}
	var md metadata
	if len(meta) > 0 {
		if err := json.Unmarshal(meta, &md); err != nil {
			return m, fmt.Errorf("decode metadata of %s: %w", m.ID, err)
		}
	}
	m.DedupedCount, m.MergedFrom = md.DedupedCount, md.MergedFrom
	return m, nil
}

func collectMemories(rows pgx.Rows) ([]store.Memory, error) {
	return collect(rows, func(row pgx.Row) (store.Memory, error) { return scanMemory(row) })
}

// Get implements store.Store.
func (s *Store) Get(ctx context.Context, id uuid.UUID) (store.Memory, error) {
	m, err := scanMemory(s.pool.QueryRow(ctx, `SELECT `+memoryColumns+` FROM memories WHERE id = $1`, id))
	if err != nil {
		return m, fmt.Errorf("get memory %s: %w", id, err)
	}
	return m, nil
}

// GetMany implements store.Store in one round trip, its plan kept (genericPlans).
func (s *Store) GetMany(ctx context.Context, ids []uuid.UUID, similarTo *store.Vector) ([]store.Loaded, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	sim, join, args := "NULL::float8", "", []any{uuidArray(ids)}
	if similarTo != nil && !similarTo.IsZero() {
		if err := checkVector(*similarTo); err != nil {
			return nil, err
		}
		// Only the embedder's own vectors are joined (a row without one has no similarity);
		// NULLIF turns the NaN of a row holding a zero vector into "unknown".
		join = fmt.Sprintf(" LEFT JOIN memory_vectors v ON v.memory_id = m.id AND v.embedder = '%s' AND v.ann_error IS NULL", similarTo.Embedder)
		sim = fmt.Sprintf("NULLIF(1 - (v.%s <=> $2::vector(%d)), 'NaN')", vecExpr(similarTo.Dimensions), similarTo.Dimensions)
		args = append(args, vectorText(similarTo.Values))
	}
	var out []store.Loaded
	b := &pgx.Batch{}
	b.Queue(genericPlansSQL)
	b.Queue(`SELECT `+qualifiedMemoryColumns+`, `+sim+` FROM memories m`+join+` WHERE m.id = ANY($1)`, args...).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var l store.Loaded
			m, err := scanMemory(scanExtra{rows, []any{&l.Similarity}})
			if err != nil {
				return err
			}
			l.Memory = m
			out = append(out, l)
		}
		return rows.Err()
	})
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return nil, fmt.Errorf("get memories: %w", err)
	}
	return out, nil
}

// uuidArray is ids as pgx encodes them natively: uuid.UUID implements driver.Valuer, which
// sends every element through its string form, a measurable share of a search's CPU for the
// hundred-odd ids of a candidate pool.
func uuidArray(ids []uuid.UUID) []pgtype.UUID {
	out := make([]pgtype.UUID, len(ids))
	for i, id := range ids {
		out[i] = pgtype.UUID{Bytes: id, Valid: true}
	}
	return out
}

// scanExtra lets scanMemory read the memory columns while trailing columns land in extra.
type scanExtra struct {
	rows  pgx.Rows
	extra []any
}

func (t scanExtra) Scan(dest ...any) error { return t.rows.Scan(append(dest, t.extra...)...) }

// scopeFilter renders (scope, scope_key) IN (...) for a query, appending its arguments.
func scopeFilter(refs []store.ScopeRef, args *[]any) string {
	if len(refs) == 0 {
		return "false"
	}
	parts := make([]string, 0, len(refs))
	for _, r := range refs {
		if r.Scope == store.ScopeGlobal {
			parts = append(parts, "scope = 'global'")
			continue
		}
		*args = append(*args, r.Key)
		parts = append(parts, fmt.Sprintf("(scope = 'project' AND scope_key = $%d)", len(*args)))
	}
	return "(" + strings.Join(parts, " OR ") + ")"
}

func kindFilter(kinds []store.Kind, args *[]any) string {
	if len(kinds) == 0 {
		return "true"
	}
	ks := make([]string, len(kinds))
	for i, k := range kinds {
		ks[i] = string(k)
	}
	*args = append(*args, ks)
	return fmt.Sprintf("kind = ANY($%d)", len(*args))
}

// MatchText implements store.Store. Live rows are found through the unique index on their
// text hash.
func (s *Store) MatchText(ctx context.Context, q store.TextQuery) ([]uuid.UUID, error) {
	args := []any{TextHash(q.Text)}
	where := []string{"text_hash = $1", scopeFilter(q.Scopes, &args), kindFilter(q.Kinds, &args)}
	if !q.IncludeArchived {
		where = append(where, "archived_at IS NULL")
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 10
	}
	args = append(args, limit)
	return queryValues[uuid.UUID](ctx, s.pool, "match text", fmt.Sprintf(`SELECT id FROM memories WHERE %s ORDER BY created_at DESC, id DESC LIMIT $%d`,
		strings.Join(where, " AND "), len(args)), args...)
}

// IDsBetween implements store.Store.
func (s *Store) IDsBetween(ctx context.Context, q store.IDRangeQuery) ([]uuid.UUID, error) {
	args := []any{q.Lo}
	where := []string{"id >= $1", scopeFilter(q.Scopes, &args)}
	if q.Hi != nil {
		args = append(args, *q.Hi)
		where = append(where, fmt.Sprintf("id < $%d", len(args)))
	}
	args = append(args, q.Limit)
	return queryValues[uuid.UUID](ctx, s.pool, "ids by prefix", fmt.Sprintf(`SELECT id FROM memories WHERE %s ORDER BY id LIMIT $%d`,
		strings.Join(where, " AND "), len(args)), args...)
}

// IDsEndingWith implements store.Store. The index memories_id_tail holds each id's last 8
// digits (its text form has no dash in its last 12 characters); a longer suffix is then
// checked on the matching rows alone.
func (s *Store) IDsEndingWith(ctx context.Context, digits string, scopes []store.ScopeRef, limit int) ([]uuid.UUID, error) {
	if len(digits) < 8 {
		return nil, fmt.Errorf("ids by suffix: %d digits; at least 8 are needed", len(digits))
	}
	args := []any{digits[len(digits)-8:], "%" + digits}
	where := []string{"right(id::text, 8) = $1", "replace(id::text, '-', '') LIKE $2", scopeFilter(scopes, &args)}
	args = append(args, limit)
	return queryValues[uuid.UUID](ctx, s.pool, "ids by suffix", fmt.Sprintf(`SELECT id FROM memories WHERE %s ORDER BY id LIMIT $%d`,
		strings.Join(where, " AND "), len(args)), args...)
}

// List implements store.Store.
func (s *Store) List(ctx context.Context, q store.ListQuery) ([]store.Memory, error) {
	var args []any
	where := []string{scopeFilter(q.Scopes, &args), kindFilter(q.Kinds, &args)}
	switch {
	case q.OnlyArchived:
		where = append(where, "archived_at IS NOT NULL")
	case !q.IncludeArchived:
		where = append(where, "archived_at IS NULL")
	}
	if !q.Filter.IsZero() {
		where = append(where, filterSQL(q.Filter, &args))
	}
	if q.Before != nil {
		args = append(args, q.Before.CreatedAt, q.Before.ID)
		where = append(where, fmt.Sprintf("(created_at, id) < ($%d, $%d)", len(args)-1, len(args)))
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 50
	}
	args = append(args, limit)
	sql := fmt.Sprintf(`SELECT %s FROM memories WHERE %s ORDER BY created_at DESC, id DESC LIMIT $%d`,
		memoryColumns, strings.Join(where, " AND "), len(args))
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("list memories: %w", err)
	}
	out, err := collectMemories(rows)
	if err != nil {
		return nil, fmt.Errorf("list memories: %w", err)
	}
	return out, nil
}

// History implements store.Store.
func (s *Store) History(ctx context.Context, id uuid.UUID) ([]store.HistoryEntry, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, memory_id, event, before_text, after_text, actor, detail, created_at
		FROM memory_history WHERE memory_id = $1 ORDER BY id`, id)
	if err != nil {
		return nil, fmt.Errorf("history of %s: %w", id, err)
	}
	defer rows.Close()
	var out []store.HistoryEntry
	for rows.Next() {
		var h store.HistoryEntry
		var event string
		var detail []byte
		if err := rows.Scan(&h.ID, &h.MemoryID, &event, &h.BeforeText, &h.AfterText, &h.Actor, &detail, &h.CreatedAt); err != nil {
			return nil, fmt.Errorf("history of %s: %w", id, err)
		}
		h.Event = store.Event(event)
		if len(detail) > 2 {
			if err := json.Unmarshal(detail, &h.Detail); err != nil {
				return nil, fmt.Errorf("history of %s: decode detail: %w", id, err)
			}
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// RecordHits implements store.Store.
func (s *Store) RecordHits(ctx context.Context, hits map[uuid.UUID]int64) error {
	if len(hits) == 0 {
		return nil
	}
	ids := make([]uuid.UUID, 0, len(hits))
	counts := make([]int64, 0, len(hits))
	for id, n := range hits {
		ids = append(ids, id)
		counts = append(counts, n)
	}
	// A use (a get) is a retrieval too: the staleness job and health's "never used" read
	// last_retrieved_at alone.
	_, err := s.pool.Exec(ctx, `UPDATE memories m SET hit_count = m.hit_count + h.n, last_hit_at = now(), last_retrieved_at = now()
		FROM unnest($1::uuid[], $2::bigint[]) AS h(id, n) WHERE m.id = h.id`, uuidArray(ids), counts)
	if err != nil {
		return fmt.Errorf("record hits: %w", err)
	}
	return nil
}

// Changes implements store.Store.
func (s *Store) Changes(ctx context.Context, after int64, limit int) ([]store.Change, error) {
	// Purged memories answer from their tombstones (purged = true, no text).
	rows, err := s.pool.Query(ctx, `(SELECT seq, id, scope, scope_key, kind, text, archived_at IS NOT NULL, false AS purged,
		jsonb_path_query_array(metadata, '$.merged_from[*].text')
		FROM memories WHERE seq > $1 ORDER BY seq LIMIT $2)
		UNION ALL
		(SELECT seq, id, scope, scope_key, kind, '', true, true, '[]'::jsonb
		FROM memory_tombstones WHERE seq > $1 ORDER BY seq LIMIT $2)
		ORDER BY seq LIMIT $2`, after, limit)
	if err != nil {
		return nil, fmt.Errorf("read change feed after %d: %w", after, err)
	}
	defer rows.Close()
	var out []store.Change
	for rows.Next() {
		var c store.Change
		var scope, kind string
		if err := rows.Scan(&c.Seq, &c.ID, &scope, &c.ScopeKey, &kind, &c.Text, &c.Archived, &c.Purged, &c.Merged); err != nil {
			return nil, fmt.Errorf("read change feed: %w", err)
		}
		c.Scope, c.Kind = store.Scope(scope), store.Kind(kind)
		out = append(out, c)
	}
	return out, rows.Err()
}

// Counts implements store.Store.
func (s *Store) Counts(ctx context.Context) (store.Counts, error) {
	var c store.Counts
	// The graphs are the valid partial indexes named graphPrefix...; their size and the
	// table's are what Postgres must keep in memory, and shared_buffers what it surely keeps
	// there. One still being built (CREATE INDEX CONCURRENTLY) is not valid yet: searches do
	// not use it, and its size is not known until it is done.
	err := s.pool.QueryRow(ctx, `WITH graphs AS (
			SELECT count(*) AS n, COALESCE(sum(pg_relation_size(c.oid)), 0)::bigint AS bytes
			FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
			WHERE i.indrelid = 'memory_vectors'::regclass AND i.indisvalid AND c.relname LIKE $1)
		SELECT
		count(*) FILTER (WHERE archived_at IS NULL),
		count(*) FILTER (WHERE archived_at IS NOT NULL),
		count(DISTINCT scope_key) FILTER (WHERE scope = 'project'),
		count(*) FILTER (WHERE scope = 'global' AND archived_at IS NULL),
		(SELECT count(*) FROM memory_vectors WHERE ann_deferred AND ann_error IS NULL),
		pg_table_size('memories') + pg_table_size('memory_vectors'), (SELECT n FROM graphs), (SELECT bytes FROM graphs),
		pg_size_bytes(current_setting('shared_buffers'))
		FROM memories`, graphPrefix+"%").Scan(&c.Live, &c.Archived, &c.Projects, &c.Global, &c.ANNDeferred, &c.TableBytes, &c.Graphs, &c.GraphBytes, &c.SharedBuffers)
	if err != nil {
		return c, fmt.Errorf("count memories: %w", err)
	}
	if c.ByEmbedder, err = queryMap[int64](ctx, s.pool, "count memories by embedder", `SELECT embedder, count(*) FROM memory_vectors WHERE NOT archived GROUP BY embedder`); err != nil {
		return c, err
	}
	return c, nil
}

const historySQL = `INSERT INTO memory_history (memory_id, scope, scope_key, event, before_text, after_text, actor, detail, created_at)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`

func historyArgs(m store.Memory, event store.Event, before, after *string, actor string, detail map[string]any, at time.Time) ([]any, error) {
	d := []byte("{}")
	if len(detail) > 0 {
		var err error
		if d, err = json.Marshal(detail); err != nil {
			return nil, fmt.Errorf("encode history detail: %w", err)
		}
	}
	return []any{m.ID, string(m.Scope), m.ScopeKey, string(event), before, after, actor, d, at}, nil
}

// appendHistory writes one ledger row inside tx.
func appendHistory(ctx context.Context, tx pgx.Tx, m store.Memory, event store.Event, before, after *string, actor string, detail map[string]any, at time.Time) error {
	args, err := historyArgs(m, event, before, after, actor, detail, at)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, historySQL, args...); err != nil {
		return fmt.Errorf("append %s history for %s: %w", event, m.ID, err)
	}
	return nil
}

// queueHistory adds one ledger row to a batch, which sends it with the change it records.
func queueHistory(b *pgx.Batch, m store.Memory, event store.Event, before, after *string, actor string, detail map[string]any, at time.Time) error {
	args, err := historyArgs(m, event, before, after, actor, detail, at)
	if err != nil {
		return err
	}
	b.Queue(historySQL, args...)
	return nil
}
