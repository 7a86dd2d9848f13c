package tasks

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/memhost/memhost/host/internal/wire"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/sdk/worker"
)

// sample is the task `memhost workers try` sends: small, harmless, with a schema so the answer
// is checked as a real task's is.
type sample struct{ instructions, input, schema string }

var samples = map[worker.TaskKind]sample{
	worker.TaskMerge: {"Merge the numbered memories, which say the same thing, into one short memory. Answer with JSON.",
		"1. The project uses pnpm.\n2. Always use pnpm, never npm, in this repository.",
		`{"type":"object","required":["text"],"properties":{"text":{"type":"string"}}}`},
	worker.TaskConflicts: {"Say whether the numbered memories contradict each other. Answer with JSON.",
		"1. The API listens on port 8080.\n2. The API listens on port 9090.",
		`{"type":"object","required":["conflict"],"properties":{"conflict":{"type":"boolean"},"reason":{"type":"string"}}}`},
	worker.TaskSessionSummary: {"Summarise the session transcript in one sentence. Answer with JSON.",
		"user: move the API to port 8080\nagent: done, tests pass",
		`{"type":"object","required":["summary"],"properties":{"summary":{"type":"string"}}}`},
	worker.TaskExtract: {"List the durable facts in the transcript. Answer with JSON.",
		"user: we deploy with fly.io from the main branch\nagent: noted",
		`{"type":"object","required":["facts"],"properties":{"facts":{"type":"array","items":{"type":"string"}}}}`},
	worker.TaskPlanDrift: {"Say whether the work done drifted from the plan. Answer with JSON.",
		"plan: 1. add login 2. add logout\ndone: added login, added a theme switcher",
		`{"type":"object","required":["drift"],"properties":{"drift":{"type":"boolean"},"reason":{"type":"string"}}}`},
	worker.TaskGatekeeper: {"Decide whether the proposed memory is worth keeping. Answer with JSON.",
		"proposed: The test database is started by make test-db.",
		`{"type":"object","required":["keep"],"properties":{"keep":{"type":"boolean"},"reason":{"type":"string"}}}`},
}

// Try runs kind's sample task through its chain, or through worker alone (its breaker
// bypassed: the operator asked for it), and reports what happened. A failed run is a result,
// not an error: the operator is shown each worker's outcome.
func (r *Runner) Try(ctx context.Context, kind, name string) (wire.TryResult, error) {
	s, ok := samples[worker.TaskKind(kind)]
	if !ok {
		return wire.TryResult{}, &rules.FieldError{Field: "task", Message: fmt.Sprintf("%q is not a task kind (valid: %s)", kind, strings.Join(config.TaskKinds, ", "))}
	}
	chain, probe := r.Chain(worker.TaskKind(kind)), false
	if name != "" {
		if !slices.Contains(r.Workers(), name) {
			return wire.TryResult{}, &rules.FieldError{Field: "worker", Message: fmt.Sprintf("%q is not a worker (workers: %s)", name, strings.Join(r.Workers(), ", "))}
		}
		chain, probe = []string{name}, true
	}
	t := worker.Task{Instructions: s.instructions, Input: s.input, Schema: s.schema}
	a, call, attempts, err := r.run(ctx, worker.TaskKind(kind), t, chain, probe)
	res := wire.TryResult{Task: kind, Attempts: attempts}
	if res.Attempts == nil {
		res.Attempts = []wire.Attempt{}
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return res, err
		}
		res.Error = err.Error()
		return res, nil
	}
	res.Worker, res.Model, res.LatencyMs = call.Worker, call.Model, call.Latency.Round(time.Millisecond).Milliseconds()
	res.InputTokens, res.OutputTokens, res.Result = call.InputTokens, call.OutputTokens, a.JSON
	return res, nil
}
