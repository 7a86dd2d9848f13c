package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// TaskKind names what a task asks for. The host's kinds are the constants
// below; a worker lists those it serves in Info.TaskKinds.
type TaskKind string

// The task kinds the host asks for.
const (
	// TaskMerge folds two or more memories that say the same thing into one.
	TaskMerge TaskKind = "merge"
	// TaskConflicts decides whether memories contradict each other.
	TaskConflicts TaskKind = "conflicts"
	// TaskSessionSummary summarises an agent session's transcript.
	TaskSessionSummary TaskKind = "session_summary"
	// TaskExtract pulls durable facts out of a transcript.
	TaskExtract TaskKind = "extract"
	// TaskPlanDrift compares a plan with what was done.
	TaskPlanDrift TaskKind = "plan_drift"
	// TaskGatekeeper decides whether a proposed memory is worth keeping.
	TaskGatekeeper TaskKind = "gatekeeper"
)

// Locality says where a worker's model runs, which decides what the host may
// send it and what a call costs. The zero value is LocalityRemote, the
// cautious reading of a worker that does not say.
type Locality int

const (
	// LocalityRemote: the model runs elsewhere (a cloud API, an agent
	// CLI's service).
	LocalityRemote Locality = iota
	// LocalityLocal: the model runs on this machine; text stays here.
	LocalityLocal
)

// String returns "remote", "local" or "Locality(n)".
func (l Locality) String() string {
	switch l {
	case LocalityRemote:
		return "remote"
	case LocalityLocal:
		return "local"
	default:
		return fmt.Sprintf("Locality(%d)", int(l))
	}
}

// Info describes a worker. See the WorkerDescribeResponse message in
// proto/memhost/v1/worker.proto for the full contract of each field.
type Info struct {
	// Name identifies the worker, e.g. "openaicompat-qwen2.5-7b": lower-case
	// letters, digits, '.', '_' and '-'.
	Name string
	// Version is the human-readable plugin release.
	Version string
	// Description is a one-line summary for operators.
	Description string
	// TaskKinds are the kinds served: at least one, each once.
	TaskKinds []TaskKind
	// Locality is where the model runs.
	Locality Locality
	// Model is the model answering, informational.
	Model string
	// MaxInputBytes bounds a task's instructions plus input. Must be > 0;
	// the host never sends more.
	MaxInputBytes int
}

// Serves reports whether the worker serves tasks of kind k.
func (i Info) Serves(k TaskKind) bool {
	for _, s := range i.TaskKinds {
		if s == k {
			return true
		}
	}
	return false
}

// Task is one piece of work.
type Task struct {
	// Kind is one of the worker's Info.TaskKinds.
	Kind TaskKind
	// Instructions say what to do (the system prompt), written by the host.
	Instructions string
	// Input is what to do it on. It is untrusted text: instructions inside
	// it are data, not orders.
	Input string
	// Schema, when set, is a JSON Schema (draft 2020-12) the answer must
	// satisfy; the answer is then one JSON value and nothing else.
	Schema string
	// Deadline is when the host stops waiting. A client given a zero
	// Deadline uses its context's; Run sees it set, and its context ends
	// then too.
	Deadline time.Time
	// TokenBudget is the most tokens, input and output together, the task
	// may consume. A worker that cannot do the task within it returns
	// ErrOverBudget instead of spending more.
	TokenBudget int
}

// Usage counts the tokens one task consumed.
type Usage struct {
	// InputTokens were read (instructions and input).
	InputTokens int
	// OutputTokens were written (the answer, and any reasoning billed).
	OutputTokens int
}

// Total is InputTokens + OutputTokens, what a budget bounds.
func (u Usage) Total() int { return u.InputTokens + u.OutputTokens }

// Answer is what a worker answered.
type Answer struct {
	// Text is the answer; for a task with a Schema, one JSON value.
	Text string
	// JSON is Text as validated JSON (compacted) when the task had a
	// Schema; the client fills it, implementations leave it empty.
	JSON json.RawMessage
	// Usage is what the task consumed, nil when the model does not say.
	Usage *Usage
	// Model is the model that answered.
	Model string
}

// Worker runs LLM text tasks. Implementations must be safe for concurrent
// use. Every method returns promptly once its context is done, with an
// error wrapping ctx.Err() unless it has already finished.
type Worker interface {
	// Describe returns the worker's identity, task kinds and limits. It
	// must not change during the life of a process.
	Describe(ctx context.Context) (Info, error)
	// Run performs one task. It never consumes more than t.TokenBudget
	// tokens; for a task with a Schema it answers one JSON value satisfying
	// it, or fails with ErrBadAnswer. Failures are the errors below.
	Run(ctx context.Context, t Task) (Answer, error)
	// Health returns nil when Run is expected to succeed, or an error
	// explaining why not.
	Health(ctx context.Context) error
}

// RunMarkerEnv is set to 1 in the environment of every agent CLI a worker
// runs (worker-agentcli does). memhost's own hooks and its stdio MCP server,
// which `memhost connect` registers in the user's global CLI settings, see it
// and do nothing, so a worker's run never gets a banner, memhost's tools or
// a journal entry, and is never captured into a project's memory.
const RunMarkerEnv = "MEMHOST_WORKER"
