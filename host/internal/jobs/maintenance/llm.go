package maintenance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/memhost/memhost/host/internal/jobs/tasks"
	sdkworker "github.com/memhost/memhost/sdk/worker"
)

// Tasks runs an LLM task through its worker chain: tasks.Runner, or a test's fake.
type Tasks interface {
	Run(ctx context.Context, kind sdkworker.TaskKind, t sdkworker.Task) (sdkworker.Answer, tasks.Call, error)
}

// llm is one run's use of a worker chain within its budget. The first failure (no worker,
// a daily budget spent, a chain that did not answer, a hang cut short) ends the run's LLM
// part: the job does what needs no model and the next period asks again. Nothing waits on
// a worker while it holds a lock a write needs.
type llm struct {
	tasks  Tasks
	budget Budget
	res    *Result
	// stopped says why the run asks no more, "" while it may.
	stopped string
}

// ask runs t of kind and decodes its JSON answer into out; false means no answer (l.stopped
// says why when the run asks no more).
func (l *llm) ask(ctx context.Context, kind sdkworker.TaskKind, t sdkworker.Task, out any) bool {
	if l.stopped != "" {
		return false
	}
	if l.tasks == nil {
		l.stopped = tasks.ErrNoWorker.Error()
		return false
	}
	if l.budget.MaxLLMCalls > 0 && l.res.LLMCalls >= int64(l.budget.MaxLLMCalls) ||
		l.budget.MaxTokens > 0 && l.res.Tokens >= int64(l.budget.MaxTokens) {
		l.stopped, l.res.Partial = "the run's LLM budget is spent", true
		return false
	}
	if l.budget.MaxTokens > 0 {
		t.TokenBudget = l.budget.MaxTokens - int(l.res.Tokens)
	}
	a, call, err := l.tasks.Run(ctx, kind, t)
	l.res.count(call, err)
	switch {
	case errors.Is(err, tasks.ErrNoWorker):
		l.stopped = err.Error() // a steady state, not work left over
		return false
	case errors.Is(err, tasks.ErrWaiting):
		l.stopped, l.res.Partial = err.Error(), true
		return false
	}
	if err != nil {
		l.stopped, l.res.Partial = err.Error(), true
		return false
	}
	if err := decodeAnswer(a, out); err != nil {
		// One garbled answer says nothing of the next: the run asks on, and the cluster is
		// left for the next run.
		l.res.Partial = true
		return false
	}
	return true
}

// count records a task's call in r: every task a chain was asked counts, answered or not (a
// timeout or a crash spent the call too, with the tokens the worker reported); a task that
// asked no worker (none configured, the daily budget spent) does not.
func (r *Result) count(call tasks.Call, err error) {
	if errors.Is(err, tasks.ErrNoWorker) || errors.Is(err, tasks.ErrWaiting) {
		return
	}
	r.LLMCalls++
	r.Tokens += int64(call.InputTokens + call.OutputTokens)
}

// decodeAnswer decodes a task's answer into out: its JSON, checked against the task's schema
// by the SDK, else its text.
func decodeAnswer(a sdkworker.Answer, out any) error {
	data := a.JSON
	if len(data) == 0 {
		data = []byte(a.Text)
	}
	return json.Unmarshal(data, out)
}

// numbered renders texts as the numbered list a task's input holds.
func numbered(texts []string) string {
	var b []byte
	for i, t := range texts {
		b = fmt.Appendf(b, "%d. %s\n", i+1, t)
	}
	return string(b)
}
