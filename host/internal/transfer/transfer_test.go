package transfer_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/store"
	"github.com/memhost/memhost/host/internal/store/pgstore"
	"github.com/memhost/memhost/host/internal/store/storetest"
	"github.com/memhost/memhost/host/internal/testdb"
	"github.com/memhost/memhost/host/internal/transfer"
)

func newStore(t *testing.T) *pgstore.Store {
	pool, _ := testdb.Migrated(t)
	s := pgstore.New(pool)
	require.NoError(t, s.EnsureVectorIndex(context.Background(), storetest.Embedder, storetest.Dims))
	return s
}

func TestRoundTripIsLosslessAndIdempotent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src, dst := newStore(t), newStore(t)
	for i := range 25 {
		_, err := src.Write(ctx, storetest.NewWrite("laptop/key", fmt.Sprintf("fact number %d", i), storetest.Vec(i, 0)))
		require.NoError(t, err)
	}
	folded, err := src.Write(ctx, storetest.NewWrite("laptop/key", "fact number 3, rephrased", storetest.Vec(3, 0.01)))
	require.NoError(t, err)
	require.True(t, folded.Folded)
	_, err = src.SetArchived(ctx, folded.Memory.ID, true, "old", "t")
	require.NoError(t, err)

	var buf bytes.Buffer
	n, err := transfer.Export(ctx, src, store.Project("laptop/key"), &buf)
	require.NoError(t, err)
	require.Equal(t, 16, n, "axes wrap at 16, so 9 writes folded; archived rows are exported too")
	exported := buf.String()

	res, err := transfer.Import(ctx, dst, store.Project("server/key"), strings.NewReader(exported), 16384)
	require.NoError(t, err)
	require.Equal(t, 16, res.Inserted)
	res, err = transfer.Import(ctx, dst, store.Project("server/key"), strings.NewReader(exported), 16384)
	require.NoError(t, err)
	require.Equal(t, store.ImportResult{Skipped: 16}, res)

	// Export the imported project again: same memories, same history (plus one import entry).
	var again bytes.Buffer
	_, err = transfer.Export(ctx, dst, store.Project("server/key"), &again)
	require.NoError(t, err)
	a, b := lines(exported), lines(again.String())
	require.Len(t, b, len(a))
	moved, err := dst.List(ctx, store.ListQuery{Scopes: []store.ScopeRef{store.Project("server/key")}, OnlyArchived: true})
	require.NoError(t, err)
	require.Len(t, moved, 1)
	got := moved[0]
	require.NotEqual(t, folded.Memory.ID, got.ID, "a memory moved to another project gets a derived id")
	want, err := src.Get(ctx, folded.Memory.ID)
	require.NoError(t, err)
	require.Equal(t, want.Text, got.Text)
	require.Equal(t, want.MergedFrom[0].Text, got.MergedFrom[0].Text)
	require.True(t, got.Archived())
	require.Equal(t, "server/key", got.ScopeKey)
	// Importing into its own project again keeps ids and skips what is there.
	res, err = transfer.Import(ctx, src, store.Project("laptop/key"), strings.NewReader(exported), 16384)
	require.NoError(t, err)
	require.Equal(t, store.ImportResult{Skipped: 16}, res)
	hw, _ := src.History(ctx, want.ID)
	hg, _ := dst.History(ctx, got.ID)
	require.Len(t, hg, len(hw)+1)
	require.Equal(t, store.EventImport, hg[len(hg)-1].Event)
}

func TestImportRejectsBadInputAndWritesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dst := newStore(t)
	header := `{"memhost_export":1,"scope":"project","project":"p","exported_at":"2026-01-01T00:00:00Z"}`
	good := `{"id":"01a1ffb4-fe0a-78e7-a83e-49c98eee12b6","scope":"project","kind":"fact","text":"ok","importance":0.5,"confidence":0.5,"provenance":{},"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","embedding":{"embedder":"suite-v1-16","dimensions":2,"values":[1,0]}}`
	for name, input := range map[string]string{
		"no header":     good,
		"future format": `{"memhost_export":99}` + "\n" + good,
		"unknown field": header + "\n" + strings.Replace(good, `"kind"`, `"colour":"red","kind"`, 1),
		"bad kind":      header + "\n" + strings.Replace(good, `"fact"`, `"rumour"`, 1),
		"dims mismatch": header + "\n" + strings.Replace(good, `"dimensions":2`, `"dimensions":3`, 1),
	} {
		_, err := transfer.Import(ctx, dst, store.Project("p"), strings.NewReader(input), 16384)
		require.Error(t, err, name)
	}
	c, err := dst.Counts(ctx)
	require.NoError(t, err)
	require.Zero(t, c.Live+c.Archived)
}

func lines(s string) []string { return strings.Split(strings.TrimSpace(s), "\n") }
