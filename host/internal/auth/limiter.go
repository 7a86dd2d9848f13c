package auth

import (
	"sync"
	"time"

	"github.com/google/uuid"
	"golang.org/x/time/rate"
)

// sweepInterval is how often idle buckets are looked for; sweeping is O(buckets).
const sweepInterval = time.Minute

// WriteLimiter is a per-token token bucket on memory writes. It is safe for concurrent use.
//
// Memory is bounded: a bucket idle long enough to have refilled completely behaves exactly
// like a new one, so it is dropped without changing any decision, and only authenticated
// token ids reach the limiter, so live buckets are bounded by the token table.
type WriteLimiter struct {
	limit rate.Limit
	burst int
	// idleAfter is the time an empty bucket takes to refill to burst.
	idleAfter time.Duration
	now       func() time.Time

	mu        sync.Mutex
	buckets   map[uuid.UUID]*bucket
	lastSweep time.Time
}

type bucket struct {
	lim      *rate.Limiter
	lastSeen time.Time
}

// NewWriteLimiter allows perMinute sustained writes per token with bursts of up to burst.
// perMinute <= 0 disables limiting; burst < 1 is treated as 1.
func NewWriteLimiter(perMinute float64, burst int) *WriteLimiter {
	burst = max(burst, 1)
	l := &WriteLimiter{
		burst:   burst,
		now:     time.Now,
		buckets: make(map[uuid.UUID]*bucket),
	}
	if perMinute > 0 {
		l.limit = rate.Limit(perMinute / 60)
		l.idleAfter = time.Duration(float64(burst) / float64(l.limit) * float64(time.Second))
	}
	return l
}

// Allow takes one write from tokenID's bucket. When the bucket is empty it returns false
// and how long until a write would be allowed (for a Retry-After header).
func (l *WriteLimiter) Allow(tokenID uuid.UUID) (bool, time.Duration) {
	if l == nil || l.limit == 0 {
		return true, 0
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()

	if now.Sub(l.lastSweep) >= sweepInterval {
		l.sweep(now)
	}
	b, ok := l.buckets[tokenID]
	if !ok {
		b = &bucket{lim: rate.NewLimiter(l.limit, l.burst)}
		l.buckets[tokenID] = b
	}
	b.lastSeen = now

	r := b.lim.ReserveN(now, 1)
	if delay := r.DelayFrom(now); delay > 0 {
		// Give the token back: a refused write must not consume future capacity.
		r.CancelAt(now)
		return false, delay
	}
	return true, 0
}

func (l *WriteLimiter) sweep(now time.Time) {
	l.lastSweep = now
	for id, b := range l.buckets {
		if now.Sub(b.lastSeen) >= l.idleAfter {
			delete(l.buckets, id)
		}
	}
}

// size reports the number of live buckets (for tests).
func (l *WriteLimiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}
