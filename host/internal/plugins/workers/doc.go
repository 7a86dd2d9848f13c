// Package workers is the plugin supervisor's adapter for the worker kind,
// and the host's way to use a worker plugin: a Handle is a worker.Worker
// backed by a supervised plugin process, so its calls get the supervisor's
// restarts, metrics and short, generic errors.
//
// A Handle trusts nothing that crosses the wire. A task is held to the
// worker's Info before it is sent (a kind the worker serves, a budget, input
// within its MaxInputBytes, a schema that compiles): a task that breaks them
// fails with worker.ErrInvalidInput and the plugin is not called. The
// task's deadline bounds the call. Every answer is checked against its task
// in the host process by the SDK's client, the value the supervisor
// dispenses (worker.Task.CheckAnswer: one JSON value satisfying the task's
// schema, usage within the budget): an answer that fails is a failed call,
// wrapping worker.ErrBadAnswer, that marks the plugin unhealthy with the
// reason until a Run succeeds, and it never reaches the caller. A
// worker's answer is text the caller parses and checks again before it
// changes anything; the plugin has no other way to act on the host.
//
// The supervisor's call timeout is also a ceiling on every task: a Supervisor
// that runs workers is configured with a CallTimeout at least as long as the
// longest task deadline it will be given.
package workers
