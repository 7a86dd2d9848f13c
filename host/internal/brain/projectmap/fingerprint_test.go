package projectmap_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/brain/projectmap"
)

func TestFingerprintFollowsHeadAndShallowChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newGitRepo(t)
	r.commit(fixedNow.Add(-time.Hour), "One", map[string]string{"go.mod": "module x\n", "svc/go.mod": "module y\n", "svc/deep/a/b.go": ""})
	opts := gitOptions()
	m := build(t, r.root, opts)
	fp, err := projectmap.Fingerprint(ctx, r.root, opts)
	require.NoError(t, err)
	require.Equal(t, m.Fingerprint, fp, "Build records what Fingerprint computes")

	again, err := projectmap.Fingerprint(ctx, r.root, opts)
	require.NoError(t, err)
	require.Equal(t, fp, again)

	// A deep edit is not noticed (the map's shape does not depend on it)...
	require.NoError(t, os.WriteFile(filepath.Join(r.root, "svc/deep/a/b.go"), []byte("package b\n"), 0o644))
	same, err := projectmap.Fingerprint(ctx, r.root, opts)
	require.NoError(t, err)
	require.Equal(t, fp, same)

	// ...a manifest two levels down is.
	later := time.Now().Add(time.Minute)
	require.NoError(t, os.Chtimes(filepath.Join(r.root, "svc/go.mod"), later, later))
	changed, err := projectmap.Fingerprint(ctx, r.root, opts)
	require.NoError(t, err)
	require.NotEqual(t, fp, changed)

	// So is a new commit, even when the tree looks the same.
	r.git(fixedNow, "commit", "-q", "--allow-empty", "-m", "Two")
	moved, err := projectmap.Fingerprint(ctx, r.root, opts)
	require.NoError(t, err)
	require.NotEqual(t, changed, moved)

	_, err = projectmap.Fingerprint(ctx, filepath.Join(r.root, "missing"), opts)
	require.ErrorIs(t, err, projectmap.ErrNotDirectory)
}

func TestStale(t *testing.T) {
	t.Parallel()
	require.False(t, projectmap.Stale(fixedNow, fixedNow.Add(time.Hour), 2*time.Hour))
	require.True(t, projectmap.Stale(fixedNow, fixedNow.Add(3*time.Hour), 2*time.Hour))
	require.False(t, projectmap.Stale(fixedNow, fixedNow.Add(-projectmap.MaxClockSkew), 2*time.Hour),
		"a map from a clock a little ahead of ours is not stale")
	require.True(t, projectmap.Stale(fixedNow, fixedNow.Add(-projectmap.MaxClockSkew-time.Second), 2*time.Hour),
		"a map from further ahead must be rebuilt")
}
