package pgstore_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/core/store/storetest"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
)

// TestFilterSQLMatchesMatch: a listing filtered in the store keeps exactly the memories
// store.Filter.Match keeps, for every origin, pinned, superseded and archive reason group, so
// the console's search (Match over ranked hits) and its listing (SQL) filter alike.
func TestFilterSQLMatchesMatch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := testdb.Migrated(t)
	s := pgstore.New(pool)
	require.NoError(t, s.EnsureVectorIndex(ctx, storetest.Embedder, storetest.Dims))
	sources := []string{"mcp", "rest", "extracted", "import", "import-cli:CLAUDE.md", "instructions", "proposal", ""}
	var ids []uuid.UUID
	for i := range 24 {
		w := storetest.NewWrite("p", fmt.Sprintf("fact number %d about the build", i), storetest.Vec(i%8, float64(i)/30))
		w.Provenance.Source = sources[i%len(sources)]
		w.Pinned = i%5 == 0
		w.Provenance.Session = []string{"s-1", "s-2", ""}[i%3]
		m, err := storetest.Insert(ctx, s, w)
		require.NoError(t, err)
		ids = append(ids, m.ID)
	}
	run := func(sql string, args ...any) {
		_, err := pool.Exec(ctx, sql, args...)
		require.NoError(t, err)
	}
	run(`UPDATE memories SET metadata = jsonb_set(metadata, '{merged_from}', '[{"text":"an absorbed fact","at":"2026-01-01T00:00:00Z"}]') WHERE id = ANY($1)`, []uuid.UUID{ids[1], ids[2], ids[9]})
	run(`UPDATE memories SET superseded_by = $1 WHERE id = ANY($2)`, ids[0], []uuid.UUID{ids[3], ids[4]})
	for i, reason := range map[int]string{5: "stale", 6: store.MergedIntoReason(ids[7]), 10: "conflict " + ids[11].String(), 12: "no longer true", 13: ""} {
		_, err := s.SetArchived(ctx, store.ArchiveParams{ID: ids[i], Archived: true, Reason: reason, Actor: "test"})
		require.NoError(t, err)
	}

	all, err := s.List(ctx, store.ListQuery{Scopes: []store.ScopeRef{store.Project("p")}, IncludeArchived: true, Limit: 100})
	require.NoError(t, err)
	require.Len(t, all, 24)
	var filters []store.Filter
	for _, o := range append([]store.Origin{store.OriginAny}, store.Origins...) {
		for _, reason := range []string{"", "stale", "merged into", "conflict", "no longer true"} {
			filters = append(filters, store.Filter{Origin: o, ArchivedReason: reason}, store.Filter{Origin: o, ArchivedReason: reason, Pinned: true},
				store.Filter{Origin: o, ArchivedReason: reason, Superseded: true}, store.Filter{Origin: o, ArchivedReason: reason, Archived: true}, store.Filter{Origin: o, ArchivedReason: reason, Session: "s-2"})
		}
	}
	nonEmpty := 0
	for _, f := range filters {
		got, err := s.List(ctx, store.ListQuery{Scopes: []store.ScopeRef{store.Project("p")}, IncludeArchived: true, Filter: f, Limit: 100})
		require.NoError(t, err)
		want := []uuid.UUID{}
		for _, m := range all {
			if f.Match(m) {
				want = append(want, m.ID)
			}
		}
		gotIDs := make([]uuid.UUID, len(got))
		for i, m := range got {
			gotIDs[i] = m.ID
		}
		require.Equal(t, want, gotIDs, "%+v", f)
		if len(want) > 0 {
			nonEmpty++
		}
	}
	require.Greater(t, nonEmpty, 20, "the fixture exercises most filters")
	require.True(t, slices.ContainsFunc(all, func(m store.Memory) bool { return store.Filter{Origin: store.OriginImported}.Match(m) }))
}
