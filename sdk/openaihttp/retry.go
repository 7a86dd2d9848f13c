package openaihttp

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryPolicy is how often and how patiently a request is retried after a
// 429 or a 5xx.
type RetryPolicy struct {
	// Attempts is the most requests one call makes, the first included.
	Attempts int
	// Base is the first backoff; each retry doubles it, up to Max.
	Base, Max time.Duration
}

// DefaultRetry suits a runtime on the same machine or a cloud API alike.
var DefaultRetry = RetryPolicy{Attempts: 4, Base: 500 * time.Millisecond, Max: 8 * time.Second}

// Backoff is the wait before retry n (1 for the first): Base·2^(n-1),
// capped, with jitter over its upper half so that plugins sharing a runtime
// do not retry in step.
func (p RetryPolicy) Backoff(n int) time.Duration {
	d := p.Base
	for i := 1; i < n && d < p.Max; i++ {
		d *= 2
	}
	d = min(d, p.Max)
	half := d / 2
	return half + rand.N(half+1)
}

// Wait is the wait before retry n: the response's Retry-After when it has
// one, else Backoff(n).
func (p RetryPolicy) Wait(n int, h http.Header, now time.Time) time.Duration {
	if d, ok := RetryAfter(h, now); ok {
		return d
	}
	return p.Backoff(n)
}

// Pause waits before the retry of a call whose attempt-th request got a retryable answer (a
// 429 or a 5xx, whose headers are h); failure is the call's error for that answer. It returns
// nil once the wait is over; failure, wrapped, when the attempts are spent or the wait would
// pass ctx's deadline; and ctx's error when ctx ends while it waits. onWait, when not nil,
// hears the wait first (a plugin logs its retries).
func (p RetryPolicy) Pause(ctx context.Context, attempt int, h http.Header, failure error, onWait func(time.Duration)) error {
	if attempt >= p.Attempts {
		return fmt.Errorf("after %d attempts: %w", attempt, failure)
	}
	wait := p.Wait(attempt, h, time.Now())
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
		return fmt.Errorf("a retry in %s would pass the deadline: %w", wait.Round(time.Millisecond), failure)
	}
	if onWait != nil {
		onWait(wait)
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// RetryAfter reads a Retry-After header, in seconds or as an HTTP date;
// false when absent or unreadable.
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}
