package tasks

import (
	"context"
	"errors"
	"strings"

	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/sdk/worker"
)

// Outcome is how a call ended: a small fixed set, stored in worker_calls.outcome and used as
// a metrics label.
type Outcome string

// The outcomes. Skipped is an Attempt's only (wire.Attempt): the worker was passed over and not called.
const (
	OK           Outcome = "ok"
	Refused      Outcome = "refused"
	RateLimited  Outcome = "rate_limited"
	TimedOut     Outcome = "timeout"
	BadAnswer    Outcome = "bad_answer"
	OverBudget   Outcome = "over_budget"
	InvalidInput Outcome = "invalid_input"
	Unavailable  Outcome = "unavailable"
	Canceled     Outcome = "canceled"
	Failed       Outcome = "error"
	Skipped      Outcome = "skipped"
)

// outcomeOf classifies a worker handle's error. The specific cause is matched before the
// handle's generic sentinel (a refusal also wraps ErrInvalidInput, a bad answer
// ErrUnavailable).
func outcomeOf(err error) Outcome {
	switch {
	case err == nil:
		return OK
	case errors.Is(err, worker.ErrRefused):
		return Refused
	case errors.Is(err, worker.ErrRateLimited):
		return RateLimited
	case errors.Is(err, worker.ErrBadAnswer):
		return BadAnswer
	case errors.Is(err, worker.ErrOverBudget):
		return OverBudget
	case errors.Is(err, worker.ErrTimeout):
		return TimedOut
	case errors.Is(err, context.Canceled):
		return Canceled
	case errors.Is(err, worker.ErrInvalidInput):
		return InvalidInput
	case errors.Is(err, worker.ErrUnavailable):
		return Unavailable
	}
	return Failed
}

// blamesWorker says whether the outcome counts against the worker's circuit breaker: the
// worker or its model did not work. A refusal, a task that does not fit or a caller that gave
// up say nothing about the worker's health.
func (o Outcome) blamesWorker() bool {
	switch o {
	case RateLimited, BadAnswer, TimedOut, Unavailable, Failed:
		return true
	}
	return false
}

// maxReasonBytes bounds what a reason quotes of a worker's own words.
const maxReasonBytes = 300

// reasonFor says why a call failed: what the worker said, on one bounded line (the SDK's
// "worker Run: " label and the outcome's own words dropped, the outcome says them), else what
// the outcome means.
func reasonFor(o Outcome, err error) string {
	d := strings.TrimPrefix(plugins.Diagnosis(err), "worker Run: ")
	for _, sentinel := range []error{worker.ErrUnavailable, worker.ErrInvalidInput, worker.ErrBadAnswer, worker.ErrRefused, worker.ErrRateLimited, worker.ErrOverBudget} {
		if rest, ok := strings.CutPrefix(d, sentinel.Error()+": "); ok {
			d = rest
			break
		}
	}
	if d = plugins.OneLine(d, maxReasonBytes); d == "" || d == context.DeadlineExceeded.Error() {
		return reasonOf(o)
	}
	return d
}

// reasonOf says in words what an outcome means for the chain.
func reasonOf(o Outcome) string {
	switch o {
	case Refused:
		return "the model refused the task"
	case RateLimited:
		return "the model's service asked to slow down"
	case BadAnswer:
		return "the answer broke the task's schema or budget"
	case OverBudget:
		return "the task does not fit the run's token budget"
	case TimedOut:
		return "no answer before the deadline"
	case InvalidInput:
		return "the worker does not take this task (its input limit?)"
	case Unavailable:
		return "the worker or its model could not be reached"
	case Canceled:
		return "the caller gave up"
	}
	return "the worker failed; the host log has the details"
}
