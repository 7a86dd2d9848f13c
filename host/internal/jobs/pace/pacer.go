package pace

import (
	"sync"
	"time"
)

// Pacer spaces background steps while agents are calling. The zero value and a nil *Pacer
// never rest. Use it through a pointer: it counts its rests.
type Pacer struct {
	// LastCall is the foreground gauge: when the latest agent call began (zero before any).
	LastCall func() time.Time
	// Quiet is how long after a call began agents still count as active (memory.index_quiet).
	Quiet time.Duration
	// Yield is how many times a step's busy time the work rests after it while agents are
	// active (memory.background_yield): 3 keeps it to a quarter of the time; 0 never rests.
	Yield float64

	mu      sync.Mutex
	rests   int64
	rested  time.Duration
	lastEnd time.Time // when the latest rest ended (or will end)
}

// Active reports whether an agent's call began within Quiet of now.
func (p *Pacer) Active(now time.Time) bool {
	if p == nil || p.LastCall == nil || p.Yield <= 0 {
		return false
	}
	last := p.LastCall()
	return !last.IsZero() && now.Sub(last) < max(p.Quiet, time.Millisecond)
}

// Decide is the rest after a step that took took, decided at now: Yield times took while
// agents are active, none on an idle host. A rest decided is counted (Stats).
func (p *Pacer) Decide(now time.Time, took time.Duration) time.Duration {
	if took <= 0 || !p.Active(now) {
		return 0
	}
	rest := time.Duration(float64(took) * p.Yield)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rests++
	p.rested += rest
	p.lastEnd = now.Add(rest)
	return rest
}

// Stats is what a Pacer decided since it was made.
type Stats struct {
	// Rests is how many steps were followed by a rest, Rested their total length.
	Rests  int64
	Rested time.Duration
	// LastRestEnd is when the latest rest ended (or ends), zero before the first.
	LastRestEnd time.Time
}

// Stats reports the rests decided so far.
func (p *Pacer) Stats() Stats {
	if p == nil {
		return Stats{}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return Stats{Rests: p.rests, Rested: p.rested, LastRestEnd: p.lastEnd}
}
