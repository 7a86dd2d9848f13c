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

// resortWindow is how many rows the index scan hands over for exact re-sorting.
const resortWindow = 40

// NearestSQL renders the ANN query for q, for EXPLAIN tests and for nearest. Argument $1 is the
// vector's text form; scope and kind arguments follow.
//
// With relaxed_order the index emits rows only approximately sorted, so the inner query takes a
// window of at least resortWindow candidates and the outer query re-sorts them by exact
// distance before the LIMIT — pgvector's documented pattern. Rows a bulk import left out of the
// graph (ann_deferred) are ranked by an exact scan next to it; with none pending that is one
// lookup in an empty partial index.
func NearestSQL(q store.VectorQuery) (string, []any) {
	expr := vecExpr(q.Vector.Dimensions)
	args := []any{vectorText(q.Vector.Values)}
	where := []string{
		"embedder = '" + q.Vector.Embedder + "'", // validated by checkVector; a literal matches the partial index
		scopeFilter(q.Scopes, &args),
		kindFilter(q.Kinds, &args),
	}
	if !q.IncludeArchived {
		where = append(where, "archived_at IS NULL")
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 10
	}
	args = append(args, max(limit, resortWindow), limit)
	sql := fmt.Sprintf(`WITH candidates AS MATERIALIZED (
		SELECT id, %[1]s <=> $1::vector(%[2]d) AS distance FROM memories WHERE %[3]s AND NOT ann_deferred
		ORDER BY %[1]s <=> $1::vector(%[2]d) LIMIT $%[4]d),
	deferred AS MATERIALIZED (
		SELECT id, %[1]s <=> $1::vector(%[2]d) AS distance FROM memories WHERE %[3]s AND ann_deferred
		ORDER BY distance LIMIT $%[5]d)
	SELECT id, 1 - distance FROM (SELECT * FROM candidates UNION ALL SELECT * FROM deferred) c ORDER BY distance LIMIT $%[5]d`,
		expr, q.Vector.Dimensions, strings.Join(where, " AND "), len(args)-1, len(args))
	return sql, args
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
