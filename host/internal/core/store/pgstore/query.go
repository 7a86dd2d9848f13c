package pgstore

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// querier is a pool or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// queryCollect runs sql on db and collects its rows with scan (pgx.CollectRows: no rows is an
// empty slice); what names the read in its errors. It is the one copy of the query, collect
// and wrap the store's reads take.
func queryCollect[T any](ctx context.Context, db querier, what string, scan pgx.RowToFunc[T], sql string, args ...any) ([]T, error) {
	rows, err := db.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	out, err := pgx.CollectRows(rows, scan)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// queryValues is queryCollect of a single column, each row's as a T.
func queryValues[T any](ctx context.Context, db querier, what, sql string, args ...any) ([]T, error) {
	return queryCollect(ctx, db, what, pgx.RowTo[T], sql, args...)
}

// querySet is queryValues of a text column as a set.
func querySet(ctx context.Context, db querier, what, sql string, args ...any) (map[string]bool, error) {
	keys, err := queryValues[string](ctx, db, what, sql, args...)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(keys))
	for _, k := range keys {
		out[k] = true
	}
	return out, nil
}

// queryRows runs sql on db and scans each row with scan, in order; no rows is a nil slice.
// what names the read in its errors.
func queryRows[T any](ctx context.Context, db querier, what string, scan func(pgx.Row) (T, error), sql string, args ...any) ([]T, error) {
	rows, err := db.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	out, err := collect(rows, scan)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// collect scans each of rows with scan and closes them; no rows is a nil slice.
func collect[T any](rows pgx.Rows, scan func(pgx.Row) (T, error)) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// queryMap runs sql on db, whose rows are a text key and a V, and returns them as a map; what
// names the read in its errors.
func queryMap[V any](ctx context.Context, db querier, what, sql string, args ...any) (map[string]V, error) {
	rows, err := db.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	out := map[string]V{}
	for rows.Next() {
		var k string
		var v V
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out[k] = v
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// ruleCandidates returns up to limit ids of the memories rule holds for (a condition on
// memories that reads @cutoff), ordered by order and then id; project "" means every scope,
// else that project's memories only. It is the scan half of every maintenance rule, whose
// re-check under the row lock (setArchived, Purge) reads the same rule.
func (s *Store) ruleCandidates(ctx context.Context, what, rule, order string, cutoff time.Time, project string, limit int) ([]uuid.UUID, error) {
	return queryValues[uuid.UUID](ctx, s.pool, what, `SELECT id FROM memories WHERE `+rule+`
		AND (@project = '' OR (scope = 'project' AND scope_key = @project))
		ORDER BY `+order+`, id LIMIT @limit`, pgx.NamedArgs{"cutoff": cutoff, "project": project, "limit": limit})
}
