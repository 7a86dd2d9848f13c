package plugins_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/host/internal/plugins/embedders"
	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/plugin"
)

// TestReplaceThenAbortKeepsTheOldPlugins: a replacement set answers lookups until Abort, which
// stops it and brings the old set back, still serving.
func TestReplaceThenAbortKeepsTheOldPlugins(t *testing.T) {
	t.Parallel()
	s, b := setup(t, plugins.Config{})
	require.NoError(t, startAll(t, s, b.dir))
	old, err := s.Find(plugin.KindEmbedder, bm25Name)
	require.NoError(t, err)
	oldPID := status(t, s, bm25Name).PID

	cands, errs := plugins.Discover([]string{b.dir}, nil)
	require.Empty(t, errs)
	g, err := s.Replace(context.Background(), cands)
	require.NoError(t, err, "a new process may report the name the old one does")
	fresh, err := s.Find(plugin.KindEmbedder, bm25Name)
	require.NoError(t, err)
	require.NotSame(t, old, fresh)
	require.Len(t, s.List(), 1, "lookups see the new set only")
	freshPID := status(t, s, bm25Name).PID

	g.Abort()
	back, err := s.Find(plugin.KindEmbedder, bm25Name)
	require.NoError(t, err)
	require.Same(t, old, back)
	require.Equal(t, oldPID, status(t, s, bm25Name).PID)
	require.False(t, alive(freshPID), "the aborted set's process is stopped")
	_, err = embedders.List(s)[0].Embed(context.Background(), embedder.PurposeDocument, []string{"still serving"})
	require.NoError(t, err)
}

// TestReplaceThenCommitRetiresTheOldPlugins: a call holding an old plugin is served during the
// grace; afterwards the old process is stopped and forgotten.
func TestReplaceThenCommitRetiresTheOldPlugins(t *testing.T) {
	t.Parallel()
	s, b := setup(t, plugins.Config{})
	require.NoError(t, startAll(t, s, b.dir))
	old := embedders.List(s)[0]
	oldPID := status(t, s, bm25Name).PID

	cands, errs := plugins.Discover([]string{b.dir}, nil)
	require.Empty(t, errs)
	g, err := s.Replace(context.Background(), cands)
	require.NoError(t, err)
	g.Commit(time.Second)
	_, err = old.Embed(context.Background(), embedder.PurposeDocument, []string{"held before the swap"})
	require.NoError(t, err, "a call holding the old plugin is served during the grace")
	require.Eventually(t, func() bool { return !alive(oldPID) }, 30*time.Second, 20*time.Millisecond, "the old process is stopped")
	require.Len(t, s.List(), 1)
	require.NotEqual(t, oldPID, status(t, s, bm25Name).PID)
	_, err = embedders.List(s)[0].Embed(context.Background(), embedder.PurposeDocument, []string{"new set"})
	require.NoError(t, err)
}
