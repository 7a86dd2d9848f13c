package openaihttp

import (
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
