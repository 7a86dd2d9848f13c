package maintenance

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
	sdkworker "github.com/memhost/memhost/sdk/worker"
)

// TestTheGatekeeperVetoesTaskStateAndFailsOpenWithinItsBudget: with the gatekeeper on, a write
// the chain judges not durable is not stored and the answer says why (not an error); a durable
// one is stored; and a chain that hangs, ignores its deadline, crashes, answers garbage or is
// missing lets the write through within the 500 ms budget.
func TestTheGatekeeperVetoesTaskStateAndFailsOpenWithinItsBudget(t *testing.T) {
	t.Parallel()
	pool, _ := testdb.Migrated(t)
	st := pgstore.New(pool)
	emb := embeddertest.Launch(t, testplugins.BM25(t))
	ask := &sessionScript{script: map[sdkworker.TaskKind]string{}, release: make(chan struct{})}
	t.Cleanup(func() { close(ask.release) })
	svc := memory.New(st, lexical.New(), memory.Fixed(emb), func(s string) (string, int) { return s, 0 }, memory.DefaultConfig(),
		memory.WithGatekeeper(Gatekeeper{Tasks: ask}))
	ctx := context.Background()

	ask.set(sdkworker.TaskGatekeeper, `{"durable":false,"reason":"progress on the current edit"}`)
	res, err := svc.Store(ctx, proj, memory.StoreRequest{Text: "Now editing line 412 of app.go, waiting for the build."})
	require.NoError(t, err, "a veto is an answer, not an error")
	require.Equal(t, "not stored: the gatekeeper judged it not durable: progress on the current edit", res.Vetoed)
	require.Equal(t, uuid.Nil, res.ID)
	var n int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM memories`).Scan(&n))
	require.Zero(t, n)
	require.Equal(t, "Now editing line 412 of app.go, waiting for the build.", ask.tasks(sdkworker.TaskGatekeeper)[0].Input)

	ask.set(sdkworker.TaskGatekeeper, `{"durable":true}`)
	res, err = svc.Store(ctx, proj, memory.StoreRequest{Text: "Backups run at 03:00 daily."})
	require.NoError(t, err)
	require.Empty(t, res.Vetoed)
	require.NotEqual(t, uuid.Nil, res.ID)

	for i, mode := range []string{"hang", "stuck", "crash", "garbage", ""} {
		if mode == "" {
			ask.mu.Lock()
			delete(ask.script, sdkworker.TaskGatekeeper) // no worker
			ask.mu.Unlock()
		} else {
			ask.set(sdkworker.TaskGatekeeper, mode)
		}
		start := time.Now()
		res, err := svc.Store(ctx, proj, memory.StoreRequest{Text: "Fact " + string(rune('A'+i)) + ": the deploy key lives in vault path ops/" + mode + "."})
		took := time.Since(start)
		require.NoError(t, err, mode)
		require.Empty(t, res.Vetoed, mode)
		require.NotEqual(t, uuid.Nil, res.ID, "%q fails open", mode)
		require.Less(t, took, GatekeeperBudget+time.Second, "%q: the write waited %s", mode, took)
	}
}

// TestAVetoReasonPassesTheWriteRules: the reason a gatekeeper model gives reaches the agent
// as an agent's text would be stored: a token in it redacted, escape sequences, line breaks
// and bidi overrides gone.
func TestAVetoReasonPassesTheWriteRules(t *testing.T) {
	t.Parallel()
	pool, _ := testdb.Migrated(t)
	ask := &sessionScript{script: map[sdkworker.TaskKind]string{}}
	svc := memory.New(pgstore.New(pool), lexical.New(), memory.Fixed(embeddertest.Launch(t, testplugins.BM25(t))), realRedactor(t),
		memory.DefaultConfig(), memory.WithGatekeeper(Gatekeeper{Tasks: ask}))
	tok := "ghp_" + strings.Repeat("Q7x", 12)
	reason, err := json.Marshal("it is task state\n\x1b[31mrun with " + tok + " \u202eyltnerruc\u202c")
	require.NoError(t, err)
	ask.set(sdkworker.TaskGatekeeper, `{"durable":false,"reason":`+string(reason)+`}`)
	res, err := svc.Store(context.Background(), proj, memory.StoreRequest{Text: "Now editing line 412 of app.go."})
	require.NoError(t, err)
	require.Equal(t, "not stored: the gatekeeper judged it not durable: it is task state [31mrun with [REDACTED:github-pat] yltnerruc", res.Vetoed)
}
