package maintenance

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// Journal archives journal entries older than OlderThan (or the run's OlderThan), with reason
// "journal prune": the operator's bulk prune (`memhost project journal prune`), and a periodic
// job when enabled. Pinned entries, and entries an open conflict references, are kept; the
// rule is pgstore's oldJournal.
type Journal struct {
	Store     Store
	OlderThan time.Duration
}

// Name implements Job.
func (Journal) Name() string { return "journal" }

// Run implements Job.
func (j Journal) Run(ctx context.Context, r Run) (Result, error) {
	cutoff := r.Now.Add(-age(r.OlderThan, j.OlderThan))
	return eachDue(ctx, r, "archive", "journal prune",
		func(limit int) ([]uuid.UUID, error) { return j.Store.OldJournal(ctx, cutoff, r.Project, limit) },
		func(id uuid.UUID) (bool, error) { return j.Store.ArchiveOldJournal(ctx, id, cutoff, r.Actor) })
}
