package workers_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/host/internal/plugins/workers"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/worker"
)

// setup starts a Supervisor over a folder holding the given plugin binaries (file name -> built
// binary) and returns a function that finds a worker by name.
func setup(t *testing.T, files map[string]string) func(name string) *workers.Handle {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		testplugins.Install(t, dir, name, src)
	}
	sup := plugins.New(plugins.Config{
		Adapters:       []plugins.Adapter{workers.Adapter{}},
		HealthInterval: -1,
		Logger:         hclog.New(&hclog.LoggerOptions{Output: os.Stderr, Level: hclog.Error}),
	})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, sup.Shutdown(ctx))
	})
	cands, errs := plugins.Discover([]string{dir}, nil)
	require.Empty(t, errs)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, sup.Start(ctx, plugins.OfKind(cands, workers.Adapter{}.Kind())))
	return func(name string) *workers.Handle {
		t.Helper()
		h, err := workers.Find(sup, name)
		require.NoError(t, err)
		return h
	}
}

const summarySchema = `{"type":"object","required":["summary"],"properties":{"summary":{"type":"string"}},"additionalProperties":false}`

func task(schema string) worker.Task {
	return worker.Task{
		Kind: worker.TaskSessionSummary, Instructions: "Summarise.", Input: "We moved the API to port 8080. Tests pass.",
		Schema: schema, Deadline: time.Now().Add(time.Minute), TokenBudget: 1000,
	}
}

func TestEchoServesThroughTheSupervisor(t *testing.T) {
	t.Parallel()
	h := setup(t, map[string]string{"memhost-worker-echo": echoBinary})("echo")
	info := h.Info()
	require.Equal(t, "echo", info.Name)
	require.Equal(t, worker.LocalityLocal, info.Locality)
	require.True(t, info.Serves(worker.TaskGatekeeper))
	st := h.Status()
	require.Equal(t, plugins.StateReady, st.State)
	require.Equal(t, "local model, serves merge, conflicts, session_summary, extract, plan_drift, gatekeeper", st.Shape)

	a, err := h.Run(t.Context(), task(summarySchema))
	require.NoError(t, err)
	require.JSONEq(t, `{"summary":"We moved the API to port 8080"}`, string(a.JSON))
	require.Equal(t, "echo", a.Model)
	require.NotNil(t, a.Usage)
	require.LessOrEqual(t, a.Usage.Total(), 1000)

	a, err = h.Run(t.Context(), task(""))
	require.NoError(t, err)
	require.Equal(t, "We moved the API to port 8080", a.Text)
	require.Nil(t, a.JSON)
	require.NoError(t, h.Health(t.Context()))
}

// TestBadAnswersAreFailedCalls: an answer that is not JSON, does not satisfy the task's schema
// or reports more tokens than the budget never reaches the caller. The call fails (wrapping
// ErrBadAnswer, with the generic unavailable sentinel for the caller), the plugin is unhealthy
// with the reason, and a proper answer clears it.
func TestBadAnswersAreFailedCalls(t *testing.T) {
	t.Parallel()
	for mode, reason := range map[string]string{
		"notjson":    "not one JSON value",
		"schema":     "does not satisfy the task's schema",
		"overbudget": "used 1001 tokens, over the task's budget of 1000",
	} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			h := setup(t, map[string]string{"memhost-worker-" + mode: badBinary})("bad-" + mode)
			a, err := h.Run(t.Context(), task(summarySchema))
			require.Equal(t, worker.Answer{}, a, "nothing of a bad answer is returned")
			require.ErrorIs(t, err, worker.ErrBadAnswer)
			require.ErrorIs(t, err, worker.ErrUnavailable)
			require.NotErrorIs(t, err, worker.ErrInvalidInput)
			require.Equal(t, "worker plugin bad-"+mode+" Run failed; the host log has the details", err.Error())

			st := h.Status()
			require.Equal(t, plugins.StateUnhealthy, st.State)
			require.Contains(t, st.LastError, reason)

			if mode == "overbudget" {
				return
			}
			_, err = h.Run(t.Context(), task(""))
			require.NoError(t, err)
			require.Equal(t, plugins.StateReady, h.Status().State, "a proper answer clears it")
		})
	}
}

// TestInvalidTasksNeverReachThePlugin: a task the worker does not take is refused by the host
// with the field and the limit named, as a rejection that leaves the plugin ready.
func TestInvalidTasksNeverReachThePlugin(t *testing.T) {
	t.Parallel()
	h := setup(t, map[string]string{"memhost-worker-echo": echoBinary})("echo")
	for _, tc := range []struct {
		mutate func(*worker.Task)
		want   string
	}{
		{func(t *worker.Task) { t.Kind = "translate" }, `task kind "translate": not served by worker echo`},
		{func(t *worker.Task) { t.TokenBudget = 0 }, "token budget 0 must be > 0"},
		{func(t *worker.Task) { t.Input = strings.Repeat("x", 64<<10) }, "exceed max input bytes 65536"},
		{func(t *worker.Task) { t.Schema = `{"$ref": "file:///etc/passwd"}` }, "json schema: "},
		{func(t *worker.Task) { t.Schema = `{"type":` }, "json schema: not JSON"},
	} {
		bad := task(summarySchema)
		tc.mutate(&bad)
		_, err := h.Run(t.Context(), bad)
		require.ErrorIs(t, err, worker.ErrInvalidInput)
		require.ErrorContains(t, err, tc.want)
	}
	require.Equal(t, plugins.StateReady, h.Status().State)
}

// TestDeadlineBoundsTheCall: a task whose deadline has passed ends with a timeout, and says
// nothing about the plugin's health.
func TestDeadlineBoundsTheCall(t *testing.T) {
	t.Parallel()
	h := setup(t, map[string]string{"memhost-worker-echo": echoBinary})("echo")
	late := task("")
	late.Deadline = time.Now().Add(-time.Second)
	_, err := h.Run(t.Context(), late)
	require.ErrorIs(t, err, worker.ErrTimeout)
	require.Equal(t, plugins.StateReady, h.Status().State)
}

func TestClassify(t *testing.T) {
	t.Parallel()
	a := workers.Adapter{}
	for err, want := range map[error]plugins.Outcome{
		worker.ErrUnavailable:   plugins.Unavailable,
		worker.ErrRateLimited:   plugins.Unavailable,
		worker.ErrTimeout:       plugins.Unavailable,
		worker.ErrInvalidInput:  plugins.Rejected,
		worker.ErrRefused:       plugins.Rejected,
		worker.ErrOverBudget:    plugins.Rejected,
		worker.ErrUnimplemented: plugins.Unimplemented,
		worker.ErrBadAnswer:     plugins.Failed,
		errors.New("boom"):      plugins.Failed,
	} {
		require.Equal(t, want, a.Classify(err), "%v", err)
	}
	require.Equal(t, worker.ErrInvalidInput, a.Sentinel(plugins.Rejected))
	require.Equal(t, worker.ErrUnavailable, a.Sentinel(plugins.Failed))
}
