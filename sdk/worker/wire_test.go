package worker_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/internal/plugintest"
	"github.com/memhost/memhost/sdk/worker"
	"github.com/memhost/memhost/sdk/worker/workertest"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	workertest.Exercise(t, firstSentence{})
	workertest.Exercise(t, workertest.Serve(t, firstSentence{}))
}

// TestPublicAPIHasNoGlue pins the layering: the author-facing package
// converts to and from the wire, but its API shows only its own types.
func TestPublicAPIHasNoGlue(t *testing.T) {
	t.Parallel()
	plugintest.RequireNoGlueInAPI(t, ".")
}

// failing is a worker whose Run returns err, or answer when err is nil.
type failing struct {
	firstSentence
	err    error
	answer worker.Answer
}

func (f failing) Run(context.Context, worker.Task) (worker.Answer, error) { return f.answer, f.err }

func summaryTask(schema string) worker.Task {
	return worker.Task{
		Kind: worker.TaskSessionSummary, Instructions: "Summarise.", Input: "We moved the API. Tests pass.",
		Schema: schema, Deadline: time.Now().Add(time.Minute), TokenBudget: 100,
	}
}

const summarySchema = `{"type":"object","required":["summary"],"properties":{"summary":{"type":"string"}}}`

// TestTypedErrorsCrossTheWire: every error a worker tells apart reaches the host as itself.
func TestTypedErrorsCrossTheWire(t *testing.T) {
	t.Parallel()
	for _, typed := range []error{
		worker.ErrRefused, worker.ErrRateLimited, worker.ErrTimeout, worker.ErrBadAnswer,
		worker.ErrOverBudget, worker.ErrInvalidInput, worker.ErrUnavailable,
	} {
		w := workertest.Serve(t, failing{err: errors.Join(typed, errors.New("the model said why"))})
		_, err := w.Run(t.Context(), summaryTask(""))
		require.ErrorIs(t, err, typed)
		require.ErrorContains(t, err, "worker Run")
	}
}

// TestAnswersAreCheckedOnBothSides: an implementation's answer that breaks its task never
// leaves the plugin, and one that a plugin in another language sends anyway never reaches the
// host's caller.
func TestAnswersAreCheckedOnBothSides(t *testing.T) {
	t.Parallel()
	over := worker.Answer{Text: "ok", Usage: &worker.Usage{InputTokens: 90, OutputTokens: 11}}
	for name, a := range map[string]worker.Answer{
		"prose":  {Text: "Sure! Here it is."},
		"schema": {Text: `{"summary": 42}`},
		"two":    {Text: `{"summary": "a"} {"summary": "b"}`},
		"budget": over,
	} {
		w := workertest.Serve(t, failing{answer: a})
		got, err := w.Run(t.Context(), summaryTask(summarySchema))
		require.ErrorIs(t, err, worker.ErrBadAnswer, name)
		require.Equal(t, worker.Answer{}, got, name)
	}

	bin := filepath.Join(t.TempDir(), "memhost-worker-notjson")
	build := exec.Command("go", "build", "-o", bin, "../internal/testworker")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())
	w := workertest.Launch(t, bin)
	_, err := w.Run(t.Context(), summaryTask(summarySchema))
	require.ErrorIs(t, err, worker.ErrBadAnswer)
	require.ErrorContains(t, err, "not one JSON value")
	a, err := w.Run(t.Context(), summaryTask(""))
	require.NoError(t, err, "without a schema prose is an answer")
	require.Equal(t, "ok", a.Text)
}

// TestTasksAreCheckedBeforeSending: the client refuses a task the worker does not take, naming
// the field and the limit.
func TestTasksAreCheckedBeforeSending(t *testing.T) {
	t.Parallel()
	w := workertest.Serve(t, firstSentence{})
	bad := summaryTask("")
	bad.Kind = worker.TaskMerge
	_, err := w.Run(t.Context(), bad)
	require.ErrorIs(t, err, worker.ErrInvalidInput)
	require.ErrorContains(t, err, `task kind "merge": not served by worker first-sentence (it serves session_summary)`)

	bad = summaryTask("")
	bad.Deadline = time.Time{}
	_, err = w.Run(context.Background(), bad)
	require.ErrorContains(t, err, "deadline is not set")
}

func TestInfoValidate(t *testing.T) {
	t.Parallel()
	require.NoError(t, toyInfo.Validate())
	for _, tc := range []struct {
		mutate func(*worker.Info)
		want   string
	}{
		{func(i *worker.Info) { i.Name = "" }, "name is empty"},
		{func(i *worker.Info) { i.Name = "Big" }, `name "Big": must be lower-case letters`},
		{func(i *worker.Info) { i.TaskKinds = nil }, "task kinds: none listed"},
		{func(i *worker.Info) { i.TaskKinds = []worker.TaskKind{"merge", "merge"} }, `task kinds[1] "merge": listed twice`},
		{func(i *worker.Info) { i.Locality = 7 }, "locality 7: must be remote or local"},
		{func(i *worker.Info) { i.MaxInputBytes = 0 }, "max input bytes 0 must be > 0"},
		{func(i *worker.Info) { i.Model = "a\nb" }, "model must be one line of valid UTF-8"},
	} {
		bad := toyInfo
		tc.mutate(&bad)
		require.ErrorContains(t, bad.Validate(), tc.want)
	}
}
