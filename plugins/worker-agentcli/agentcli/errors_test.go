package agentcli_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/plugins/worker-agentcli/agentcli"
	"github.com/memhost/memhost/sdk/worker"
)

func task(input, schema string) worker.Task {
	return worker.Task{
		Kind: worker.TaskSessionSummary, Instructions: "Summarise the input.", Input: input, Schema: schema,
		Deadline: time.Now().Add(time.Minute), TokenBudget: 4096,
	}
}

const summarySchema = `{"type":"object","required":["summary"],"properties":{"summary":{"type":"string"}}}`

// TestTypedErrors: each way a CLI fails reaches the host as one typed error
// with a message that says what happened.
func TestTypedErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		mode string
		want error
		says string
	}{
		{"is_error", worker.ErrUnavailable, "reported an error: API Error: 401 Invalid API key"},
		{"ratelimit", worker.ErrRateLimited, "reported an error: API Error: 429"},
		{"prose", worker.ErrBadAnswer, "it has text around it: Here is the result:"},
		{"ansi", worker.ErrBadAnswer, "terminal escape codes"},
		{"exit", worker.ErrUnavailable, "exited with exit status 3: fatal: not logged in"},
		{"badschema", worker.ErrBadAnswer, "does not satisfy the task's schema"},
	}
	for _, cli := range clis {
		for _, c := range cases {
			t.Run(string(cli)+"/"+c.mode, func(t *testing.T) {
				t.Parallel()
				w := newEnv(t).worker(cli, time.Minute)
				_, err := w.Run(t.Context(), task("FAKE:"+c.mode, summarySchema))
				require.ErrorIs(t, err, c.want)
				require.ErrorContains(t, err, c.says)
			})
		}
	}
}

// TestMissingCLI: a CLI that is not installed is ErrUnavailable from Run
// and an unhealthy status naming the variable to set.
func TestMissingCLI(t *testing.T) {
	t.Parallel()
	w := agentcli.New(agentcli.Config{Name: "agentcli", CLI: agentcli.Codex, Timeout: time.Minute, MaxInputBytes: 1000, Env: []string{"PATH=/nonexistent", "HOME=/nonexistent"}})
	_, err := w.Run(t.Context(), task("hello", ""))
	require.ErrorIs(t, err, worker.ErrUnavailable)
	require.ErrorContains(t, err, "codex is not installed: not found on PATH; install it or set MEMHOST_WORKER_CLI_PATH")
	require.ErrorContains(t, w.Health(t.Context()), "codex is not installed")

	w = agentcli.New(agentcli.Config{Name: "agentcli", CLI: agentcli.Codex, Path: "/nonexistent/codex", Timeout: time.Minute, MaxInputBytes: 1000})
	require.ErrorContains(t, w.Health(t.Context()), "MEMHOST_WORKER_CLI_PATH /nonexistent/codex: no such file")
}

// TestBadConfiguration: a missing or bad variable is named by Describe and
// Health, and Run refuses with ErrInvalidInput; nothing panics or hangs.
func TestBadConfiguration(t *testing.T) {
	t.Parallel()
	cases := []struct {
		environ []string
		says    string
	}{
		{nil, "MEMHOST_WORKER_CLI is not set: want claude, gemini or codex"},
		{[]string{"MEMHOST_WORKER_CLI=copilot"}, `MEMHOST_WORKER_CLI "copilot": want claude, gemini or codex`},
		{[]string{"MEMHOST_WORKER_CLI=claude", "MEMHOST_WORKER_TIMEOUT=soon"}, `MEMHOST_WORKER_TIMEOUT "soon": must be a positive Go duration`},
		{[]string{"MEMHOST_WORKER_CLI=claude", "MEMHOST_WORKER_MAX_INPUT_BYTES=-1"}, `MEMHOST_WORKER_MAX_INPUT_BYTES "-1": must be a whole number of bytes from 1 to`},
		{[]string{"MEMHOST_WORKER_CLI=claude", "MEMHOST_WORKER_CLI_PATH=bin/claude"}, `MEMHOST_WORKER_CLI_PATH "bin/claude": must be an absolute path`},
		{[]string{"MEMHOST_WORKER_CLI=claude", "MEMHOST_WORKER_NAME=Bad Name"}, "MEMHOST_WORKER_NAME or MEMHOST_WORKER_MODEL: name \"Bad Name\""},
	}
	for _, c := range cases {
		w := agentcli.FromEnv(c.environ)
		_, err := w.Describe(t.Context())
		require.ErrorContains(t, err, c.says)
		require.ErrorContains(t, w.Health(t.Context()), c.says)
		_, err = w.Run(t.Context(), task("hello", ""))
		require.ErrorIs(t, err, worker.ErrInvalidInput)
		require.ErrorContains(t, err, c.says)
	}
	info, err := agentcli.FromEnv([]string{"MEMHOST_WORKER_CLI=gemini", "MEMHOST_WORKER_MODEL=gemini-2.5-pro", "MEMHOST_WORKER_TIMEOUT=5m", "MEMHOST_WORKER_MAX_INPUT_BYTES=5000"}).Describe(t.Context())
	require.NoError(t, err)
	require.Equal(t, "agentcli", info.Name)
	require.Equal(t, "gemini-2.5-pro", info.Model)
	require.Equal(t, 5000, info.MaxInputBytes)
	require.Equal(t, worker.LocalityRemote, info.Locality)
}

// TestAnswers: each CLI's answer is parsed from its own shape, with its
// usage and model; a schema's answer is the JSON value.
func TestAnswers(t *testing.T) {
	t.Parallel()
	want := map[agentcli.CLI]struct {
		usage worker.Usage
		model string
	}{
		agentcli.Claude: {worker.Usage{InputTokens: 15, OutputTokens: 9}, "claude-sonnet-fake"},
		agentcli.Gemini: {worker.Usage{InputTokens: 25, OutputTokens: 11}, "gemini-fake-pro"},
		agentcli.Codex:  {worker.Usage{InputTokens: 30, OutputTokens: 7}, "codex default"},
	}
	for _, cli := range clis {
		t.Run(string(cli), func(t *testing.T) {
			t.Parallel()
			w := newEnv(t).worker(cli, time.Minute)
			a, err := w.Run(t.Context(), task("we use pnpm", summarySchema))
			require.NoError(t, err)
			require.JSONEq(t, `{"summary":"we use pnpm"}`, string(a.JSON))
			require.Equal(t, want[cli].usage, *a.Usage)
			require.Equal(t, want[cli].model, a.Model)

			a, err = w.Run(t.Context(), task("we use pnpm", ""))
			require.NoError(t, err)
			require.Equal(t, "we use pnpm.", a.Text)
		})
	}
}

// TestOverBudget: a prompt that cannot fit its budget starts no CLI.
func TestOverBudget(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tk := task("FAKE:record", "")
	tk.TokenBudget = 5
	_, err := e.worker(agentcli.Claude, time.Minute).Run(context.Background(), tk)
	require.ErrorIs(t, err, worker.ErrOverBudget)
	require.NoFileExists(t, e.record+"/claude.json")
	require.False(t, errors.Is(err, worker.ErrBadAnswer))
}
