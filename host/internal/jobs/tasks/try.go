package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

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

// TryResult is what one sample task did.
type TryResult struct {
	Task string `json:"task"`
	// Worker is the worker that answered; empty when none did (Error says why).
	Worker       string          `json:"worker,omitempty"`
	Model        string          `json:"model,omitempty"`
	LatencyMs    int64           `json:"latency_ms"`
	InputTokens  int             `json:"input_tokens"`
	OutputTokens int             `json:"output_tokens"`
	Result       json.RawMessage `json:"result,omitempty"`
	Error        string          `json:"error,omitempty"`
	Attempts     []Attempt       `json:"attempts"`
}

// Try runs kind's sample task through its chain, or through worker alone (its breaker
// bypassed: the operator asked for it), and reports what happened. A failed run is a result,
// not an error: the operator is shown each worker's outcome.
func (r *Runner) Try(ctx context.Context, kind, name string) (TryResult, error) {
	s, ok := samples[worker.TaskKind(kind)]
	if !ok {
		return TryResult{}, &rules.FieldError{Field: "task", Message: fmt.Sprintf("%q is not a task kind (valid: %s)", kind, strings.Join(config.TaskKinds, ", "))}
	}
	chain, probe := r.Chain(worker.TaskKind(kind)), false
	if name != "" {
		if !slices.Contains(r.Workers(), name) {
			return TryResult{}, &rules.FieldError{Field: "worker", Message: fmt.Sprintf("%q is not a worker (workers: %s)", name, strings.Join(r.Workers(), ", "))}
		}
		chain, probe = []string{name}, true
	}
	t := worker.Task{Instructions: s.instructions, Input: s.input, Schema: s.schema}
	a, call, attempts, err := r.run(ctx, worker.TaskKind(kind), t, chain, probe)
	res := TryResult{Task: kind, Attempts: attempts}
	if res.Attempts == nil {
		res.Attempts = []Attempt{}
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
