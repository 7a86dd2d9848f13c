package worker

import (
	"context"
	"errors"

	"github.com/memhost/memhost/sdk/plugin"
)

// The errors the host's Worker returns, for errors.Is. Implementations
// return errors wrapping them; each reaches the host as itself, whatever the
// language of the plugin (the proto file lists the status codes).
var (
	// ErrRefused means the model declined the task (a safety refusal, say).
	// The same task will be refused again: do not retry it.
	ErrRefused = errors.New("model refused the task")
	// ErrRateLimited means the model's service asked to slow down. It is
	// transient: retry later.
	ErrRateLimited = errors.New("rate limited")
	// ErrTimeout means the task's deadline passed, or the model did not
	// answer in time. It is context.DeadlineExceeded, so a context error
	// and a worker's own timeout read the same.
	ErrTimeout = context.DeadlineExceeded
	// ErrBadAnswer means the answer is unusable: not JSON, not matching the
	// task's schema, over the token budget. The client returns it for an
	// answer that breaks the protocol, whatever the worker said.
	ErrBadAnswer = errors.New("bad answer")
	// ErrOverBudget means the task cannot be done within its token budget;
	// the worker spent nothing more. Retrying the same task fails the same
	// way.
	ErrOverBudget = errors.New("task does not fit its token budget")

	// ErrUnimplemented means the plugin does not implement the called RPC.
	ErrUnimplemented = plugin.ErrUnimplemented
	// ErrInvalidInput means the task broke a rule of the protocol or of the
	// worker (a kind it does not serve, input over MaxInputBytes). It is
	// permanent.
	ErrInvalidInput = plugin.ErrInvalidInput
	// ErrUnavailable means the plugin process, or the model it fronts,
	// could not be reached.
	ErrUnavailable = plugin.ErrUnavailable
	// ErrUnhealthy is returned by the client's Health when the plugin
	// reports itself not ready; the plugin's reason follows it.
	ErrUnhealthy = plugin.ErrUnhealthy
)
