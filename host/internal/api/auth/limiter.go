package auth

import (
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"
	"golang.org/x/time/rate"
)

// sweepInterval is how often idle buckets are looked for; sweeping is O(buckets).
const sweepInterval = time.Minute

// Limits are the per-token rate limits every surface applies. A nil limiter does not limit.
type Limits struct {
	// Reads bounds read calls (search, list, get, the project brain's reads): one token
	// looping on search would otherwise take the CPU every other client's calls share.
	Reads *Limiter
	// Writes bounds memory writes and the project brain's writes.
	Writes *Limiter
	// MapBuilds bounds how often a token may have the host walk a project directory to build
	// its map: each build costs seconds of file walking, a thousand times a write.
	MapBuilds *Limiter
}

// Limiter is a per-token token bucket on one kind of call. It is safe for concurrent use.
//
// Memory is bounded: a bucket idle long enough to have refilled completely behaves exactly
// like a new one, so it is dropped without changing any decision, and only authenticated
// token ids reach the limiter, so live buckets are bounded by the token table.
type Limiter struct {
	what      string // the calls it counts, plural ("writes"), for refusals
	perMinute float64
	limit     rate.Limit
	burst     int
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

// NewLimiter allows perMinute sustained calls per token with bursts of up to burst; what
// names the calls in refusals ("reads", "writes", "map builds"). perMinute <= 0 disables
// limiting; burst < 1 is treated as 1.
func NewLimiter(what string, perMinute float64, burst int) *Limiter {
	burst = max(burst, 1)
	l := &Limiter{
		what:    what,
		now:     time.Now,
		buckets: make(map[uuid.UUID]*bucket),
	}
	l.setLocked(perMinute, burst)
	return l
}

// Set changes the limit from now on, as NewLimiter's arguments do, keeping each token's
// bucket where it is: a host reloading its configuration applies new limits without a
// restart and without handing every token a full bucket.
func (l *Limiter) Set(perMinute float64, burst int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.setLocked(perMinute, max(burst, 1))
	now := l.now()
	for _, b := range l.buckets {
		b.lim.SetLimitAt(now, l.limit)
		b.lim.SetBurstAt(now, l.burst)
	}
}

func (l *Limiter) setLocked(perMinute float64, burst int) {
	l.burst, l.perMinute, l.limit, l.idleAfter = burst, 0, 0, 0
	if perMinute > 0 {
		l.perMinute = perMinute
		l.limit = rate.Limit(perMinute / 60)
		l.idleAfter = time.Duration(float64(burst) / float64(l.limit) * float64(time.Second))
	}
}

// String states the limit, e.g. "600 writes per minute (bursts of 60)".
func (l *Limiter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return fmt.Sprintf("%g %s per minute (bursts of %d)", l.perMinute, l.what, l.burst)
}

// Allow takes one call from tokenID's bucket. When the bucket is empty it returns false
// and how long until a call would be allowed (for a Retry-After header).
func (l *Limiter) Allow(tokenID uuid.UUID) (bool, time.Duration) {
	if l == nil {
		return true, 0
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.limit == 0 {
		return true, 0
	}

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
		// Give the token back: a refused call must not consume future capacity.
		r.CancelAt(now)
		return false, delay
	}
	return true, 0
}

func (l *Limiter) sweep(now time.Time) {
	l.lastSweep = now
	for id, b := range l.buckets {
		if now.Sub(b.lastSeen) >= l.idleAfter {
			delete(l.buckets, id)
		}
	}
}

// size reports the number of live buckets (for tests).
func (l *Limiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}
