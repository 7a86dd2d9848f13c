package maintenance

import (
	"context"
	"time"

	"github.com/memhost/memhost/host/internal/store/pgstore"
)

// Purge hard-deletes memories archived longer ago than Grace (pinned ones never): the only
// job that deletes. Each leaves a purge row in its history (who, when, why, the text's
// sha256; the ledger's texts are erased) and a tombstone on the change feed, from which every
// host's in-process indexes drop it. The rule is pgstore's purgeable.
type Purge struct {
	Store *pgstore.Store
	Grace time.Duration
}

// Name implements Job.
func (Purge) Name() string { return "purge" }

// Run implements Job: up to Budget.MaxRows memories, each in its own transaction after the
// rule is checked again under its row lock (a memory restored since the scan is kept).
func (j Purge) Run(ctx context.Context, r Run) (Result, error) {
	var res Result
	cutoff := r.Now.Add(-j.Grace)
	limit := r.Budget.MaxRows
	if limit <= 0 {
		limit = 1000
	}
	ids, err := j.Store.Purgeable(ctx, cutoff, r.Project, limit+1)
	if err != nil {
		return res, err
	}
	if len(ids) > limit {
		ids, res.Partial = ids[:limit], true
	}
	reason := "archived for over " + j.Grace.String()
	for _, id := range ids {
		if ctx.Err() != nil {
			res.Partial = true
			return res, nil
		}
		res.Examined++
		if r.DryRun {
			res.add(Item{ID: id.String(), Action: "purge", Reason: reason})
			continue
		}
		purged, err := j.Store.Purge(ctx, id, cutoff, r.Actor, reason)
		if err != nil {
			return res, err
		}
		if purged {
			res.add(Item{ID: id.String(), Action: "purge", Reason: reason})
		}
	}
	return res, nil
}
