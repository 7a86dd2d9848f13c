package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/shortid"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/embedder/embeddertest/openaifake"
)

// slowModel is how long the fake runtime takes per call in these tests: far more than any
// write may wait (memory.embed_wait, 10 ms by default), as a local CPU model on a busy laptop.
const slowModel = 1500 * time.Millisecond

// openSlow is a host whose dense embedder is the fake runtime at url, probed for health
// rarely enough that a probe of a slow model is not a failure.
func openSlow(t *testing.T, dsn, url string) *denseHost {
	t.Helper()
	h, err := openHost(t, dsn, fmt.Sprintf("[plugins]\ndirs = [%q]\nhealth_interval = \"30s\"\n", testplugins.Dense(t))+endpoint(url))
	require.NoError(t, err)
	return h
}

// withID is the SQL condition on column that a short id (shortid.Of: the last digits) names.
const withID = `::text LIKE '%' || $1`

// TestAWriteDoesNotWaitForASlowEmbedder: with a dense embedder that takes seconds a call,
// `memhost memory add` answers long before it would have, saying the vector follows; search
// finds the new memory by its words at once; a restatement written before either vector
// exists folds into it, decided by the statement check, while a fact differing in one number
// does not; and within seconds the vector is stored, so a question sharing no word with the
// fact finds it.
func TestAWriteDoesNotWaitForASlowEmbedder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := openaifake.Start(t, openaifake.Options{Model: "nomic-embed-text", Latency: slowModel})
	h := openSlow(t, testdb.Schema(t), srv.URL())
	bg := h.core.Background()
	require.NoError(t, bg.Start(ctx))
	t.Cleanup(func() { require.NoError(t, bg.Stop(ctx)) })
	add := func(text string) (string, time.Duration) {
		t.Helper()
		start := time.Now()
		out, err := run(t, "memory", "add", text, "--config", h.cfg, "--project", cliProject, "--token", h.token)
		require.NoError(t, err, out)
		return out, time.Since(start)
	}
	vectors := func(id string) int {
		var n int
		require.NoError(t, h.core.Pool.QueryRow(ctx, `SELECT count(*) FROM memory_vectors WHERE memory_id`+withID, id).Scan(&n))
		return n
	}

	out, took := add("Don't write specs unless asked.")
	require.Less(t, took, slowModel, "the write did not wait for the embedder: %s", out)
	require.Contains(t, out, "its vector follows in the background")
	id := storedID(t, out)
	require.Zero(t, vectors(id), "stored before its vector")

	ans := h.search(t, "specs")
	require.NotEmpty(t, ans.Results)
	require.Equal(t, id, shortid.Of(ans.Results[0].ID), "found by its words before its vector exists")

	out, took = add("Remember that we don't write specs unless asked.")
	require.Less(t, took, slowModel, out)
	require.Contains(t, out, "folded into memory "+id+" (the same statement)", "a restatement folds before any vector exists")
	out, _ = add("The API listens on port 8080.")
	port := storedID(t, out)
	out, _ = add("The API listens on port 8081.")
	require.Contains(t, out, "stored as memory", "another number is another fact, vector or not")
	require.NotEqual(t, port, storedID(t, out))

	require.Eventually(t, func() bool { return vectors(id) == 1 && vectors(port) == 1 }, 4*slowModel, 100*time.Millisecond,
		"the vectors follow the writes")
	ans = h.search(t, "should I add tests for my change")
	require.NotEmpty(t, ans.Results)
	require.Equal(t, id, shortid.Of(ans.Results[0].ID), "a question sharing no word with the fact finds it by its vector")
}

// TestAVectorLostWithItsHostFollowsAfterRestart: a write stored before its vector, on a host
// that stops before the vector comes (its queue is only in memory, as after a kill -9), keeps
// its text; the next host to start gives it its vector (the re-embed job runs at start).
func TestAVectorLostWithItsHostFollowsAfterRestart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := testdb.Schema(t)
	srv := openaifake.Start(t, openaifake.Options{Model: "nomic-embed-text", Latency: slowModel})
	h := openSlow(t, dsn, srv.URL())
	bg := h.core.Background()
	require.NoError(t, bg.Start(ctx))
	out, err := run(t, "memory", "add", "Prefer fakes over mocks.", "--config", h.cfg, "--project", cliProject, "--token", h.token)
	require.NoError(t, err, out)
	require.Contains(t, out, "its vector follows in the background")
	id := storedID(t, out)
	// The host goes away while the embedder is still working on the text.
	stopped, cancel := context.WithTimeout(ctx, 0)
	defer cancel()
	_ = bg.Stop(stopped)
	h.close()

	h = openSlow(t, dsn, srv.URL())
	var n int
	require.NoError(t, h.core.Pool.QueryRow(ctx, `SELECT count(*) FROM memories WHERE id`+withID, id).Scan(&n))
	require.Equal(t, 1, n, "the acknowledged write is there")
	require.NoError(t, h.core.Pool.QueryRow(ctx, `SELECT count(*) FROM memory_vectors WHERE memory_id`+withID, id).Scan(&n))
	require.Zero(t, n, "its vector went with the host")
	bg = h.core.Background()
	require.NoError(t, bg.Start(ctx))
	t.Cleanup(func() { require.NoError(t, bg.Stop(ctx)) })
	require.Eventually(t, func() bool {
		require.NoError(t, h.core.Pool.QueryRow(ctx, `SELECT count(*) FROM memory_vectors WHERE memory_id`+withID, id).Scan(&n))
		return n == 1
	}, 60*time.Second, 200*time.Millisecond, "the next host gives it its vector")
	ans := h.search(t, "should I use mockk")
	require.NotEmpty(t, ans.Results)
	require.Equal(t, id, shortid.Of(ans.Results[0].ID))
}
