package pgstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/core/store/storetest"
	"github.com/memhost/memhost/host/internal/daemon/migrate"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
)

// poison inserts a deferred row whose vector is 3 wide for the 16-wide suite embedder, past
// the guard (as a database from before migration 0003 may hold one), and returns its id.
func poison(t *testing.T, pool *pgxpool.Pool) uuid.UUID {
	t.Helper()
	ctx := context.Background()
	id := uuid.Must(uuid.NewV7())
	_, err := pool.Exec(ctx, `ALTER TABLE memory_vectors DISABLE TRIGGER memory_vectors_check_dimensions;
		INSERT INTO memories (id, scope, scope_key, kind, text, text_hash, embedder, seq)
		VALUES ('`+id.String()+`', 'project', 'p', 'fact', 'poisoned', '\x00', '`+storetest.Embedder+`', 1);
		INSERT INTO memory_vectors (memory_id, embedder, scope, scope_key, kind, embedding, ann_deferred)
		VALUES ('`+id.String()+`', '`+storetest.Embedder+`', 'project', 'p', 'fact', '[1,0,0]', true);
		ALTER TABLE memory_vectors ENABLE TRIGGER memory_vectors_check_dimensions`)
	require.NoError(t, err)
	return id
}

// deferredRecords are n facts, from the from'th, in two projects: deferred when imported once
// the projects have graphs.
func deferredRecords(from, n int) []store.ExportRecord {
	r := rand.New(rand.NewPCG(8, uint64(9+from)))
	recs := make([]store.ExportRecord, n)
	for i := range recs {
		w := storetest.NewWrite(fmt.Sprintf("project-%d", i%2), fmt.Sprintf("deferred fact %d", from+i), storetest.RandomVec(r))
		recs[i] = store.ExportRecord{Memory: store.Memory{ID: w.ID, Scope: w.Scope, ScopeKey: w.ScopeKey, Kind: w.Kind, Text: w.Text,
			Importance: 0.5, Confidence: 0.5}, Vector: w.Vector}
	}
	return recs
}

// TestIndexDeferredSetsAsideARowItCannotIndex: one such row used to fail every batch, so the
// indexer stalled for every project until the row was deleted by hand.
func TestIndexDeferredSetsAsideARowItCannotIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := testdb.Migrated(t)
	s := pgstore.New(pool, pgstore.WithGraphMinRows(1))
	require.NoError(t, s.EnsureVectorIndex(ctx, storetest.Embedder, storetest.Dims))
	bad := poison(t, pool)
	_, err := s.Import(ctx, deferredRecords(0, 2))
	require.NoError(t, err)
	_, err = s.IndexScopes(ctx) // every scope gets a graph, which the bad row cannot join
	require.NoError(t, err)
	_, err = s.Import(ctx, deferredRecords(2, 48)) // these wait for the indexer to join the graphs
	require.NoError(t, err)

	n, err := s.IndexDeferred(ctx, 1000)
	require.ErrorContains(t, err, "set aside 1 the ANN index refuses")
	require.ErrorContains(t, err, "memory "+bad.String()+" (expected 16 dimensions, not 3)")
	require.Equal(t, 49, n, "the good rows are indexed in the same call")
	n, err = s.IndexDeferred(ctx, 1000)
	require.NoError(t, err)
	require.Zero(t, n, "the row set aside is not picked up again")

	var indexed int
	var reason string
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE NOT ann_deferred),
		max(ann_error) FROM memory_vectors`).Scan(&indexed, &reason))
	require.Equal(t, 50, indexed)
	require.Equal(t, "expected 16 dimensions, not 3", reason)

	// The search path steps around the row set aside: nearest-neighbour lookups in its project
	// and similarity for it as a lexical candidate answer instead of failing the project.
	var key string
	require.NoError(t, pool.QueryRow(ctx, `SELECT scope_key FROM memories WHERE id = $1`, bad).Scan(&key))
	q := storetest.Vec(0, 0)
	hits, err := s.Nearest(ctx, store.VectorQuery{Vector: q, Scopes: []store.ScopeRef{store.Project(key)}, Limit: 10})
	require.NoError(t, err)
	for _, h := range hits {
		require.NotEqual(t, bad, h.ID)
	}
	loaded, err := s.GetMany(ctx, []uuid.UUID{bad}, &q)
	require.NoError(t, err)
	require.Len(t, loaded, 1)
	require.Nil(t, loaded[0].Similarity, "no similarity for a vector of the wrong width")
}

// TestTheStoreRefusesAVectorOfAnotherWidth is the guard of migration 0003, on every path.
func TestTheStoreRefusesAVectorOfAnotherWidth(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := testdb.Migrated(t)
	s := pgstore.New(pool)
	require.NoError(t, s.EnsureVectorIndex(ctx, storetest.Embedder, storetest.Dims))
	m, err := storetest.Insert(ctx, s, storetest.NewWrite("p", "a fact", storetest.Vec(0, 0)))
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `INSERT INTO memory_vectors (memory_id, embedder, scope, scope_key, kind, embedding)
		VALUES ($1, 'suite-v1-16', 'project', 'p', 'fact', '[1,0,0]')
		ON CONFLICT (memory_id, embedder) DO UPDATE SET embedding = EXCLUDED.embedding`, m.ID)
	require.ErrorContains(t, err, "embedding has 3 dimensions; embedder suite-v1-16 stores 16 dimensions")
	_, err = pool.Exec(ctx, `UPDATE memory_vectors SET embedding = '[1,0]' WHERE memory_id = $1`, m.ID)
	require.ErrorContains(t, err, "embedding has 2 dimensions")

	// A new embedder registers with its first vector; the plugin cannot change width later.
	_, err = pool.Exec(ctx, `INSERT INTO memory_vectors (memory_id, embedder, scope, scope_key, kind, embedding)
		VALUES ($1, 'dense-v1', 'project', 'p', 'fact', '[1,0,0,0]')`, m.ID)
	require.NoError(t, err)
	dims, err := s.VectorDimensions(ctx)
	require.NoError(t, err)
	require.Equal(t, map[string]int{storetest.Embedder: storetest.Dims, "dense-v1": 4}, dims)
	require.EqualError(t, s.EnsureVectorIndex(ctx, "dense-v1", 8),
		"embedder dense-v1 describes 8 dimensions, but the vectors stored under its name have 4: a plugin that changes its vectors must change its name")
}

// TestMigration0003SetsAsideRowsThatPoisonedADatabase upgrades a database holding a vector
// of the wrong width: the width comes from the embedder's index, the row is set aside, and the
// indexer moves on.
func TestMigration0003SetsAsideRowsThatPoisonedADatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, testdb.Schema(t))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	all, err := migrate.All()
	require.NoError(t, err)
	apply := func(version int) {
		for _, m := range all {
			if m.Version == version {
				_, err := pool.Exec(ctx, m.SQL)
				require.NoError(t, err, m.Name)
			}
		}
	}
	apply(1)
	apply(2)
	// As 0002's host left it: the suite embedder's index, indexed rows, and one bad import.
	_, err = pool.Exec(ctx, `CREATE INDEX memories_ann_suite ON memories USING hnsw ((embedding::vector(16)) vector_cosine_ops)
			WHERE embedder = '`+storetest.Embedder+`' AND NOT ann_deferred;
		INSERT INTO memories (id, scope, scope_key, kind, text, text_hash, embedder, embedding, seq, ann_deferred)
		SELECT gen_random_uuid(), 'project', 'p', 'fact', 'fact ' || g, sha256(g::text::bytea), '`+storetest.Embedder+`',
			array_fill(g::real, ARRAY[16])::vector, g, false FROM generate_series(1, 3) g;
		INSERT INTO memories (id, scope, scope_key, kind, text, text_hash, embedder, embedding, seq, ann_deferred)
		SELECT gen_random_uuid(), 'project', 'p', 'fact', 'bad ' || g, sha256(('bad' || g)::bytea), '`+storetest.Embedder+`',
			'[1,0,0]', 10 + g, true FROM generate_series(1, 5) g`)
	require.NoError(t, err)
	apply(3)

	s := pgstore.New(pool)
	dims, err := s.VectorDimensions(ctx)
	require.NoError(t, err)
	require.Equal(t, map[string]int{storetest.Embedder: 16}, dims, "the index says 16, though most rows say 3")
	var setAside int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM memories
		WHERE ann_deferred AND ann_error = 'vector has 3 dimensions; embedder suite-v1-16 stores 16'`).Scan(&setAside))
	require.Equal(t, 5, setAside)
	// Later migrations keep them aside (0012 moves them to memory_vectors with their reason).
	for v := 4; v <= all[len(all)-1].Version; v++ {
		apply(v)
	}
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM memory_vectors
		WHERE ann_deferred AND ann_error = 'vector has 3 dimensions; embedder suite-v1-16 stores 16'`).Scan(&setAside))
	require.Equal(t, 5, setAside)
	n, err := s.IndexDeferred(ctx, 100)
	require.NoError(t, err)
	require.Zero(t, n, "nothing left for the indexer to fail on")
}
