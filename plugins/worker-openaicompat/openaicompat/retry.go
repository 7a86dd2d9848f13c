package openaicompat

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// retryPolicy is how often and how patiently a request is retried after a
// 429 or a 5xx.
type retryPolicy struct {
	// attempts is the most requests one call makes, the first included.
	attempts int
	// base is the first backoff; each retry doubles it, up to max.
	base, max time.Duration
}

var defaultRetry = retryPolicy{attempts: 4, base: 500 * time.Millisecond, max: 8 * time.Second}

// backoff is the wait before retry n (1 for the first): base·2^(n-1),
// capped, with jitter over its upper half so that workers sharing a runtime
// do not retry in step.
func (p retryPolicy) backoff(n int) time.Duration {
	d := p.base
	for i := 1; i < n && d < p.max; i++ {
		d *= 2
	}
	d = min(d, p.max)
	half := d / 2
	return half + rand.N(half+1)
}

// retryAfter reads a Retry-After header, in seconds or as an HTTP date;
// false when absent or unreadable.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
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
