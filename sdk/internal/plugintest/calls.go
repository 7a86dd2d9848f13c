package plugintest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/memhost/memhost/sdk/internal/textcut"
)

// Limits are the time bounds a kit holds an implementation to.
type Limits struct {
	// Call bounds every call, so that a hanging implementation fails the test instead of
	// stalling it until go test's deadline.
	Call time.Duration
	// Cancel is how soon a call must return once its context is done (or, for a worker, its
	// task's deadline has passed).
	Cancel time.Duration
}

// DefaultLimits are the bounds of Exercise in every kit.
var DefaultLimits = Limits{Call: 30 * time.Second, Cancel: 2 * time.Second}

// Pending is a call into the implementation under test running on its own goroutine, so that
// neither a hang nor a panic in the implementation keeps a kit from reporting.
type Pending[R any] struct {
	done   chan struct{}
	result R
	err    error
	// panicked holds what the call panicked with, if it did.
	panicked any
}

// Go runs call on its own goroutine.
func Go[R any](call func() (R, error)) *Pending[R] {
	p := &Pending[R]{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		defer func() {
			if r := recover(); r != nil {
				p.panicked = r
			}
		}()
		p.result, p.err = call()
	}()
	return p
}

// GoErr runs call, which answers only an error, on its own goroutine.
func GoErr(call func() error) *Pending[struct{}] {
	return Go(func() (struct{}, error) { return struct{}{}, call() })
}

// Done is closed when the call has returned.
func (p *Pending[R]) Done() <-chan struct{} { return p.done }

// Wait returns the call's result, failing t if the call panicked or did not return within
// timeout. A call that hangs is left running: the implementation holds it, and the kit can
// only report it.
func (p *Pending[R]) Wait(t testing.TB, what string, timeout time.Duration) (R, error) {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(timeout):
		t.Fatalf("%s did not return within %s", what, timeout)
	}
	if p.panicked != nil {
		t.Fatalf("%s panicked: %s", what, Short(fmt.Sprint(p.panicked)))
	}
	return p.result, p.err
}

// Err is Wait for a call that answers only an error.
func (p *Pending[R]) Err(t testing.TB, what string, timeout time.Duration) error {
	t.Helper()
	_, err := p.Wait(t, what, timeout)
	return err
}

// CheckHealth fails t unless health answers nil within l.
func CheckHealth(t testing.TB, l Limits, health func(context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), l.Call)
	defer cancel()
	if err := GoErr(func() error { return health(ctx) }).Err(t, "Health", l.Call+l.Cancel); err != nil {
		t.Fatalf("Health: %s", Short(err.Error()))
	}
}

// MaxMessage bounds the text a check quotes from an implementation (an error, a panic value,
// an Info), so that failure lines stay short.
const MaxMessage = 160

// Short is s cut to MaxMessage.
func Short(s string) string { return Truncate(s, MaxMessage) }

// Truncate cuts s to at most n bytes on a rune boundary, marking the cut with "…".
func Truncate(s string, n int) string { return textcut.Cut(s, n, "…") }

// Describe calls describe within l and returns its Info, failing t if it fails, hangs or
// panics.
func Describe[I any](t testing.TB, l Limits, describe func(context.Context) (I, error)) I {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), l.Call)
	defer cancel()
	info, err := Go(func() (I, error) { return describe(ctx) }).Wait(t, "Describe", l.Call+l.Cancel)
	if err != nil {
		t.Fatalf("Describe: %s", Short(err.Error()))
	}
	return info
}
