package pgstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/core/store/storetest"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
)

// graphMin is the graph size the tests use: small, so a test scope crosses it quickly.
const graphMin = 300

// current is how annIndexes shows a graph built with the current parameters.
const current = "m=16,ef_construction=128 valid=true"

// annIndexes lists the schema's HNSW indexes with their options and validity.
func annIndexes(t *testing.T, pool *pgxpool.Pool) map[string]string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT c.relname, coalesce(array_to_string(c.reloptions, ','), ''), i.indisvalid
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
		WHERE a.amname = 'hnsw' AND c.relnamespace = current_schema()::regnamespace`)
	require.NoError(t, err)
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name, opts string
		var valid bool
		require.NoError(t, rows.Scan(&name, &opts, &valid))
		out[name] = fmt.Sprintf("%s valid=%v", opts, valid)
	}
	require.NoError(t, rows.Err())
	return out
}

// graphBundle is a store with a small graph size on a fresh schema.
type graphBundle struct {
	pool  *pgxpool.Pool
	store *pgstore.Store
	r     *rand.Rand
}

func setupGraphs(t *testing.T) graphBundle {
	t.Helper()
	pool, _ := testdb.Migrated(t)
	s := pgstore.New(pool, pgstore.WithGraphMinRows(graphMin))
	require.NoError(t, s.EnsureVectorIndex(context.Background(), storetest.Embedder, storetest.Dims))
	return graphBundle{pool: pool, store: s, r: rand.New(rand.NewPCG(3, 4))}
}

// seed imports n facts into scope with random vectors and moves them out of the deferred
// queue, as the background indexer does.
func (b graphBundle) seed(t *testing.T, scope store.ScopeRef, n int) {
	t.Helper()
	ctx := context.Background()
	recs := make([]store.ExportRecord, n)
	for i := range recs {
		w := storetest.NewWrite(scope.Key, fmt.Sprintf("%s fact %d", scope.Key, i), storetest.RandomVec(b.r))
		recs[i] = store.ExportRecord{Memory: store.Memory{ID: w.ID, Scope: scope.Scope, ScopeKey: scope.Key, Kind: w.Kind, Text: w.Text,
			Importance: 0.5, Confidence: 0.5}, Vector: w.Vector}
	}
	_, err := b.store.Import(ctx, recs)
	require.NoError(t, err)
	for {
		n, err := b.store.IndexDeferred(ctx, 1000)
		require.NoError(t, err)
		if n == 0 {
			break
		}
	}
}

func graphOf(scope store.ScopeRef) string { return pgstore.GraphName(storetest.Embedder, scope) }

// TestScopeGraphsFollowScopeSize: a scope gets its own graph, built with the current
// parameters, once it holds the graph size of rows; smaller scopes get none; a second pass
// builds nothing.
func TestScopeGraphsFollowScopeSize(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupGraphs(t)
	large, small := store.Project("large"), store.Project("small")
	b.seed(t, large, graphMin)
	b.seed(t, small, graphMin-1)

	built, err := b.store.IndexScopes(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, built)
	require.Equal(t, map[string]string{graphOf(large): current}, annIndexes(t, b.pool))
	built, err = b.store.IndexScopes(ctx)
	require.NoError(t, err)
	require.Zero(t, built)

	b.seed(t, small, 1)
	built, err = b.store.IndexScopes(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, built)
	require.Equal(t, map[string]string{graphOf(large): current, graphOf(small): current}, annIndexes(t, b.pool))
}

// TestScopeGraphRebuildsStale: a graph built with other parameters, or left invalid by an
// interrupted concurrent build, is replaced by a current one under the same name, once, even
// when several hosts look at the same time, and searches find the same rows afterwards.
func TestScopeGraphRebuildsStale(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupGraphs(t)
	scope := store.Project("project-a")
	b.seed(t, scope, graphMin)
	name := graphOf(scope)
	_, err := b.pool.Exec(ctx, fmt.Sprintf(`CREATE INDEX %s ON memory_vectors USING hnsw ((embedding::vector(%d)) vector_cosine_ops)
		WHERE embedder = '%s' AND scope = 'project' AND scope_key = 'project-a' AND NOT ann_deferred`, name, storetest.Dims, storetest.Embedder))
	require.NoError(t, err)
	require.Equal(t, map[string]string{name: " valid=true"}, annIndexes(t, b.pool))

	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Go(func() { _, errs[i] = b.store.IndexScopes(ctx) })
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	require.Equal(t, map[string]string{name: current}, annIndexes(t, b.pool))

	// Simulate a concurrent build that died half way: the catalog marks the index invalid.
	_, err = b.pool.Exec(ctx, `UPDATE pg_index SET indisvalid = false WHERE indexrelid = to_regclass($1)`, name)
	require.NoError(t, err)
	counts, err := b.store.Counts(ctx)
	require.NoError(t, err)
	require.Zero(t, counts.Graphs, "an invalid graph (a build under way or one that died) is not one searches use")
	require.Zero(t, counts.GraphBytes)
	built, err := b.store.IndexScopes(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, built)
	require.Equal(t, map[string]string{name: current}, annIndexes(t, b.pool))
	counts, err = b.store.Counts(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 1, counts.Graphs)
	require.Positive(t, counts.GraphBytes)

	hits, err := b.store.Nearest(ctx, store.VectorQuery{Vector: storetest.RandomVec(b.r), Scopes: []store.ScopeRef{scope}, Limit: 10})
	require.NoError(t, err)
	require.Len(t, hits, 10)
}

// TestScopeGraphNames: Postgres cuts identifiers at 63 bytes, so long scope keys and embedder
// names that differ only at the end still get graphs of their own; keys with quotes and
// backslashes (inlined as literals in the graph's DDL and in every lookup) are taken
// literally, and each scope's lookups find its own rows only.
func TestScopeGraphNames(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupGraphs(t)
	long := strings.Repeat("github.com/some-org/a-long-repository-name/", 3)
	scopes := []store.ScopeRef{store.Project(long + "one"), store.Project(long + "two"), store.Project("it's-quoted"),
		store.Project(`C:\repos\it's\'; DROP TABLE memories; --`)}
	for _, s := range scopes {
		b.seed(t, s, graphMin)
	}
	built, err := b.store.IndexScopes(ctx)
	require.NoError(t, err)
	require.Equal(t, len(scopes), built)
	got := annIndexes(t, b.pool)
	require.Len(t, got, len(scopes), "indexes: %v", got)
	for _, s := range scopes {
		require.Equal(t, current, got[graphOf(s)])
		require.LessOrEqual(t, len(graphOf(s)), 63)
	}
	for _, s := range scopes {
		hits, err := b.store.Nearest(ctx, store.VectorQuery{Vector: storetest.RandomVec(b.r), Scopes: []store.ScopeRef{s}, Limit: 5})
		require.NoError(t, err)
		require.Len(t, hits, 5)
		for _, h := range hits {
			m, err := b.store.Get(ctx, h.ID)
			require.NoError(t, err)
			require.Equal(t, s.Key, m.ScopeKey)
		}
	}
	embedder := strings.Repeat("long-embedder-name.", 3)
	require.NotEqual(t, pgstore.GraphName(embedder+"v1", scopes[0]), pgstore.GraphName(embedder+"v2", scopes[0]))
}

// TestScopeGraphsBuiltByHostsAtOnce: hosts looking at once all succeed, and each graph is
// built once.
func TestScopeGraphsBuiltByHostsAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupGraphs(t)
	scope := store.Project("p")
	b.seed(t, scope, graphMin)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			s := pgstore.New(b.pool, pgstore.WithGraphMinRows(graphMin))
			if errs[i] = s.EnsureVectorIndex(ctx, storetest.Embedder, storetest.Dims); errs[i] == nil {
				_, errs[i] = s.IndexScopes(ctx)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	require.Equal(t, map[string]string{graphOf(scope): current}, annIndexes(t, b.pool))
}

// TestWritesJoinTheirGraphInTheBackground: a write to a scope with a graph skips the graph
// insertion (the background indexer does it) and is found by the very next search; a write
// to a smaller scope is simply stored. A fold that keeps the text leaves the vector alone.
func TestWritesJoinTheirGraphInTheBackground(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupGraphs(t)
	large, small := store.Project("large"), store.Project("small")
	b.seed(t, large, graphMin)
	_, err := b.store.IndexScopes(ctx)
	require.NoError(t, err)

	deferred := func(id fmt.Stringer) bool {
		var d bool
		require.NoError(t, b.pool.QueryRow(ctx, `SELECT ann_deferred FROM memory_vectors WHERE memory_id = $1`, id.String()).Scan(&d))
		return d
	}
	nearestIs := func(scope store.ScopeRef, v store.Vector, want fmt.Stringer) {
		t.Helper()
		hits, err := b.store.Nearest(ctx, store.VectorQuery{Vector: v, Scopes: []store.ScopeRef{scope, store.Global}, Limit: 5})
		require.NoError(t, err)
		require.NotEmpty(t, hits)
		require.Equal(t, want.String(), hits[0].ID.String())
	}
	v := storetest.RandomVec(b.r)
	m, err := storetest.Insert(ctx, b.store, storetest.NewWrite(large.Key, "a new fact", v))
	require.NoError(t, err)
	require.True(t, deferred(m.ID), "the graph insertion is left to the indexer")
	nearestIs(large, v, m.ID)

	w, err := storetest.Insert(ctx, b.store, storetest.NewWrite(small.Key, "a small project's fact", v))
	require.NoError(t, err)
	require.False(t, deferred(w.ID), "a scope without a graph has nothing to defer")
	nearestIs(small, v, w.ID)

	n, err := b.store.IndexDeferred(ctx, 100)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.False(t, deferred(m.ID))
	nearestIs(large, v, m.ID)

	require.NoError(t, b.store.WithScopeLock(ctx, large, func(tx store.ScopeTx) error {
		_, err := tx.Fold(ctx, store.FoldParams{ID: m.ID, Kind: m.Kind, DedupedCount: 1, Before: m.Text, After: m.Text})
		return err
	}))
	require.False(t, deferred(m.ID), "the vector, in memory_vectors, is not rewritten: it stays in its graph")
	nearestIs(large, v, m.ID)
}

// TestImportsDeferOnlyWhereAGraphIs: an imported row waits for the indexer only in a scope
// whose graph it has to join. A row of a scope without a graph is final as imported, so a load
// into a fresh database leaves the indexer nothing to rewrite, and its graphs, built later,
// take the rows in.
func TestImportsDeferOnlyWhereAGraphIs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupGraphs(t)
	large, small := store.Project("large"), store.Project("small")
	records := func(scope store.ScopeRef, from, n int) []store.ExportRecord {
		recs := make([]store.ExportRecord, n)
		for i := range recs {
			w := storetest.NewWrite(scope.Key, fmt.Sprintf("%s imported fact %d", scope.Key, from+i), storetest.RandomVec(b.r))
			recs[i] = store.ExportRecord{Memory: store.Memory{ID: w.ID, Scope: scope.Scope, ScopeKey: scope.Key, Kind: w.Kind, Text: w.Text,
				Importance: 0.5, Confidence: 0.5}, Vector: w.Vector}
		}
		return recs
	}
	deferred := func(scope store.ScopeRef) int {
		var n int
		require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM memory_vectors WHERE scope_key = $1 AND ann_deferred`, scope.Key).Scan(&n))
		return n
	}
	_, err := b.store.Import(ctx, append(records(large, 0, graphMin), records(small, 0, 5)...))
	require.NoError(t, err)
	require.Zero(t, deferred(large), "no graph yet: nothing to defer")
	require.Zero(t, deferred(small))
	built, err := b.store.IndexScopes(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, built)
	var indexed int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM memory_vectors WHERE scope_key = 'large' AND NOT ann_deferred`).Scan(&indexed))
	require.Equal(t, graphMin, indexed, "the graph holds every imported row")

	later := append(records(large, graphMin, 3), records(small, 5, 3)...)
	_, err = b.store.Import(ctx, later)
	require.NoError(t, err)
	require.Equal(t, 3, deferred(large), "rows of a scope with a graph wait for the indexer")
	require.Zero(t, deferred(small))
	for _, r := range later {
		hits, err := b.store.Nearest(ctx, store.VectorQuery{Vector: r.Vector, Scopes: []store.ScopeRef{{Scope: r.Memory.Scope, Key: r.Memory.ScopeKey}}, Limit: 1})
		require.NoError(t, err)
		require.Len(t, hits, 1)
		require.Equal(t, r.Memory.ID, hits[0].ID, "an imported row is found at once, deferred or not")
	}
}

// TestNearestPathFollowsScopeSize pins the access path with EXPLAIN: a scope with a graph is
// answered by a walk of its own graph, a smaller one by an exact scan of its rows through the
// (scope, scope_key) btree, and no query walks a graph under another scope's filter. It checks
// search's query.
func TestNearestPathFollowsScopeSize(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupGraphs(t)
	large, small := store.Project("large"), store.Project("small")
	b.seed(t, large, 3*graphMin)
	b.seed(t, small, graphMin/3)
	b.seed(t, store.Global, 20)
	_, err := b.store.IndexScopes(ctx)
	require.NoError(t, err)
	_, err = b.pool.Exec(ctx, "ANALYZE memories, memory_vectors")
	require.NoError(t, err)

	explain := func(scope store.ScopeRef) []string {
		t.Helper()
		q := store.VectorQuery{Vector: storetest.RandomVec(b.r), Scopes: []store.ScopeRef{scope, store.Global}, Kinds: store.Kinds, Limit: 10}
		var plans []string
		for _, render := range []func(store.VectorQuery) (string, []any){pgstore.NearestSQL} {
			// The plan the store keeps: a generic plan of the prepared query.
			require.NoError(t, pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
				sql, args := render(q)
				if _, err := tx.Exec(ctx, "SET LOCAL plan_cache_mode = force_generic_plan; SET LOCAL hnsw.iterative_scan = relaxed_order; PREPARE nearest(text) AS "+sql); err != nil {
					return err
				}
				rows, err := tx.Query(ctx, "EXPLAIN EXECUTE nearest('"+args[0].(string)+"')")
				if err != nil {
					return err
				}
				lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
				plans = append(plans, strings.Join(lines, "\n"))
				if err != nil {
					return err
				}
				_, err = tx.Exec(ctx, "DEALLOCATE nearest")
				return err
			}))
		}
		return plans
	}
	for _, plan := range explain(large) {
		require.Contains(t, plan, "Index Scan using "+graphOf(large), plan)
		require.Contains(t, plan, "memory_vectors_deferred", "the exact scan of deferred rows reads the empty partial index, not the table")
		lines := strings.Split(plan, "\n")
		var keyed int
		for i, line := range lines[:len(lines)-1] {
			if strings.Contains(line, " memory_vectors_deferred") {
				require.Contains(t, strings.TrimSpace(lines[i+1]), "Index Cond: ((embedder = ", "each scope reads only its own deferred rows:\n%s", plan)
				keyed++
			}
		}
		require.Equal(t, 2, keyed, "one keyed scan of deferred rows per scope:\n%s", plan)
		require.Equal(t, 1, strings.Count(plan, "memories_graph_"), "only the large scope is walked as a graph")
	}
	for _, plan := range explain(small) {
		require.NotContains(t, plan, "memories_graph_", plan)
		require.Contains(t, plan, "(scope_key = 'small'::text)", "an exact scan reads the scope's rows through a btree, not the table")
		require.NotContains(t, plan, "Seq Scan", plan)
	}

	// Both paths give the right rows: the small scope's answer is the exact one.
	q := store.VectorQuery{Vector: storetest.RandomVec(b.r), Scopes: []store.ScopeRef{small}, Limit: graphMin}
	hits, err := b.store.Nearest(ctx, q)
	require.NoError(t, err)
	require.Len(t, hits, graphMin/3)
	for i := 1; i < len(hits); i++ {
		require.GreaterOrEqual(t, hits[i-1].Similarity, hits[i].Similarity)
	}
	hits, err = b.store.Nearest(ctx, store.VectorQuery{Vector: q.Vector, Scopes: []store.ScopeRef{large}, Limit: 10})
	require.NoError(t, err)
	require.Len(t, hits, 10)
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID.String()
	}
	var wrong int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM memories WHERE id::text = ANY($1) AND scope_key <> 'large'`, ids).Scan(&wrong))
	require.Zero(t, wrong)
}

// TestNearestSettingsLastForItsQueryOnly: Nearest sends its planner settings and its query in
// one pipelined batch. Postgres runs the batch as one implicit transaction, so the settings
// hold for the query and do not leak into the pooled connection's next use.
func TestNearestSettingsLastForItsQueryOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := testdb.Migrated(t)
	conn, err := pool.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	var b pgx.Batch
	b.Queue(pgstore.NearestSettingsSQL, 123, []string{})
	var mode, ef string
	b.Queue(`SELECT current_setting('plan_cache_mode'), current_setting('hnsw.ef_search')`).QueryRow(func(row pgx.Row) error {
		return row.Scan(&mode, &ef)
	})
	require.NoError(t, conn.SendBatch(ctx, &b).Close())
	require.Equal(t, "force_generic_plan", mode)
	require.Equal(t, "123", ef)
	require.NoError(t, conn.QueryRow(ctx, `SELECT current_setting('plan_cache_mode')`).Scan(&mode))
	require.Equal(t, "auto", mode)
}

// TestLargerGraphsAreWalkedWider: the walk width of a search is the configured one in small
// graphs and grows with the largest graph the search may walk (its rows / 160, at most
// pgvector's 1000), read from the catalog in the statement that sets it; graphs that do not
// exist count for nothing, and the graphs are the query's scopes' own.
func TestLargerGraphsAreWalkedWider(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupGraphs(t)
	big, small := store.Project("big"), store.Project("small")
	b.seed(t, big, graphMin)
	_, err := b.store.IndexScopes(ctx)
	require.NoError(t, err)
	require.Contains(t, annIndexes(t, b.pool), graphOf(big))
	q := store.VectorQuery{Vector: storetest.Vec(1, 0), Scopes: []store.ScopeRef{big, small}}
	require.Equal(t, []string{graphOf(big), graphOf(small)}, pgstore.NearestGraphNames(b.store, q))

	for _, c := range []struct {
		rows       int // the big graph's size in the catalog; 0 keeps the build's count
		configured int
		names      []string
		want       string
	}{
		{0, 100, pgstore.NearestGraphNames(b.store, q), "100"},
		{0, 40, pgstore.NearestGraphNames(b.store, q), "40"},
		{100000, 100, pgstore.NearestGraphNames(b.store, q), "625"},
		{100000, 800, pgstore.NearestGraphNames(b.store, q), "800"},
		{5000000, 100, pgstore.NearestGraphNames(b.store, q), "1000"},
		{100000, 100, []string{graphOf(small)}, "100"},
	} {
		// The size is set inside a transaction that is rolled back, so no ANALYZE races it.
		tx, err := b.pool.Begin(ctx)
		require.NoError(t, err)
		if c.rows > 0 {
			_, err = tx.Exec(ctx, `UPDATE pg_class SET reltuples = $1 WHERE oid = to_regclass($2)`, c.rows, graphOf(big))
			require.NoError(t, err)
		}
		_, err = tx.Exec(ctx, pgstore.NearestSettingsSQL, c.configured, c.names)
		require.NoError(t, err)
		var ef string
		require.NoError(t, tx.QueryRow(ctx, `SELECT current_setting('hnsw.ef_search')`).Scan(&ef))
		require.NoError(t, tx.Rollback(ctx))
		require.Equal(t, c.want, ef, "graph of %d rows, configured %d, graphs %v", c.rows, c.configured, c.names)
	}
	require.Empty(t, pgstore.NearestGraphNames(pgstore.New(b.pool, pgstore.WithFixedEfSearch()), q), "a fixed width sizes by no graph")
	// The search itself runs with the wider walk and finds the big scope's rows.
	hits, err := b.store.Nearest(ctx, store.VectorQuery{Vector: q.Vector, Scopes: []store.ScopeRef{big}, Limit: 5})
	require.NoError(t, err)
	require.Len(t, hits, 5)
}
