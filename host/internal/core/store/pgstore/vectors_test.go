package pgstore_test

import (
	"context"
	"encoding/json"
	"fmt"
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

// other is a second embedder of another width, as a dense embedder beside the BM25 floor.
const other = "other-v1-4"

func otherVec(values ...float32) store.Vector {
	return store.Vector{Embedder: other, Dimensions: 4, Values: values}
}

// putOther gives the memories vectors of the other embedder, as the re-embed job does.
func putOther(t *testing.T, s *pgstore.Store, ms []store.Memory, vecs []store.Vector) int {
	t.Helper()
	items := make([]store.Embedded, len(ms))
	for i, m := range ms {
		items[i] = store.Embedded{ID: m.ID, Hash: pgstore.TextHash(m.Text), Vector: vecs[i]}
	}
	n, err := s.PutVectors(context.Background(), other, items)
	require.NoError(t, err)
	return n
}

// TestVectorsOfSeveralEmbeddersSideBySide: a memory holds a vector of each embedder; every
// lookup compares vectors of the asked embedder only, a row without one is left out of the
// vector paths (and listed as waiting for one), and a new text drops the old text's vectors.
func TestVectorsOfSeveralEmbeddersSideBySide(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := testdb.Migrated(t)
	s := pgstore.New(pool)
	require.NoError(t, s.EnsureVectorIndex(ctx, storetest.Embedder, storetest.Dims))
	require.NoError(t, s.EnsureVectorIndex(ctx, other, 4))
	p := store.Project("p")
	var ms []store.Memory
	for i, text := range []string{"use pnpm", "tests need TZ=UTC", "deploys go through argo"} {
		m, err := storetest.Insert(ctx, s, storetest.NewWrite(p.Key, text, storetest.Vec(i, 0)))
		require.NoError(t, err)
		ms = append(ms, m)
	}
	names, err := s.EmbeddersWithVectors(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{storetest.Embedder}, names)
	cov, err := s.VectorCoverage(ctx, other)
	require.NoError(t, err)
	require.Equal(t, store.VectorCoverage{Total: 3, Missing: 3}, cov)

	// The other embedder converges on two of the three.
	require.Equal(t, 2, putOther(t, s, ms[:2], []store.Vector{otherVec(1, 0, 0, 0), otherVec(0, 1, 0, 0)}))
	names, err = s.EmbeddersWithVectors(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{other, storetest.Embedder}, names)
	waiting, err := s.Unembedded(ctx, store.UnembeddedQuery{Embedder: other, After: uuid.Nil, Limit: 10})
	require.NoError(t, err)
	require.Len(t, waiting, 1)
	require.Equal(t, ms[2].ID, waiting[0].ID)
	require.Equal(t, "deploys go through argo", waiting[0].Text)

	// Each embedder answers with its own vectors: the first still finds all three.
	hits, err := s.Nearest(ctx, store.VectorQuery{Vector: otherVec(0, 1, 0, 0), Scopes: []store.ScopeRef{p}, Limit: 10})
	require.NoError(t, err)
	require.Len(t, hits, 2, "the row without a vector of the embedder is not a neighbour")
	require.Equal(t, ms[1].ID, hits[0].ID)
	require.InDelta(t, 1, hits[0].Similarity, 1e-6)
	hits, err = s.Nearest(ctx, store.VectorQuery{Vector: storetest.Vec(2, 0), Scopes: []store.ScopeRef{p}, Limit: 10})
	require.NoError(t, err)
	require.Len(t, hits, 3, "switching back is instant: the old embedder's vectors are all there")
	require.Equal(t, ms[2].ID, hits[0].ID)
	q := otherVec(1, 0, 0, 0)
	loaded, err := s.GetMany(ctx, []uuid.UUID{ms[0].ID, ms[2].ID}, &q)
	require.NoError(t, err)
	sims := map[uuid.UUID]*float64{}
	for _, l := range loaded {
		sims[l.Memory.ID] = l.Similarity
	}
	require.NotNil(t, sims[ms[0].ID])
	require.InDelta(t, 1, *sims[ms[0].ID], 1e-6)
	require.Nil(t, sims[ms[2].ID], "no similarity without a vector of the embedder")

	// A write's fold candidates are the rows with a vector of the write's embedder.
	require.NoError(t, s.WithScopeLock(ctx, p, func(tx store.ScopeTx) error {
		c, err := tx.Lookup(ctx, "something new", otherVec(1, 1, 0, 0), []uuid.UUID{ms[2].ID})
		require.NoError(t, err)
		require.Len(t, c.Neighbours, 2)
		for _, n := range c.Neighbours {
			require.NotEqual(t, ms[2].ID, n.Memory.ID)
		}
		return nil
	}))

	// A fold that replaces the text with a vector of the first embedder drops the other
	// embedder's vector of the old text: the row waits for the re-embed again.
	require.NoError(t, s.WithScopeLock(ctx, p, func(tx store.ScopeTx) error {
		_, err := tx.Fold(ctx, store.FoldParams{ID: ms[0].ID, Kind: ms[0].Kind, Importance: 0.5, Confidence: 0.5,
			Before: ms[0].Text, After: "use pnpm, never npm",
			Replacement: &store.Replacement{Text: "use pnpm, never npm", Vector: storetest.Vec(0, 0.1)}})
		return err
	}))
	waiting, err = s.Unembedded(ctx, store.UnembeddedQuery{Embedder: other, Project: p.Key, After: uuid.Nil, Limit: 10})
	require.NoError(t, err)
	require.ElementsMatch(t, []uuid.UUID{ms[0].ID, ms[2].ID}, []uuid.UUID{waiting[0].ID, waiting[1].ID})
	hits, err = s.Nearest(ctx, store.VectorQuery{Vector: storetest.Vec(0, 0.1), Scopes: []store.ScopeRef{p}, Limit: 1})
	require.NoError(t, err)
	require.Equal(t, ms[0].ID, hits[0].ID)
	require.InDelta(t, 1, hits[0].Similarity, 1e-6, "the fold stored the new text's vector")

	// A vector computed from a text that changed since is not stored.
	require.Zero(t, putOther(t, s, ms[:1], []store.Vector{otherVec(1, 0, 0, 0)}), "ms[0] still carries its old text")

	// Archiving reaches the vectors: an archived row is no neighbour unless asked for.
	_, err = s.SetArchived(ctx, store.ArchiveParams{ID: ms[1].ID, Archived: true, Reason: "test", Actor: "t"})
	require.NoError(t, err)
	hits, err = s.Nearest(ctx, store.VectorQuery{Vector: otherVec(0, 1, 0, 0), Scopes: []store.ScopeRef{p}, Limit: 10})
	require.NoError(t, err)
	require.Empty(t, hits)
	hits, err = s.Nearest(ctx, store.VectorQuery{Vector: otherVec(0, 1, 0, 0), Scopes: []store.ScopeRef{p}, Limit: 10, IncludeArchived: true})
	require.NoError(t, err)
	require.Len(t, hits, 1)

	counts, err := s.Counts(ctx)
	require.NoError(t, err)
	require.Equal(t, map[string]int64{storetest.Embedder: 2}, counts.ByEmbedder, "live rows with a vector of each embedder")

	// An export carries each memory's vector of the embedder its text was written with.
	var exported []store.ExportRecord
	require.NoError(t, s.Export(ctx, p, func(r store.ExportRecord) error { exported = append(exported, r); return nil }))
	require.Len(t, exported, 3)
	for _, r := range exported {
		require.Equal(t, storetest.Embedder, r.Vector.Embedder)
		require.Len(t, r.Vector.Values, storetest.Dims)
	}
	_, err = pool.Exec(ctx, `DELETE FROM memory_vectors WHERE memory_id = $1`, ms[2].ID)
	require.NoError(t, err)
	err = s.Export(ctx, p, func(store.ExportRecord) error { return nil })
	require.ErrorContains(t, err, "memory "+ms[2].ID.String()+" holds no vector to export", "no memory is left out silently")

	// Bad input names the embedder and changes nothing.
	_, err = s.PutVectors(ctx, other, []store.Embedded{{ID: ms[2].ID, Hash: pgstore.TextHash(ms[2].Text), Vector: storetest.Vec(0, 0)}})
	require.ErrorContains(t, err, "has a vector of "+storetest.Embedder)
	_, err = s.PutVectors(ctx, other, []store.Embedded{{ID: ms[2].ID, Hash: pgstore.TextHash(ms[2].Text), Vector: otherVec(1, 0)}})
	require.ErrorContains(t, err, "vector has 2 values, want 4")
}

// TestExclusiveRunsOnOneSessionAtATime: while one host holds a job's lock, another skips.
func TestExclusiveRunsOnOneSessionAtATime(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, dsn := testdb.Migrated(t)
	otherPool, err := pgxpool.New(ctx, dsn)
	require.NoError(t, err)
	t.Cleanup(otherPool.Close)
	a, b := pgstore.New(pool), pgstore.New(otherPool)
	ran, err := a.WithExclusive(ctx, "job", func() error {
		inner, err := b.WithExclusive(ctx, "job", func() error { return fmt.Errorf("must not run") })
		require.NoError(t, err)
		require.False(t, inner)
		return nil
	})
	require.NoError(t, err)
	require.True(t, ran)
	ran, err = b.WithExclusive(ctx, "job", func() error { return nil })
	require.NoError(t, err)
	require.True(t, ran, "the lock is released after the run")
}

// TestMigration0012MovesVectorsLosslessly upgrades a database as the previous release left it
// (vectors in memories.embedding, scope graphs over it, a deferred row, a row set aside, an
// archived row) and finds every vector in memory_vectors, searchable through the store.
func TestMigration0012MovesVectorsLosslessly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, testdb.Schema(t))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	all, err := migrate.All()
	require.NoError(t, err)
	last := 0
	for _, m := range all {
		if m.Version < 12 {
			last = m.Version
		}
	}
	applyUpTo(t, pool, last)

	// As the previous release wrote them: 40 rows in one project (a graph of its own), one
	// deferred, one archived, and one a bad import set aside; two globals of another embedder.
	_, err = pool.Exec(ctx, `
		INSERT INTO embedder_dimensions VALUES ('`+storetest.Embedder+`', 16), ('`+other+`', 4);
		INSERT INTO memories (id, scope, scope_key, kind, text, text_hash, embedder, embedding, seq, ann_deferred, archived_at)
		SELECT gen_random_uuid(), 'project', 'p', 'fact', 'fact ' || g, sha256(('fact ' || g)::bytea), '`+storetest.Embedder+`',
			(SELECT array_agg(sin(g * 16 + d)::real) FROM generate_series(1, 16) d)::vector, g, g = 7,
			CASE WHEN g = 9 THEN now() END
		FROM generate_series(1, 40) g;
		INSERT INTO memories (id, scope, scope_key, kind, text, text_hash, embedder, embedding, seq)
		SELECT gen_random_uuid(), 'global', '', 'preference', 'tabs ' || g, sha256(('tabs ' || g)::bytea), '`+other+`',
			ARRAY[g, 1, 0, 0]::real[]::vector, 100 + g FROM generate_series(1, 2) g;
		CREATE INDEX memories_graph_0123456789abcdef ON memories USING hnsw ((embedding::vector(16)) vector_cosine_ops)
			WHERE embedder = '`+storetest.Embedder+`' AND scope = 'project' AND scope_key = 'p' AND NOT ann_deferred;
		ALTER TABLE memories DISABLE TRIGGER memories_check_dimensions;
		INSERT INTO memories (id, scope, scope_key, kind, text, text_hash, embedder, embedding, seq, ann_deferred, ann_error)
		VALUES (gen_random_uuid(), 'project', 'p', 'fact', 'bad', sha256('bad'), '`+storetest.Embedder+`', '[1,0,0]', 200, true,
			'vector has 3 dimensions; embedder suite-v1-16 stores 16');
		ALTER TABLE memories ENABLE TRIGGER memories_check_dimensions`)
	require.NoError(t, err)
	var before string
	require.NoError(t, pool.QueryRow(ctx, `SELECT string_agg(id::text || embedder || embedding::text || coalesce(ann_error, '-'), ',' ORDER BY id)
		FROM memories`).Scan(&before))

	applied, err := migrate.Up(ctx, pool)
	require.NoError(t, err)
	require.Equal(t, "0012_memory_vectors", applied[0].Name)

	var after string
	require.NoError(t, pool.QueryRow(ctx, `SELECT string_agg(memory_id::text || embedder || embedding::text || coalesce(ann_error, '-'), ',' ORDER BY memory_id)
		FROM memory_vectors`).Scan(&after))
	require.Equal(t, before, after, "every vector moved over as it was")
	var deferred, archived, graphs int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE ann_deferred), count(*) FILTER (WHERE archived),
		(SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema() AND indexname LIKE 'memories_graph_%') FROM memory_vectors`).Scan(&deferred, &archived, &graphs))
	require.Equal(t, 1, deferred, "only the row set aside stays out of the graphs")
	require.Equal(t, 1, archived)
	require.Zero(t, graphs, "the old graphs went with the column; the host builds new ones")

	s := pgstore.New(pool, pgstore.WithGraphMinRows(10))
	require.NoError(t, s.EnsureVectorIndex(ctx, storetest.Embedder, storetest.Dims))
	var target store.Memory
	ms, err := s.List(ctx, store.ListQuery{Scopes: []store.ScopeRef{store.Project("p")}, Limit: 100})
	require.NoError(t, err)
	for _, m := range ms {
		if m.Text == "fact 12" {
			target = m
		}
	}
	var vecText string
	require.NoError(t, pool.QueryRow(ctx, `SELECT embedding::text FROM memory_vectors WHERE memory_id = $1`, target.ID).Scan(&vecText))
	q := storetest.Vec(0, 0)
	require.NoError(t, json.Unmarshal([]byte(vecText), &q.Values), "pgvector's text form is a JSON array")
	search := func() {
		t.Helper()
		hits, err := s.Nearest(ctx, store.VectorQuery{Vector: q, Scopes: []store.ScopeRef{store.Project("p")}, Limit: 3})
		require.NoError(t, err)
		require.NotEmpty(t, hits)
		require.Equal(t, target.ID, hits[0].ID)
	}
	search() // exact scan: no graph yet
	built, err := s.IndexScopes(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, built, "the project's graph is built again, over memory_vectors")
	search()
	hits, err := s.Nearest(ctx, store.VectorQuery{Vector: otherVec(2, 1, 0, 0), Scopes: []store.ScopeRef{store.Global}, Limit: 3})
	require.NoError(t, err)
	require.Len(t, hits, 2, "the other embedder's vectors moved too")
}
