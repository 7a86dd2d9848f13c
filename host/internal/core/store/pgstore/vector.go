package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/memhost/memhost/host/internal/core/store"
)

// DefaultEfSearch is the HNSW candidate list size of searches in small graphs (WithEfSearch).
// Each graph holds one scope's rows, so nothing is filtered out of the walk, and 100
// candidates find 96-99% of the exact top 10 in graphs up to 10K memories (docs/benchmarks.md
// has the sweeps); it is also search's candidate pool, so one walk fills the pool. Iterative
// scan extends the walk when the kind filter drops rows.
const DefaultEfSearch = 100

// A larger graph is walked wider: the walk width a fixed recall needs grows with the graph
// (on the bench's templated corpus, whose flat neighbourhoods are the worst case, 0.95 of the
// exact top 10 takes 100 candidates at 10K memories and ~600 at 100K), so a search walks
// max(the configured width, rows of the largest graph it walks / efRowsPerCandidate),
// at most maxEfSearch (pgvector's limit). The graph's size is the catalog's estimate
// (pg_class.reltuples, kept by the build and by autovacuum), read in the statement that sets
// the width: no round trip.
const (
	efRowsPerCandidate = 160
	maxEfSearch        = 1000
)

// resortWindow is how many rows each scope's graph scan hands over for exact re-sorting.
const resortWindow = 40

// NearestSQL renders the ANN query for q, for Nearest and for EXPLAIN tests. Its one argument
// is the vector's text form. It reads memory_vectors alone, and only the rows of q's embedder:
// vectors of different embedders are never compared.
//
// Each scope asked for is searched on its own, because each may take a different access path
// (annindex.go): a scope that has grown past the graph size has an HNSW graph of its own,
// a partial index whose predicate this query repeats (embedder, scope, scope_key, NOT
// ann_deferred), so the planner walks that graph with nothing filtered out; a smaller scope
// has none, and the same query becomes an exact scan of the scope's rows through the
// (scope, scope_key) btree. No shared graph is walked under a scope filter.
//
// Everything but the vector is inlined as a literal, so a generic plan can prove which graph
// covers the query: the query is planned once per connection and kept (the planner's work
// grows with every graph on the table, a millisecond and more per query at a few dozen
// graphs), and a new or dropped graph invalidates the kept plans, so the next search replans.
//
// With relaxed_order a graph emits rows only approximately sorted, so each scope takes a window
// of at least resortWindow candidates and the outer query re-sorts them by exact distance
// before the LIMIT — pgvector's documented pattern. Rows not yet in their graph (ann_deferred:
// bulk imports and writes to a scope with a graph) are ranked by an exact scan next to it,
// through a partial btree that holds only them, keyed by scope: each scope reads its own
// deferred rows, not every project's (one scan under an OR of scopes read them all, a page
// each, in every search). A row holding a zero vector (text its embedder
// had no tokens for) has a NaN cosine distance: the outer query drops it, so no NaN leaves the
// store.
func NearestSQL(q store.VectorQuery) (string, []any) {
	expr := fmt.Sprintf("%s <=> $1::vector(%d)", vecExpr(q.Vector.Dimensions), q.Vector.Dimensions)
	common := []string{
		"embedder = '" + q.Vector.Embedder + "'", // validated by checkVector
		"true",
	}
	if len(q.Kinds) > 0 {
		kinds := make([]string, len(q.Kinds))
		for i, k := range q.Kinds {
			kinds[i] = quoteLiteral(string(k))
		}
		common[1] = "kind IN (" + strings.Join(kinds, ", ") + ")"
	}
	if !q.IncludeArchived {
		common = append(common, "NOT archived")
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 10
	}
	window := max(limit, resortWindow)
	filter := strings.Join(common, " AND ")
	var ctes, parts []string
	for i, ref := range q.Scopes {
		cond := scopeCond(ref)
		ctes = append(ctes, fmt.Sprintf(`s%d AS MATERIALIZED (
		SELECT memory_id AS id, %s AS distance FROM memory_vectors WHERE %s AND %s AND NOT ann_deferred
		ORDER BY %s LIMIT %d)`, i, expr, filter, cond, expr, window),
			fmt.Sprintf(`d%d AS MATERIALIZED (
		SELECT memory_id AS id, %s AS distance FROM memory_vectors WHERE %s AND %s AND ann_deferred AND ann_error IS NULL
		ORDER BY distance LIMIT %d)`, i, expr, filter, cond, limit))
		parts = append(parts, fmt.Sprintf("SELECT * FROM s%d", i), fmt.Sprintf("SELECT * FROM d%d", i))
	}
	if len(parts) == 0 { // no scope asked for: nothing to search
		return "SELECT NULL::uuid, NULL::float8 WHERE false", nil
	}
	sql := fmt.Sprintf(`WITH %s
	SELECT id, 1 - distance FROM (%s) c
	WHERE distance <> 'NaN' ORDER BY distance LIMIT %d`, strings.Join(ctes, ",\n\t"), strings.Join(parts, " UNION ALL "), limit)
	return sql, []any{vectorText(q.Vector.Values)}
}

// scopeCond selects one scope's rows in the form every scope graph's predicate has, so the
// planner can prove a graph covers the query.
func scopeCond(ref store.ScopeRef) string {
	return fmt.Sprintf("scope = '%s' AND scope_key = %s", scopeLiteral(ref.Scope), quoteLiteral(ref.Key))
}

// scopeLiteral is a scope as an SQL literal's content; only the two known scopes pass.
func scopeLiteral(s store.Scope) string {
	if s == store.ScopeGlobal {
		return "global"
	}
	return "project"
}

// genericPlans makes the planner keep one plan per connection for each query text until the
// end of the transaction: memory_vectors carries a partial graph per large project, and
// planning a query on it weighs every index, so a custom plan per call costs more than most queries take
// to run. Queries that run under it inline what a plan must know (NearestSQL) or look rows up
// by key.
const genericPlans = `set_config('plan_cache_mode', 'force_generic_plan', true)`

// genericPlansSQL sets genericPlans for the batch (an implicit transaction) it leads.
const genericPlansSQL = `SELECT ` + genericPlans

// nearestSettingsSQL makes the planner keep one plan per connection for each query text
// (NearestSQL inlines all but the vector, so that plan walks the scope's graph) and turns on
// iterative scans, so rows the kind and archive filters drop do not starve the result. The
// walk width is $1 (the configured one) or, for a larger graph, its size over
// efRowsPerCandidate, at most maxEfSearch; $2 names the graphs the query may walk (GraphName),
// resolved through the search path (absent ones count for nothing). set_config(..., true)
// lasts until the end of the transaction.
var nearestSettingsSQL = fmt.Sprintf(`SELECT `+genericPlans+`,
	set_config('hnsw.iterative_scan', 'relaxed_order', true),
	set_config('hnsw.ef_search', greatest($1::int, least(%d, (SELECT coalesce(max(c.reltuples), 0)
		FROM unnest($2::text[]) g JOIN pg_class c ON c.oid = to_regclass(g))::int / %d))::text, true)`, maxEfSearch, efRowsPerCandidate)

// graphNames are the graphs a query of q may walk, one per scope, whether or not it exists:
// the ones its walk width is sized by; none when the store's width is fixed.
func (s *Store) graphNames(q store.VectorQuery) []string {
	if s.fixedEf {
		return []string{}
	}
	names := make([]string, len(q.Scopes))
	for i, ref := range q.Scopes {
		names[i] = GraphName(q.Vector.Embedder, ref)
	}
	return names
}

// Nearest implements store.Store in one round trip: the settings and the query go as one
// pipelined batch, which Postgres runs as one implicit transaction, so the settings hold for
// the query and end with it.
func (s *Store) Nearest(ctx context.Context, q store.VectorQuery) ([]store.VectorHit, error) {
	if err := checkVector(q.Vector); err != nil {
		return nil, err
	}
	if q.Vector.IsZero() {
		return nil, nil
	}
	var hits []store.VectorHit
	var b pgx.Batch
	b.Queue(nearestSettingsSQL, s.efSearch, s.graphNames(q))
	sql, args := NearestSQL(q)
	b.Queue(sql, args...).Query(func(rows pgx.Rows) error {
		var err error
		hits, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.VectorHit, error) {
			var h store.VectorHit
			err := row.Scan(&h.ID, &h.Similarity)
			return h, err
		})
		return err
	})
	if err := s.pool.SendBatch(ctx, &b).Close(); err != nil {
		return nil, fmt.Errorf("nearest memories: %w", err)
	}
	return hits, nil
}

// EfSearch is the walk width Nearest gives q: the configured one, or more for a large graph
// (nearestSettingsSQL). The benchmark reports it beside the recall it measures.
func (s *Store) EfSearch(ctx context.Context, q store.VectorQuery) (int, error) {
	var ef int
	var b pgx.Batch
	b.Queue(nearestSettingsSQL, s.efSearch, s.graphNames(q))
	b.Queue(`SELECT current_setting('hnsw.ef_search')::int`).QueryRow(func(row pgx.Row) error { return row.Scan(&ef) })
	if err := s.pool.SendBatch(ctx, &b).Close(); err != nil {
		return 0, fmt.Errorf("walk width: %w", err)
	}
	return ef, nil
}

func isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}
