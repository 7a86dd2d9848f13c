package maintenance

import (
	"context"
	"time"

	"github.com/memhost/memhost/host/internal/store/pgstore"
)

// Stale archives facts never retrieved (by a search or a get; a banner does not count) and
// older than After, with reason "stale". Pinned facts, retrieved facts, goals, plans and
// journal entries are never touched; the rule is pgstore's staleFact.
type Stale struct {
	Store *pgstore.Store
	After time.Duration
}

// Name implements Job.
func (Stale) Name() string { return "stale" }

// Run implements Job: up to Budget.MaxRows facts, each archived in its own short transaction
// after the rule is checked again under its row lock.
func (j Stale) Run(ctx context.Context, r Run) (Result, error) {
	var res Result
	cutoff := r.Now.Add(-j.After)
	limit := r.Budget.MaxRows
	if limit <= 0 {
		limit = 1000
	}
	// One more than the budget tells a full batch from the last one.
	ids, err := j.Store.StaleFacts(ctx, cutoff, r.Project, limit+1)
	if err != nil {
		return res, err
	}
	if len(ids) > limit {
		ids, res.Partial = ids[:limit], true
	}
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			res.Partial = true
			return res, nil
		}
		res.Examined++
		if r.DryRun {
			res.add(Item{ID: id.String(), Action: "archive", Reason: "stale"})
			continue
		}
		changed, err := j.Store.ArchiveStale(ctx, id, cutoff, r.Actor)
		if err != nil {
			return res, err
		}
		if changed {
			res.add(Item{ID: id.String(), Action: "archive", Reason: "stale"})
		}
	}
	return res, nil
}
