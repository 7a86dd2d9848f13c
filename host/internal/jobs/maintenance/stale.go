package maintenance

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// Stale archives facts never retrieved (by a search or a get; a banner does not count) and
// older than After (or the run's OlderThan), with reason "stale". Pinned facts, retrieved
// facts, goals, plans and journal entries are never touched; the rule is pgstore's staleFact.
type Stale struct {
	Store Store
	After time.Duration
}

// Name implements Job.
func (Stale) Name() string { return "stale" }

// Run implements Job: each fact is archived after the rule is checked again under its row
// lock, so a fact retrieved or pinned since the scan is kept.
func (j Stale) Run(ctx context.Context, r Run) (Result, error) {
	cutoff := r.Now.Add(-age(r.OlderThan, j.After))
	return eachDue(ctx, r, "archive", "stale",
		func(limit int) ([]uuid.UUID, error) { return j.Store.StaleFacts(ctx, cutoff, r.Project, limit) },
		func(id uuid.UUID) (bool, error) { return j.Store.ArchiveStale(ctx, id, cutoff, r.Actor) })
}
