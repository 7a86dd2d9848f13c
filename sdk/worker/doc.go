// Package worker is what a worker plugin's author uses. A worker answers
// LLM text tasks for the host, off the hot path: merging memories that say
// the same thing, checking them for conflicts, summarising a session,
// extracting facts, spotting plan drift, gatekeeping a write. It owns the
// Worker interface, the Info a worker describes itself with, the Task it is
// given and the Answer it returns, the errors the host tells apart, Serve
// with its options (WithLogger, WithDebug) and Kind for a host's plugin set.
//
// A worker plugin's whole main is
//
//	func main() {
//		if err := worker.Serve(mine.New()); err != nil {
//			fmt.Fprintln(os.Stderr, err)
//			os.Exit(1)
//		}
//	}
//
// # The contract
//
// Describe names the worker, the task kinds it serves (TaskMerge,
// TaskConflicts, TaskSessionSummary, TaskExtract, TaskPlanDrift,
// TaskGatekeeper), whether its model is local or remote, the model and the
// largest input it takes. Run does one task: instructions written by the
// host, an untrusted input, optionally a JSON Schema the answer must
// satisfy, a deadline and a token budget. It answers with the text, the
// tokens used when the model reports them and the model that answered; for
// a task with a schema the text is one JSON value that satisfies it, which
// the client returns parsed in Answer.JSON.
//
// A worker never spends more than the budget (it refuses with
// ErrOverBudget rather than start what cannot fit), returns promptly once
// its deadline passes or its context is cancelled, and tells failures apart
// with the typed errors: ErrRefused, ErrRateLimited, ErrTimeout,
// ErrBadAnswer, ErrOverBudget, ErrInvalidInput. It never writes to stdout,
// which carries go-plugin's handshake.
//
// The host treats an answer as untrusted text. The SDK holds every task to
// the worker's Info (Task.Validate) and every answer to its task
// (Task.CheckAnswer: one JSON value satisfying the schema, usage within the
// budget) on both sides of the wire, so an answer that fails is a failed
// call and never reaches the code that would apply it. A worker has no other
// way to act: it cannot call tools, reach the store or change anything but
// the result of its task, which the host checks again before applying it.
//
// Test an implementation with package workertest: Serve runs it behind real
// gRPC in-process, Launch runs a built binary in any language, and Exercise
// is the conformance kit.
package worker
