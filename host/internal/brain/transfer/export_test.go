package transfer_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/brain/transfer"
	"github.com/memhost/memhost/host/internal/core/store"
)

// brokenExport hands over some records, then fails as a dropped connection would.
type brokenExport struct {
	store.Store
	after int
}

func (b brokenExport) Export(ctx context.Context, scope store.ScopeRef, fn func(store.ExportRecord) error) error {
	n := 0
	return b.Store.Export(ctx, scope, func(r store.ExportRecord) error {
		if n == b.after {
			return errors.New("connection lost")
		}
		n++
		return fn(r)
	})
}

func TestExportFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	_, err := b.importString(store.Project("p"), encode(t, "p", records(1200, "p")))
	require.NoError(t, err)

	t.Run("Complete", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "p.jsonl")
		n, err := transfer.ExportFile(ctx, b.store, store.Project("p"), path)
		require.NoError(t, err)
		require.Equal(t, 1200, n)
		raw, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Len(t, decode(t, string(raw)), 1200)
		entries, err := os.ReadDir(filepath.Dir(path))
		require.NoError(t, err)
		require.Len(t, entries, 1, "no temporary file is left beside the export")
	})
	t.Run("FailureLeavesNoFile", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		_, err := transfer.ExportFile(ctx, brokenExport{Store: b.store, after: 700}, store.Project("p"), filepath.Join(dir, "p.jsonl"))
		require.ErrorContains(t, err, "connection lost")
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		require.Empty(t, entries, "neither a partial export nor its temporary file is left behind")
	})
	t.Run("NeverOverwrites", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "p.jsonl")
		require.NoError(t, os.WriteFile(path, []byte("yesterday's backup\n"), 0o600))
		_, err := transfer.ExportFile(ctx, b.store, store.Project("p"), path)
		require.ErrorContains(t, err, "already exists; an export never overwrites a file")
		raw, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Equal(t, "yesterday's backup\n", string(raw))
	})
}
