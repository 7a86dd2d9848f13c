package tasks

import (
	"sync"
	"time"
)

// The circuit breaker of each worker: after breakerThreshold consecutive failures the worker
// is passed over for a backoff that starts at breakerInitial and doubles with every failed
// probe up to breakerMax. Once the backoff has passed, one task at a time is let through as a
// probe (half-open); its success closes the breaker.
const (
	breakerThreshold = 3
	breakerInitial   = 30 * time.Second
	breakerMax       = 10 * time.Minute
)

type breaker struct {
	mu        sync.Mutex
	failures  int
	backoff   time.Duration
	openUntil time.Time
	probing   bool
	// lastProbe is when an unhealthy worker was last let through (probeUnhealthy).
	lastProbe time.Time
}

// probeUnhealthy decides for a worker its supervisor reports unhealthy (a failed health check,
// or a failed call the plugin has not yet answered well since): it is passed over, but let
// through once per breakerInitial, since only a call that succeeds clears a call's fault.
func (b *breaker) probeUnhealthy(now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if now.Sub(b.lastProbe) < breakerInitial {
		return false
	}
	b.lastProbe = now
	return true
}

// blocked reports whether the worker is passed over now and until when. When the backoff has
// passed it lets one caller through as the probe.
func (b *breaker) blocked(now time.Time) (time.Time, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.failures < breakerThreshold:
		return time.Time{}, false
	case now.Before(b.openUntil), b.probing:
		return b.openUntil, true
	}
	b.probing = true
	return time.Time{}, false
}

// until is when the worker is let through again; zero when it is not backed off.
func (b *breaker) until(now time.Time) time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.failures < breakerThreshold || !now.Before(b.openUntil) {
		return time.Time{}
	}
	return b.openUntil
}

func (b *breaker) failed(now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.failures++
	b.probing = false
	if b.failures < breakerThreshold {
		return
	}
	if b.backoff == 0 {
		b.backoff = breakerInitial
	} else {
		b.backoff = min(2*b.backoff, breakerMax)
	}
	b.openUntil = now.Add(b.backoff)
}

// succeeded closes the breaker: the worker answered, or failed for a reason that is not its
// own (a refusal, a task too large).
func (b *breaker) succeeded() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.failures, b.backoff, b.openUntil, b.probing = 0, 0, time.Time{}, false
}

// release ends a probe that said nothing either way (its caller gave up).
func (b *breaker) release() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.probing = false
}
