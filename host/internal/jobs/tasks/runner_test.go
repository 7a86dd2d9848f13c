package tasks_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memhost/memhost/host/internal/wire"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/jobs/tasks"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/worker"
)

const mergeSchema = `{"type":"object","required":["text"],"properties":{"text":{"type":"string"}},"additionalProperties":false}`

type env map[string]string

func (e env) lookup(k string) (string, bool) { v, ok := e[k]; return v, ok }

// open starts a Runner over the real worker plugins with cfg's [workers] and [tasks].
func open(t *testing.T, mutate func(*config.Config), lookPath func(string) (string, error), environ env) (*tasks.Runner, *pgxpool.Pool, *prometheus.Registry) {
	t.Helper()
	pool, _ := testdb.Migrated(t)
	cfg := config.Default()
	cfg.Plugins.Dirs = []string{testplugins.Workers(t)}
	cfg.Log.Level = "error"
	mutate(cfg)
	require.Empty(t, cfg.Validate())
	if lookPath == nil {
		lookPath = func(string) (string, error) { return "", exec.ErrNotFound }
	}
	reg := prometheus.NewRegistry()
	r, err := tasks.Open(t.Context(), tasks.Options{Config: cfg, Pool: pool, Log: slog.New(slog.DiscardHandler),
		Registerer: reg, LookPath: lookPath, Environ: environ.lookup})
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, r.Close(ctx))
	})
	return r, pool, reg
}

func openaiWorker(base, model string) config.Worker {
	return config.Worker{Plugin: "openaicompat", BaseURL: base + "/v1", Model: model, APIKeyEnv: "LOCAL_KEY"}
}

func mergeTask() worker.Task {
	return worker.Task{Instructions: "Merge these memories into one.", Input: "1. We use pnpm.\n2. Never npm.", Schema: mergeSchema}
}

type row struct {
	Task, Worker, Model, Outcome string
	In, Out, BytesIn, BytesOut   int
}

func calls(t *testing.T, pool *pgxpool.Pool) []row {
	t.Helper()
	rows, err := pool.Query(t.Context(), `SELECT task, worker, model, outcome, input_tokens, output_tokens, bytes_in, bytes_out FROM worker_calls ORDER BY id`)
	require.NoError(t, err)
	defer rows.Close()
	var out []row
	for rows.Next() {
		var r row
		require.NoError(t, rows.Scan(&r.Task, &r.Worker, &r.Model, &r.Outcome, &r.In, &r.Out, &r.BytesIn, &r.BytesOut))
		out = append(out, r)
	}
	require.NoError(t, rows.Err())
	return out
}

// TestChainFallsBackToTheNextWorker: the first worker of the chain fails (its model does not
// exist), the second answers; both calls are recorded without their text and counted; after
// three failures the first worker is backed off and no longer called.
func TestChainFallsBackToTheNextWorker(t *testing.T) {
	t.Parallel()
	api := testplugins.NewOpenAI(t, "sk-test-key", `{"text":"Use pnpm, never npm."}`)
	r, pool, reg := open(t, func(c *config.Config) {
		c.Workers.Defined = map[string]config.Worker{"gone": openaiWorker(api.URL, "gone"), "local": openaiWorker(api.URL, "good")}
		c.Workers.Chains = map[string][]string{"merge": {"gone", "local"}}
	}, nil, env{"LOCAL_KEY": "sk-test-key"})

	a, call, err := r.Run(t.Context(), worker.TaskMerge, mergeTask())
	require.NoError(t, err)
	require.JSONEq(t, `{"text":"Use pnpm, never npm."}`, string(a.JSON))
	require.Equal(t, "local", call.Worker)
	require.Equal(t, tasks.OK, call.Outcome)
	require.Equal(t, 120, call.InputTokens)
	require.Equal(t, 9, call.OutputTokens)

	got := calls(t, pool)
	require.Len(t, got, 2)
	require.Equal(t, row{Task: "merge", Worker: "gone", Model: "gone", Outcome: "unavailable", BytesIn: got[0].BytesIn}, got[0])
	require.Equal(t, row{Task: "merge", Worker: "local", Model: "good", Outcome: "ok", In: 120, Out: 9,
		BytesIn: len(mergeTask().Instructions) + len(mergeTask().Input) + len(mergeSchema), BytesOut: len(`{"text":"Use pnpm, never npm."}`)}, got[1])

	for range 3 {
		_, call, err = r.Run(t.Context(), worker.TaskMerge, mergeTask())
		require.NoError(t, err)
		require.Equal(t, "local", call.Worker)
	}
	gone := 0
	for _, c := range calls(t, pool) {
		if c.Worker == "gone" {
			gone++
		}
	}
	require.Equal(t, 3, gone, "after three failures the worker is backed off, not called again")

	st, err := r.Status(t.Context())
	require.NoError(t, err)
	require.Empty(t, st.Skipped)
	require.Len(t, st.Workers, 2)
	require.Equal(t, "gone", st.Workers[0].Name)
	require.NotNil(t, st.Workers[0].BackedOffUntil)
	require.Equal(t, 3, st.Workers[0].Day.Calls)
	require.Zero(t, st.Workers[0].Day.SuccessRate)
	require.Equal(t, "local", st.Workers[1].Name)
	require.Equal(t, "ready", st.Workers[1].State)
	require.Equal(t, "local", st.Workers[1].Locality)
	require.Equal(t, wire.Rollup{Calls: 4, OK: 4, SuccessRate: 1, P50Ms: st.Workers[1].Day.P50Ms, P95Ms: st.Workers[1].Day.P95Ms,
		InputTokens: 480, OutputTokens: 36, TimeMs: st.Workers[1].Day.TimeMs}, st.Workers[1].Day)
	require.Equal(t, []string{"gone", "local"}, st.Tasks[0].Chain)

	require.Equal(t, 4.0, counter(t, reg, "memhost_worker_calls_total", "outcome=ok,task=merge,worker=local"))
	require.Equal(t, 3.0, counter(t, reg, "memhost_worker_calls_total", "outcome=unavailable,task=merge,worker=gone"))
}

// counter reads one series of a gathered counter; labels are name=value pairs in name order.
func counter(t *testing.T, reg *prometheus.Registry, name, labels string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			var pairs []string
			for _, lp := range m.GetLabel() {
				pairs = append(pairs, lp.GetName()+"="+lp.GetValue())
			}
			if strings.Join(pairs, ",") == labels {
				return m.GetCounter().GetValue()
			}
		}
	}
	t.Fatalf("no series %s{%s}", name, labels)
	return 0
}

// TestChainsChangeAtRuntime: a chain set at runtime is used from the next task; one that names
// an unknown worker or task kind is refused with the field named, and changes nothing.
func TestChainsChangeAtRuntime(t *testing.T) {
	t.Parallel()
	api := testplugins.NewOpenAI(t, "sk-test-key", `{"text":"merged"}`)
	r, pool, _ := open(t, func(c *config.Config) {
		c.Workers.Defined = map[string]config.Worker{"gone": openaiWorker(api.URL, "gone"), "local": openaiWorker(api.URL, "good")}
		c.Workers.Chains = map[string][]string{"merge": {"gone", "local"}}
	}, nil, env{"LOCAL_KEY": "sk-test-key"})
	require.NoError(t, r.SetChain("merge", []string{"local"}))
	_, call, err := r.Run(t.Context(), worker.TaskMerge, mergeTask())
	require.NoError(t, err)
	require.Equal(t, "local", call.Worker)
	require.Len(t, calls(t, pool), 1, "the old chain's first worker was not called")

	var fe *rules.FieldError
	require.ErrorAs(t, r.SetChain("merge", []string{"local", "nope"}), &fe)
	require.Equal(t, "workers", fe.Field)
	require.Contains(t, fe.Message, `names "nope", which is not a defined worker (defined: gone, local)`)
	require.ErrorAs(t, r.SetChain("summarise", []string{"local"}), &fe)
	require.Equal(t, "task", fe.Field)
	require.Equal(t, []string{"local"}, r.Chain(worker.TaskMerge))
}

// TestDailyBudgetMakesTheKindWait: a task kind that spent its daily tokens waits, visibly.
func TestDailyBudgetMakesTheKindWait(t *testing.T) {
	t.Parallel()
	api := testplugins.NewOpenAI(t, "sk-test-key", `{"text":"merged"}`)
	r, _, _ := open(t, func(c *config.Config) {
		c.Workers.Defined = map[string]config.Worker{"local": openaiWorker(api.URL, "good")}
		c.Tasks.DailyTokens = 100
	}, nil, env{"LOCAL_KEY": "sk-test-key"})
	_, _, err := r.Run(t.Context(), worker.TaskMerge, mergeTask())
	require.NoError(t, err)
	chats := api.Chats.Load()
	_, _, err = r.Run(t.Context(), worker.TaskMerge, mergeTask())
	require.ErrorIs(t, err, tasks.ErrWaiting)
	require.ErrorContains(t, err, "129 tokens used, tasks.daily_tokens is 100")
	require.Equal(t, chats, api.Chats.Load(), "no worker was called")
	_, _, err = r.Run(t.Context(), worker.TaskExtract, worker.Task{Instructions: "x", Input: "y"})
	require.NoError(t, err, "another kind has its own budget")

	st, err := r.Status(t.Context())
	require.NoError(t, err)
	require.Equal(t, "merge", st.Tasks[0].Task)
	require.Equal(t, "129 tokens used, tasks.daily_tokens is 100", st.Tasks[0].Waiting)
}

// TestDefaultChainIsTheAgentCLIsOnPath: with no worker configured, the agent CLIs on the
// host's PATH are the workers. The CLI gets its own login variable and nothing else of the
// host's environment, not another CLI's key.
func TestDefaultChainIsTheAgentCLIsOnPath(t *testing.T) {
	t.Setenv("MEMHOST_DATABASE_URL", "postgres://memhost:not-a-real-password@db.invalid/memhost")
	t.Setenv("HOST_ONLY_SECRET", "not-for-workers")
	dir := fakeClaude(t, `{"text":"Use pnpm."}`)
	testplugins.Workers(t) // built with the go command on the real PATH
	// The fake claude is the only agent CLI on PATH; the system folders hold what it and the
	// test database's scripts run.
	t.Setenv("PATH", strings.Join([]string{dir, "/usr/sbin", "/usr/bin", "/sbin", "/bin"}, string(os.PathListSeparator)))
	r, pool, _ := open(t, func(*config.Config) {}, exec.LookPath, env{"ANTHROPIC_API_KEY": "ant-test", "OPENAI_API_KEY": "codex-key"})
	require.Equal(t, []string{"claude"}, r.Workers())
	require.Equal(t, []string{"claude"}, r.Chain(worker.TaskGatekeeper))

	res, err := r.Try(t.Context(), "merge", "")
	require.NoError(t, err)
	require.Empty(t, res.Error)
	require.Equal(t, "claude", res.Worker)
	require.Equal(t, "claude-fake-1", res.Model)
	require.Equal(t, 40, res.InputTokens)
	require.Equal(t, 12, res.OutputTokens)
	require.JSONEq(t, `{"text":"Use pnpm."}`, string(res.Result))
	require.Len(t, calls(t, pool), 1)

	data, err := os.ReadFile(filepath.Join(dir, "env"))
	require.NoError(t, err)
	cliEnv := string(data)
	require.Contains(t, cliEnv, "ANTHROPIC_API_KEY=ant-test\n")
	require.NotContains(t, cliEnv, "OPENAI_API_KEY")
	require.NotContains(t, cliEnv, "HOST_ONLY_SECRET")
	require.NotContains(t, cliEnv, "not-a-real-password")
}

// TestNoWorkerSkipsTasks: no CLI and no endpoint: tasks are skipped and status says why.
func TestNoWorkerSkipsTasks(t *testing.T) {
	t.Parallel()
	r, _, _ := open(t, func(*config.Config) {}, nil, env{})
	_, _, err := r.Run(t.Context(), worker.TaskMerge, mergeTask())
	require.True(t, errors.Is(err, tasks.ErrNoWorker), err)
	st, err := r.Status(t.Context())
	require.NoError(t, err)
	require.Contains(t, st.Skipped, "no agent CLI (claude, gemini, codex) is on the host's PATH; LLM tasks are skipped")
	require.Empty(t, st.Workers)
	res, err := r.Try(t.Context(), "merge", "")
	require.NoError(t, err)
	require.Equal(t, "no LLM worker is configured or found", res.Error)
}

// TestWorkerDailyBudgetPassesItOver: a worker that spent its daily_tokens is passed over for the
// next one of the chain, and not called.
func TestWorkerDailyBudgetPassesItOver(t *testing.T) {
	t.Parallel()
	api := testplugins.NewOpenAI(t, "", `{"text":"merged"}`)
	capped := openaiWorker(api.URL, "good")
	capped.APIKeyEnv, capped.DailyTokens = "", 100
	other := openaiWorker(api.URL, "good")
	other.APIKeyEnv = ""
	r, pool, _ := open(t, func(c *config.Config) {
		c.Workers.Defined = map[string]config.Worker{"capped": capped, "other": other}
		c.Workers.Chains = map[string][]string{"merge": {"capped", "other"}}
	}, nil, env{})
	for _, want := range []string{"capped", "other"} {
		_, call, err := r.Run(t.Context(), worker.TaskMerge, mergeTask())
		require.NoError(t, err)
		require.Equal(t, want, call.Worker)
	}
	require.Len(t, calls(t, pool), 2)
	res, err := r.Try(t.Context(), "merge", "capped")
	require.NoError(t, err)
	require.Equal(t, []wire.Attempt{{Worker: "capped", Outcome: string(tasks.Skipped), Reason: "over its daily budget of 100 tokens"}}, res.Attempts)
}

// TestRunTimeoutEndsASlowWorker: one run may not outlast tasks.run_timeout, whatever the
// worker's own timeout; the call is recorded as a timeout.
func TestRunTimeoutEndsASlowWorker(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testplugins.WriteScript(t, filepath.Join(dir, "claude"), "#!/bin/sh\nexec sleep 30\n")
	r, pool, _ := open(t, func(c *config.Config) {
		c.Workers.Defined = map[string]config.Worker{"slow": {Plugin: "agentcli", CLI: "claude", CLIPath: filepath.Join(dir, "claude"), Timeout: time.Minute}}
		c.Tasks.RunTimeout = time.Second
	}, nil, env{})
	start := time.Now()
	_, _, err := r.Run(t.Context(), worker.TaskMerge, mergeTask())
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Less(t, time.Since(start), 10*time.Second)
	got := calls(t, pool)
	require.Len(t, got, 1)
	require.Equal(t, "timeout", got[0].Outcome)
}

// TestMissingPluginIsShown: a worker whose plugin binary is not in plugins.dirs is shown as
// missing, with the reason, and passed over.
func TestMissingPluginIsShown(t *testing.T) {
	t.Parallel()
	r, _, _ := open(t, func(c *config.Config) {
		c.Workers.Defined = map[string]config.Worker{"odd": {Plugin: "nosuch"}}
	}, nil, env{})
	_, _, err := r.Run(t.Context(), worker.TaskMerge, mergeTask())
	require.ErrorIs(t, err, tasks.ErrNoAnswer)
	require.ErrorContains(t, err, "odd skipped (plugin memhost-worker-nosuch is not in plugins.dirs)")
	st, err := r.Status(t.Context())
	require.NoError(t, err)
	require.Equal(t, "missing", st.Workers[0].State)
}
