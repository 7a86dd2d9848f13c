package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/memhost/memhost/host/internal/store"
)

// querier is what nearest needs from a pool or a transaction.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	Begin(ctx context.Context) (pgx.Tx, error)
}

// DefaultEfSearch is the HNSW candidate list size of searches (Options.EfSearch): wider walks
// find more of the exact neighbours at some latency (see docs/benchmarks.md). Iterative scan
// extends the walk when filters drop rows.
const DefaultEfSearch = 600

// foldEfSearch is the walk of the write path's neighbour lookup: a fold only needs texts at or
// above the fold threshold, which are close enough that a narrow walk finds them.
const foldEfSearch = 100

// resortWindow is how many rows each scope's graph scan hands over for exact re-sorting.
const resortWindow = 40

// NearestSQL renders the ANN query for q, for EXPLAIN tests and for nearest. Argument $1 is the
// vector's text form; scope and kind arguments follow.
//
// Each scope asked for is searched on its own, because each may take a different access path
// (see graphs.go): a scope that has grown past Options' graph size has an HNSW graph of its own,
// a partial index whose predicate this query repeats (embedder literal, scope, scope_key, NOT
// ann_deferred), so the planner walks that graph with nothing filtered out; a smaller scope
// has none, and the same query becomes an exact scan of the scope's rows through the
// (scope, scope_key) btree. No shared graph is walked under a scope filter.
//
// With relaxed_order a graph emits rows only approximately sorted, so each scope takes a window
// of at least resortWindow candidates and the outer query re-sorts them by exact distance
// before the LIMIT — pgvector's documented pattern. Rows not yet in their graph (ann_deferred:
// bulk imports and writes to a scope with a graph) are ranked by an exact scan next to it,
// through a partial btree that holds only them. A row holding a zero vector (text its embedder
// had no tokens for) has a NaN cosine distance: the outer query drops it, so no NaN leaves the
// store.
func NearestSQL(q store.VectorQuery) (string, []any) {
	expr := fmt.Sprintf("%s <=> $1::vector(%d)", vecExpr(q.Vector.Dimensions), q.Vector.Dimensions)
	args := []any{vectorText(q.Vector.Values)}
	common := []string{
		"embedder = '" + q.Vector.Embedder + "'", // validated by checkVector; a literal matches the partial indexes
		kindFilter(q.Kinds, &args),
	}
	if !q.IncludeArchived {
		common = append(common, "archived_at IS NULL")
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 10
	}
	args = append(args, max(limit, resortWindow), limit)
	window, top := len(args)-1, len(args)
	var ctes, parts, scopes []string
	for i, ref := range q.Scopes {
		cond := scopeCond(ref, &args)
		scopes = append(scopes, "("+cond+")")
		ctes = append(ctes, fmt.Sprintf(`s%d AS MATERIALIZED (
		SELECT id, %s AS distance FROM memories WHERE %s AND %s AND NOT ann_deferred
		ORDER BY %s LIMIT $%d)`, i, expr, strings.Join(common, " AND "), cond, expr, window))
		parts = append(parts, fmt.Sprintf("SELECT * FROM s%d", i))
	}
	if len(scopes) == 0 {
		scopes = []string{"false"}
	}
	ctes = append(ctes, fmt.Sprintf(`deferred AS MATERIALIZED (
		SELECT id, %s AS distance FROM memories WHERE %s AND (%s) AND ann_deferred
		ORDER BY distance LIMIT $%d)`, expr, strings.Join(common, " AND "), strings.Join(scopes, " OR "), top))
	parts = append(parts, "SELECT * FROM deferred")
	sql := fmt.Sprintf(`WITH %s
	SELECT id, 1 - distance FROM (%s) c
	WHERE distance <> 'NaN' ORDER BY distance LIMIT $%d`, strings.Join(ctes, ",\n\t"), strings.Join(parts, " UNION ALL "), top)
	return sql, args
}

// scopeCond selects one scope's rows in the form every scope graph's predicate has, so the
// planner can prove a graph covers the query: `scope = '<scope>' AND scope_key = $n`.
func scopeCond(ref store.ScopeRef, args *[]any) string {
	*args = append(*args, ref.Key)
	return fmt.Sprintf("scope = '%s' AND scope_key = $%d", scopeLiteral(ref.Scope), len(*args))
}

// scopeLiteral is a scope as an SQL literal's content; only the two known scopes pass.
func scopeLiteral(s store.Scope) string {
	if s == store.ScopeGlobal {
		return "global"
	}
	return "project"
}

// nearestSettings make the planner use the partial HNSW index with a project filter: a custom
// plan (the embedder literal and cast must be visible to it) and iterative scans so filtered-out
// rows do not starve the result.
func nearestSettings(efSearch int) string {
	return "SET LOCAL plan_cache_mode = force_custom_plan; SET LOCAL hnsw.iterative_scan = relaxed_order; SET LOCAL hnsw.ef_search = " + strconv.Itoa(efSearch)
}

// Nearest implements store.Store.
func (s *Store) Nearest(ctx context.Context, q store.VectorQuery) ([]store.VectorHit, error) {
	if err := checkVector(q.Vector); err != nil {
		return nil, err
	}
	if q.Vector.IsZero() {
		return nil, nil
	}
	var hits []store.VectorHit
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		hits, err = nearest(ctx, tx, q, s.efSearch)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("nearest memories: %w", err)
	}
	return hits, nil
}

func nearest(ctx context.Context, tx querier, q store.VectorQuery, efSearch int) ([]store.VectorHit, error) {
	if _, err := tx.Exec(ctx, nearestSettings(efSearch)); err != nil {
		return nil, fmt.Errorf("configure ANN scan: %w", err)
	}
	sql, args := NearestSQL(q)
	rows, err := tx.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.VectorHit
	for rows.Next() {
		var h store.VectorHit
		if err := rows.Scan(&h.ID, &h.Similarity); err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

func isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}
