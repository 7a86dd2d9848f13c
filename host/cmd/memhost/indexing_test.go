package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/daemon/server"
)

// TestIndexingKnobs: memory.graph_min_rows, memory.index_quiet and memory.index_max_wait
// reach the background work of a host. A project of 120 memories gets a graph of its own at
// graph_min_rows = 100 (the default, 1000, would scan it exactly), and writes to it wait for
// the indexer; a host told to wait a minute for quiet leaves them waiting, one that may wait
// at most a second moves them.
func TestIndexingKnobs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path, _ := brainConfig(t, "127.0.0.1:1")
	const knobs = "[memory]\ngraph_min_rows = 100\nindex_quiet = \"1m\"\nindex_max_wait = \"%s\"\n"
	appendConfig(t, path, fmt.Sprintf(knobs, "1h"))
	const project = "github.com/acme/indexing"
	access := memory.Access{Project: project, Actor: "test"}
	store := func(c *server.Core, from, to int) {
		for i := from; i < to; i++ {
			_, err := c.Service.Store(ctx, access, memory.StoreRequest{
				Text: fmt.Sprintf("Service svc-%d listens on port %d behind the gateway.", i, 9000+i)})
			require.NoError(t, err)
		}
	}
	deferred := func(c *server.Core) int {
		var n int
		require.NoError(t, c.Pool.QueryRow(ctx, `SELECT count(*) FROM memory_vectors WHERE ann_deferred`).Scan(&n))
		return n
	}

	core := openCore(t, path)
	store(core, 0, 120)
	bg := core.Background()
	require.NoError(t, bg.Start(ctx))
	require.Eventually(t, func() bool {
		var graphs int
		// Valid: a graph being built concurrently is listed before it is done.
		require.NoError(t, core.Pool.QueryRow(ctx, `SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
			WHERE i.indrelid = 'memory_vectors'::regclass AND i.indisvalid AND c.relname LIKE 'memories_graph_%'`).Scan(&graphs))
		return graphs == 1
	}, 30*time.Second, 50*time.Millisecond, "a project past graph_min_rows gets its graph")
	status, err := core.Status(ctx, true)
	require.NoError(t, err)
	require.EqualValues(t, 1, status.Memories.Graphs)
	require.Positive(t, status.Memories.GraphBytes)
	require.Positive(t, status.Memories.TableBytes)
	var out strings.Builder
	printStatus(&out, status, "test")
	require.Regexp(t, `storage: +[0-9.]+ [KM]iB of memories, [0-9.]+ [KM]iB in 1 graphs; shared_buffers [0-9.]+ [MG]iB`, out.String(), "memhost status shows what to keep in memory")
	store(core, 120, 130)
	time.Sleep(time.Second)
	require.Equal(t, 10, deferred(core), "writes to the graph wait for index_quiet after the last call")
	require.NoError(t, bg.Stop(ctx))

	body, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(body), fmt.Sprintf(knobs, "1h"), fmt.Sprintf(knobs, "1s"), 1)), 0o600))
	core = openCore(t, path)
	_, err = core.Service.Search(ctx, access, memory.SearchRequest{Query: "gateway"})
	require.NoError(t, err)
	bg = core.Background()
	require.NoError(t, bg.Start(ctx))
	t.Cleanup(func() { require.NoError(t, bg.Stop(ctx)) })
	require.Eventually(t, func() bool { return deferred(core) == 0 }, 5*time.Second, 50*time.Millisecond,
		"a host that never gets quiet enough still indexes every index_max_wait")
}

// appendConfig adds lines to the end of a config file.
func appendConfig(t *testing.T, path, lines string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(lines)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}
