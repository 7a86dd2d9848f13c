package pgstore

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/memhost/memhost/host/internal/core/store"
)

// HNSWM and HNSWEfConstruction are the build parameters of every scope graph. ef_construction
// is twice pgvector's default of 64: hashed BM25 vectors are sparse and their neighbourhoods
// flat, and the wider build walk is what lifts recall at 100K memories from 0.90 to the 0.95
// target for ~15% more insert time (docs/benchmarks.md). Changing them makes IndexScopes
// rebuild existing graphs.
const (
	HNSWM              = 16
	HNSWEfConstruction = 128
)

// DefaultGraphMinRows is how many rows of one embedder a scope holds before it gets an HNSW
// graph of its own (WithGraphMinRows). Below it Nearest scans the scope's rows exactly, which
// costs about 2 µs a row on 2 cores when the rows are spread over the table as writes to many
// projects leave them (docs/benchmarks.md), so a scope at the limit answers in about 2 ms —
// what a walk of a small graph costs too — and every scope below it is exact, not approximate.
// It also bounds how many graphs a database holds: at most rows / DefaultGraphMinRows.
const DefaultGraphMinRows = 1000

// WithGraphMinRows sets the scope size at which a scope gets its own graph; 0 keeps the default.
func WithGraphMinRows(n int) Option {
	return func(s *Store) {
		if n > 0 {
			s.graphMinRows = n
		}
	}
}

// annReloptions is how pg_class.reloptions spells the build parameters, sorted for comparison.
var annReloptions = slices.Sorted(slices.Values([]string{fmt.Sprintf("m=%d", HNSWM), fmt.Sprintf("ef_construction=%d", HNSWEfConstruction)}))

// graphPrefix starts the name of every scope graph.
const graphPrefix = "memories_graph_"

// GraphName is the HNSW graph of one embedder's vectors in one scope. Scope keys are up to 512
// bytes and names at most 63, so the name holds a hash; md5, because SQL computes it too
// (graphNameSQL). The parts cannot run into each other: embedder names have no '/', and the
// key comes last.
func GraphName(embedder string, scope store.ScopeRef) string {
	sum := md5.Sum([]byte(embedder + "/" + scopeLiteral(scope.Scope) + "/" + scope.Key))
	return graphPrefix + hex.EncodeToString(sum[:8])
}

// graphNameSQL is GraphName in SQL, over a row's scope and scope_key and the given embedder
// expression (the row's column, or the parameter an update sets it to).
func graphNameSQL(embedder string) string {
	return "'" + graphPrefix + "' || left(md5(" + embedder + " || '/' || scope || '/' || scope_key), 16)"
}

// graphDDL creates a scope graph. Its predicate is the one NearestSQL repeats per scope.
func graphDDL(name, embedder string, dimensions int, scope store.ScopeRef) string {
	return fmt.Sprintf(`CREATE INDEX CONCURRENTLY %s ON memory_vectors USING hnsw ((%s) vector_cosine_ops) WITH (m = %d, ef_construction = %d)
		WHERE embedder = '%s' AND scope = '%s' AND scope_key = %s AND NOT ann_deferred`,
		name, vecExpr(dimensions), HNSWM, HNSWEfConstruction, embedder, scopeLiteral(scope.Scope), quoteLiteral(scope.Key))
}

// quoteLiteral renders s as an SQL string literal that reads the same whatever
// standard_conforming_strings says, as libpq's PQescapeLiteral does: quotes are doubled, and a
// text holding a backslash becomes an E-prefixed literal with the backslashes doubled. Graph DDL
// takes no bind parameters, and NearestSQL inlines scope keys so plans can be kept.
func quoteLiteral(s string) string {
	q := "'" + strings.ReplaceAll(s, "'", "''") + "'"
	if strings.Contains(s, `\`) {
		return "E" + strings.ReplaceAll(q, `\`, `\\`)
	}
	return q
}

// annIndexState is what the catalog says about an HNSW index.
type annIndexState int

const (
	annMissing annIndexState = iota
	annCurrent
	annStale // invalid (an interrupted concurrent build), or built with other parameters or predicate
)

// graphState judges one catalog row of an HNSW index.
func graphState(valid bool, opts []string, def string, dimensions int) annIndexState {
	opts = slices.Sorted(slices.Values(opts))
	if !valid || !slices.Equal(opts, annReloptions) || !strings.Contains(def, fmt.Sprintf("::vector(%d)", dimensions)) || !strings.Contains(def, "NOT ann_deferred") {
		return annStale
	}
	return annCurrent
}

// graphStates reads the state of every scope graph in one catalog query.
func (s *Store) graphStates(ctx context.Context) (map[string]func(dimensions int) annIndexState, error) {
	var out map[string]func(int) annIndexState
	var err error
	for attempt := 0; ; attempt++ {
		out, err = s.readGraphStates(ctx)
		// Another host swapping in a rebuilt graph can drop one this query resolved before
		// pg_get_indexdef reads it; Postgres then fails the lookup. Looking again sees the new one.
		if !isDroppedUnderLookup(err) || attempt == 4 {
			return out, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *Store) readGraphStates(ctx context.Context) (map[string]func(int) annIndexState, error) {
	rows, err := s.pool.Query(ctx, `SELECT c.relname, i.indisvalid, coalesce(c.reloptions, '{}'), pg_get_indexdef(c.oid)
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE i.indrelid = to_regclass('memory_vectors') AND c.relname LIKE $1`, graphPrefix+"%")
	if err != nil {
		return nil, fmt.Errorf("look up scope graphs: %w", err)
	}
	defer rows.Close()
	out := map[string]func(int) annIndexState{}
	for rows.Next() {
		var name, def string
		var valid bool
		var opts []string
		if err := rows.Scan(&name, &valid, &opts, &def); err != nil {
			return nil, fmt.Errorf("look up scope graphs: %w", err)
		}
		out[name] = func(dimensions int) annIndexState { return graphState(valid, opts, def, dimensions) }
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("look up scope graphs: %w", err)
	}
	return out, nil
}

// EnsureVectorIndex implements store.Store: it checks and registers the embedder's width and
// adds the embedder to those IndexScopes gives graphs. It builds nothing, so a host boots at
// once however large its database: scope graphs are built in the background (IndexScopes),
// and until a scope has one, Nearest scans its rows exactly — slower, never wrong.
func (s *Store) EnsureVectorIndex(ctx context.Context, embedder string, dimensions int) error {
	if err := checkVector(store.Vector{Embedder: embedder, Dimensions: dimensions}); err != nil {
		return err
	}
	if dimensions > MaxIndexedDimensions {
		return fmt.Errorf("embedder %s has %d dimensions; pgvector's HNSW index supports at most %d", embedder, dimensions, MaxIndexedDimensions)
	}
	if err := s.registerDimensions(ctx, store.Vector{Embedder: embedder, Dimensions: dimensions}); err != nil {
		return err
	}
	s.graphEmbedders.Store(embedder, dimensions)
	return nil
}

// IndexScopes gives every scope holding at least the graph size of rows of an ensured embedder
// (EnsureVectorIndex) its own HNSW graph and rebuilds graphs that are invalid or were built
// with other parameters. Hosts run it in the background; it returns how many graphs it built.
//
// Graphs are built with CREATE INDEX CONCURRENTLY, so writes go on meanwhile, and a rebuilt
// graph is built under another name and swapped in. Hosts sharing the database each take a
// graph's advisory lock before building it and skip a graph another host is building.
func (s *Store) IndexScopes(ctx context.Context) (int, error) {
	type ensured struct {
		name       string
		dimensions int
	}
	var embedders []ensured
	s.graphEmbedders.Range(func(k, v any) bool {
		embedders = append(embedders, ensured{k.(string), v.(int)})
		return true
	})
	if len(embedders) == 0 {
		return 0, nil
	}
	slices.SortFunc(embedders, func(a, b ensured) int { return strings.Compare(a.name, b.name) })
	scopes, err := s.scopes(ctx)
	if err != nil {
		return 0, fmt.Errorf("index scopes: %w", err)
	}
	states, err := s.graphStates(ctx)
	if err != nil {
		return 0, fmt.Errorf("index scopes: %w", err)
	}
	built := 0
	var errs []error
	for _, scope := range scopes {
		todo := slices.DeleteFunc(slices.Clone(embedders), func(e ensured) bool {
			st, ok := states[GraphName(e.name, scope)]
			return ok && st(e.dimensions) == annCurrent
		})
		if len(todo) == 0 {
			continue
		}
		// Most scopes without a graph are small: counting up to the graph size over the
		// (scope, scope_key) btree alone tells them apart without reading their rows.
		var large bool
		if err := s.pool.QueryRow(ctx, `SELECT count(*) >= $3 FROM (SELECT 1 FROM memories
			WHERE scope = $1 AND scope_key = $2 LIMIT $3) r`, string(scope.Scope), scope.Key, s.graphMinRows).Scan(&large); err != nil {
			return built, fmt.Errorf("index scopes: count %s %q: %w", scope.Scope, scope.Key, err)
		}
		if !large {
			continue
		}
		for _, e := range todo {
			state := annMissing
			if st, ok := states[GraphName(e.name, scope)]; ok {
				state = st(e.dimensions)
			}
			did, err := s.buildGraph(ctx, e.name, e.dimensions, scope, state)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if did {
				built++
			}
		}
	}
	return built, errors.Join(errs...)
}

// scopes lists every scope that holds rows, walking the (scope, scope_key) btree from one key
// to the next (a loose index scan): one probe per scope, however many rows each holds.
func (s *Store) scopes(ctx context.Context) ([]store.ScopeRef, error) {
	return queryCollect(ctx, s.pool, "list scopes", func(row pgx.CollectableRow) (store.ScopeRef, error) {
		var ref store.ScopeRef
		var scope string
		err := row.Scan(&scope, &ref.Key)
		ref.Scope = store.Scope(scope)
		return ref, err
	}, `WITH RECURSIVE k AS (
			(SELECT scope, scope_key FROM memories ORDER BY scope, scope_key LIMIT 1)
			UNION ALL
			SELECT n.scope, n.scope_key FROM k, LATERAL (SELECT scope, scope_key FROM memories m
				WHERE (m.scope, m.scope_key) > (k.scope, k.scope_key) ORDER BY scope, scope_key LIMIT 1) n)
		SELECT scope, scope_key FROM k`)
}

// buildGraph builds or rebuilds one scope graph. It reports false without an error when the
// embedder holds fewer rows in the scope than the graph size, or another host is building it.
func (s *Store) buildGraph(ctx context.Context, embedder string, dimensions int, scope store.ScopeRef, state annIndexState) (bool, error) {
	if state == annMissing {
		var enough bool
		if err := s.pool.QueryRow(ctx, `SELECT count(*) >= $4 FROM (SELECT 1 FROM memory_vectors
			WHERE scope = $1 AND scope_key = $2 AND embedder = $3 LIMIT $4) r`, string(scope.Scope), scope.Key, embedder, s.graphMinRows).Scan(&enough); err != nil {
			return false, fmt.Errorf("graph for %s in %s %q: count rows: %w", embedder, scope.Scope, scope.Key, err)
		}
		if !enough {
			return false, nil
		}
	}
	name := GraphName(embedder, scope)
	fail := func(step string, err error) (bool, error) {
		return false, fmt.Errorf("graph for %s in %s %q: %s: %w", embedder, scope.Scope, scope.Key, step, err)
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return fail("connect", err)
	}
	defer releaseAdvisory(conn)
	var locked bool
	// The schema is part of the key: graph names repeat in every schema of the database.
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock(hashtextextended('memhost.graph:' || current_schema() || '.' || $1, 7420))`, name).Scan(&locked); err != nil {
		return fail("lock", err)
	}
	if !locked {
		return false, nil
	}
	// Under the lock, look again: the host that held it may have just finished.
	states, err := s.graphStates(ctx)
	if err != nil {
		return fail("look up", err)
	}
	state = annMissing
	if st, ok := states[name]; ok {
		state = st(dimensions)
	}
	switch state {
	case annCurrent:
		return false, nil
	case annMissing:
		if _, err := conn.Exec(ctx, graphDDL(name, embedder, dimensions, scope)); err != nil {
			return fail("build", err)
		}
		return true, nil
	}
	// Stale: build the replacement beside it (a leftover of an interrupted rebuild is invalid;
	// start over) and swap the two in one transaction, so searches always have a graph.
	next := name + "_next"
	for _, sql := range []string{"DROP INDEX CONCURRENTLY IF EXISTS " + next, graphDDL(next, embedder, dimensions, scope)} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			return fail("rebuild", err)
		}
	}
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, fmt.Sprintf("DROP INDEX IF EXISTS %s; ALTER INDEX %s RENAME TO %s", name, next, name))
		return err
	})
	if err != nil {
		return fail("swap", err)
	}
	return true, nil
}

// releaseAdvisory drops the session's advisory locks before the connection goes back to the
// pool; if that fails the connection is closed, which releases them too.
func releaseAdvisory(conn *pgxpool.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_unlock_all()"); err != nil {
		_ = conn.Conn().Close(ctx)
	}
	conn.Release()
}

// IndexDeferred implements store.Store. Clearing the flag is the update that inserts each row
// into its scope's HNSW graph, if the scope has one (rows of smaller scopes only lose the flag).
// SKIP LOCKED lets several hosts drain the queue together. Rows go in chunks of deferredChunk,
// each its own transaction, so a write folding into one of them waits for a few graph
// insertions at most, not for the whole batch.
//
// One row the graph refuses fails its chunk's update; the chunk is then done again row by
// row, and a row that still fails is set aside (ann_error says why) so the queue moves on. The
// count includes set-aside rows; the error names them so the caller can log them.
func (s *Store) IndexDeferred(ctx context.Context, limit int) (int, error) {
	if limit <= 0 {
		return 0, fmt.Errorf("index deferred rows: limit %d must be positive", limit)
	}
	moved := 0
	var refused []string
	for moved < limit {
		chunk := min(deferredChunk, limit-moved)
		// The flag is all a chunk changes, and a chunk lost to a crash is simply done again, so
		// its commit does not wait for the WAL flush: the writes being acknowledged meanwhile
		// have the disk to themselves.
		var b pgx.Batch
		b.Queue(`SELECT set_config('synchronous_commit', 'off', true)`)
		var n int
		b.Queue(`UPDATE memory_vectors SET ann_deferred = false WHERE (memory_id, embedder) IN (
			SELECT memory_id, embedder FROM memory_vectors WHERE ann_deferred AND ann_error IS NULL LIMIT $1 FOR UPDATE SKIP LOCKED)`, chunk).Exec(func(tag pgconn.CommandTag) error {
			n = int(tag.RowsAffected())
			return nil
		})
		err := s.pool.SendBatch(ctx, &b).Close()
		if rowRefused(ctx, err) {
			var bad []string
			n, bad, err = s.indexEach(ctx, chunk)
			refused = append(refused, bad...)
		}
		if err != nil {
			return moved, fmt.Errorf("index deferred rows: %w", err)
		}
		moved += n
		if n < chunk {
			break
		}
	}
	if len(refused) > 0 {
		return moved, fmt.Errorf("index deferred rows: set aside %d the ANN index refuses, marked in ann_error: %s", len(refused), strings.Join(refused, "; "))
	}
	return moved, nil
}

// deferredChunk is how many deferred rows one transaction of IndexDeferred moves: a graph
// insertion costs 1-8 ms of CPU, so a chunk holds its row locks for tens of milliseconds.
const deferredChunk = 25

// indexEach moves up to limit deferred rows into the ANN index one at a time, each under its
// own savepoint, sets aside the rows the index refuses and names them.
func (s *Store) indexEach(ctx context.Context, limit int) (int, []string, error) {
	taken := 0
	var refused []string
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT memory_id, embedder FROM memory_vectors WHERE ann_deferred AND ann_error IS NULL LIMIT $1 FOR UPDATE SKIP LOCKED`, limit)
		if err != nil {
			return err
		}
		type key struct {
			id       uuid.UUID
			embedder string
		}
		keys, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (key, error) {
			var k key
			err := row.Scan(&k.id, &k.embedder)
			return k, err
		})
		if err != nil {
			return err
		}
		for _, k := range keys {
			err := pgx.BeginFunc(ctx, tx, func(sp pgx.Tx) error {
				_, err := sp.Exec(ctx, `UPDATE memory_vectors SET ann_deferred = false WHERE memory_id = $1 AND embedder = $2`, k.id, k.embedder)
				return err
			})
			if rowRefused(ctx, err) {
				var pgErr *pgconn.PgError
				errors.As(err, &pgErr)
				if _, err := tx.Exec(ctx, `UPDATE memory_vectors SET ann_error = $3 WHERE memory_id = $1 AND embedder = $2`, k.id, k.embedder, pgErr.Message); err != nil {
					return err
				}
				refused = append(refused, fmt.Sprintf("memory %s (%s)", k.id, pgErr.Message))
			} else if err != nil {
				return err
			}
			taken++
		}
		return nil
	})
	if err != nil {
		return 0, nil, fmt.Errorf("one by one: %w", err)
	}
	return taken, refused, nil
}

// rowRefused reports an error caused by the data of a row (a vector the index cannot take, a
// constraint), as opposed to the connection, a cancellation or contention, which a later
// attempt may not meet.
func rowRefused(ctx context.Context, err error) bool {
	var pgErr *pgconn.PgError
	if ctx.Err() != nil || !errors.As(err, &pgErr) || isDroppedUnderLookup(err) {
		return false
	}
	switch pgErr.Code[:2] {
	case "22", "23", "XX": // data exception, integrity constraint, internal error (an index AM's complaint)
		return true
	}
	return false
}

// isDroppedUnderLookup reports Postgres's internal error for a catalog object that vanished
// while a query was reading it.
func isDroppedUnderLookup(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "XX000" && strings.Contains(pgErr.Message, "cache lookup failed")
}
