package workertest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/memhost/memhost/sdk/internal/plugintest"
	"github.com/memhost/memhost/sdk/worker"
)

// limits are the time bounds Exercise holds a worker to.
type limits = plugintest.Limits

var defaultLimits = plugintest.DefaultLimits

// budget is the token budget of the kit's ordinary tasks: enough for any
// reply to its short inputs.
const budget = 4096

// schema is what the kit's JSON tasks ask for.
const schema = `{"type":"object","required":["summary"],"properties":{"summary":{"type":"string"}},"additionalProperties":false}`

// Exercise runs the conformance checks against w, which may be an
// implementation or the result of Serve, Launch or Attach. Subtests run in
// parallel; w must be safe for concurrent use, as the host requires.
//
// The checks: Describe is valid and stable; every kind it serves answers a
// free-text task and a task with a JSON Schema (with JSON satisfying it, or
// a typed error: ErrBadAnswer, ErrRefused, ErrRateLimited); an answer never
// reports more tokens than the task's budget, and a task whose budget
// cannot fit it fails with ErrOverBudget or answers within it; a kind it
// does not serve is ErrInvalidInput; Run returns promptly once its deadline
// has passed (ErrTimeout) or its context is cancelled, before or during the
// call; Health answers. Over the wire the client already returns when the
// context ends, so run Exercise on the implementation too, to check that it
// honours deadlines and cancellation itself. Launch checks the last rule:
// nothing on stdout.
//
// A check never panics on a malformed answer and keeps its failure message
// to one short line.
func Exercise(t *testing.T, w worker.Worker) {
	t.Helper()
	k := newKit(t, w, defaultLimits)
	plugintest.RunChecks(t, k, checks)
}

// check is one conformance subtest (see plugintest.Check).
type check = plugintest.Check[*kit]

var checks = []check{
	{Name: "DescribeIsSane", Run: checkDescribe},
	{Name: "AnswersEveryKind", Run: checkAnswers},
	{Name: "AnswersJSONForASchema", Run: checkSchema},
	{Name: "StaysWithinTheBudget", Run: checkBudget},
	{Name: "UnservedKindIsInvalidInput", Run: checkUnservedKind},
	{Name: "DeadlinePassed", Run: checkDeadlinePassed},
	{Name: "CancelledContext", Run: checkCancelledContext},
	{Name: "CancelDuringCall", Run: checkCancelDuringCall},
	{Name: "Health", Run: checkHealth},
}

// kit is the worker under test and what Describe said about it.
type kit struct {
	plugintest.Kit[worker.Worker, worker.Info]
}

func newKit(t testing.TB, w worker.Worker, l limits) *kit {
	t.Helper()
	return &kit{plugintest.NewKit(t, w, l)}
}

// task is an ordinary task of kind, due within the call limit.
func (k *kit) task(kind worker.TaskKind) worker.Task {
	return worker.Task{
		Kind:         kind,
		Instructions: "Summarise the input in one sentence.",
		Input:        "we use pnpm, not npm, in this repo; the API listens on port 8080",
		Deadline:     time.Now().Add(k.Limits.Call),
		TokenBudget:  budget,
	}
}

func checkDescribe(t testing.TB, k *kit) { k.CheckDescribe(t, k.Info.Version) }

func checkAnswers(t testing.TB, k *kit) {
	for _, kind := range k.Info.TaskKinds {
		task := k.task(kind)
		a, err := k.run(t, task)
		if err != nil {
			k.requireTyped(t, task, err)
			continue
		}
		if a.Text == "" {
			t.Fatalf("Run %s: empty answer", kind)
		}
	}
}

func checkSchema(t testing.TB, k *kit) {
	for _, kind := range k.Info.TaskKinds {
		task := k.task(kind)
		task.Instructions += ` Answer {"summary": "..."}.`
		task.Schema = schema
		a, err := k.run(t, task)
		if err != nil {
			k.requireTyped(t, task, err)
			continue
		}
		if len(a.JSON) == 0 {
			t.Fatalf("Run %s with a schema: the answer carries no JSON", kind)
		}
	}
}

// checkBudget: with a budget of one token no real task fits; the worker
// says so or answers within it, and never reports spending more.
func checkBudget(t testing.TB, k *kit) {
	task := k.task(k.Info.TaskKinds[0])
	task.TokenBudget = 1
	_, err := k.run(t, task)
	if err != nil && !errors.Is(err, worker.ErrOverBudget) {
		if errors.Is(err, worker.ErrBadAnswer) {
			t.Fatalf("Run with a budget of 1 token: %s", short(err.Error()))
		}
		k.requireTyped(t, task, err)
	}
}

func checkUnservedKind(t testing.TB, k *kit) {
	task := k.task("no_such_kind")
	_, err := k.run(t, task)
	if !errors.Is(err, worker.ErrInvalidInput) {
		t.Fatalf("Run of a kind the worker does not serve: want an error wrapping ErrInvalidInput, got %s", describeErr(err))
	}
}

// checkDeadlinePassed: a task whose deadline has passed (its context with
// it) ends at once with a timeout.
func checkDeadlinePassed(t testing.TB, k *kit) {
	task := k.task(k.Info.TaskKinds[0])
	task.Deadline = time.Now().Add(-time.Millisecond)
	ctx, cancel := context.WithDeadline(context.Background(), task.Deadline)
	defer cancel()
	_, err := k.start(ctx, task).Wait(t, "Run past its deadline", k.Limits.Cancel)
	if !errors.Is(err, worker.ErrTimeout) {
		t.Fatalf("Run past its deadline: want an error wrapping ErrTimeout (context.DeadlineExceeded), got %s", describeErr(err))
	}
}

func checkCancelledContext(t testing.TB, k *kit) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	task := k.task(k.Info.TaskKinds[0])
	_, err := k.start(ctx, task).Wait(t, "Run with a cancelled context", k.Limits.Cancel)
	k.requireCancelled(t, task, err)
}

// checkCancelDuringCall: Run returns within the grace period once its
// context is cancelled mid-call.
func checkCancelDuringCall(t testing.TB, k *kit) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	task := k.task(k.Info.TaskKinds[0])
	call := k.start(ctx, task)
	select {
	case <-call.Done():
		// Finished before the cancellation: nothing to observe.
	case <-time.After(10 * time.Millisecond):
		cancel()
	}
	_, err := call.Wait(t, "Run after its context was cancelled", k.Limits.Cancel)
	k.requireCancelled(t, task, err)
}

func checkHealth(t testing.TB, k *kit) { k.CheckHealth(t) }

// run calls Run under the task's deadline and holds a successful answer to
// the protocol, as the host does: an implementation tested directly has no
// SDK client doing it.
func (k *kit) run(t testing.TB, task worker.Task) (worker.Answer, error) {
	t.Helper()
	ctx, cancel := context.WithDeadline(context.Background(), task.Deadline)
	defer cancel()
	what := fmt.Sprintf("Run %s", task.Kind)
	a, err := k.start(ctx, task).Wait(t, what, k.Limits.Call+k.Limits.Cancel)
	if err != nil {
		return worker.Answer{}, err
	}
	checked, err := task.CheckAnswer(a)
	if err != nil {
		t.Fatalf("%s: the answer breaks the protocol: %s", what, short(err.Error()))
	}
	return checked, nil
}

func (k *kit) start(ctx context.Context, task worker.Task) *plugintest.Pending[worker.Answer] {
	return plugintest.Go(func() (worker.Answer, error) { return k.Impl.Run(ctx, task) })
}

// requireTyped fails unless err is one of the errors a worker may answer a
// valid task with: the host must be able to tell what went wrong.
func (k *kit) requireTyped(t testing.TB, task worker.Task, err error) {
	t.Helper()
	for _, typed := range []error{worker.ErrBadAnswer, worker.ErrRefused, worker.ErrRateLimited, worker.ErrOverBudget, worker.ErrUnavailable} {
		if errors.Is(err, typed) {
			return
		}
	}
	t.Fatalf("Run %s failed with an untyped error (want ErrBadAnswer, ErrRefused, ErrRateLimited, ErrOverBudget or ErrUnavailable): %s", task.Kind, short(err.Error()))
}

// requireCancelled accepts the outcomes of a cancelled call: an error that
// says it was cancelled, or an answer.
func (k *kit) requireCancelled(t testing.TB, task worker.Task, err error) {
	t.Helper()
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled Run %s returned an error that does not wrap context.Canceled: %s", task.Kind, short(err.Error()))
	}
}

func describeErr(err error) string {
	if err == nil {
		return "no error"
	}
	return short(err.Error())
}

// maxMessage bounds a failure message quoted from the worker.
const maxMessage = 200

func short(s string) string { return plugintest.Truncate(s, maxMessage) }
