package memory

import (
	"context"

	"github.com/memhost/memhost/host/internal/core/store"
)

// nearestLookup is one search's nearest-neighbour lookup, run on demand or started early.
//
// Started early, it runs beside the first read of the lexical candidates, which saves that
// round trip when the lookup is needed and costs a wasted walk when it is not; Search starts it
// early for semantic embedders, whose vector share of relevance nearly always leaves room for
// a memory only the vector path finds (loader.needsVector). A lookup that turns out unused is
// waited for, not cancelled: pgx closes a connection whose query is cancelled, and a new one
// pays for its first plans again.
type nearestLookup struct {
	s       *Service
	q       store.VectorQuery
	started bool               // before it was known to be needed
	pending chan nearestResult // the early lookup's result, until hits or close takes it
}

type nearestResult struct {
	hits []store.VectorHit
	err  error
}

// newLookup prepares q's lookup and, when early, starts it now. close must follow.
func (s *Service) newLookup(ctx context.Context, q store.VectorQuery, early bool) *nearestLookup {
	l := &nearestLookup{s: s, q: q, started: early}
	if early {
		l.pending = make(chan nearestResult, 1)
		go func() {
			hits, err := s.store.Nearest(ctx, q)
			l.pending <- nearestResult{hits, err}
		}()
	}
	return l
}

// hits returns the lookup's result, running it now unless it was started early.
func (l *nearestLookup) hits(ctx context.Context) ([]store.VectorHit, error) {
	if !l.started {
		return l.s.store.Nearest(ctx, l.q)
	}
	r := <-l.pending
	l.pending = nil
	return r.hits, r.err
}

// close waits for an early lookup whose result was not taken, so no query outlives its search.
func (l *nearestLookup) close() {
	if l.pending != nil {
		<-l.pending
		l.pending = nil
	}
}

// lookupOutcome labels memhost_memory_search_vector_lookups_total.
func lookupOutcome(needed, early bool) string {
	switch {
	case needed:
		return "ran"
	case early:
		return "unused"
	default:
		return "skipped"
	}
}
