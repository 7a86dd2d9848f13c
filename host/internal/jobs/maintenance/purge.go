package maintenance

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/store"
)

// Purge hard-deletes memories archived longer ago than Grace (pinned ones never): the only
// job that deletes. Each leaves a purge row in its history (who, when, why, the text's
// sha256; the ledger's texts are erased) and a tombstone on the change feed, from which every
// host's in-process indexes drop it. The rule is pgstore's purgeable.
type Purge struct {
	Store Store
	Grace time.Duration
}

// Name implements Job.
func (Purge) Name() string { return "purge" }

// Run implements Job: each memory is purged after the rule is checked again under its row
// lock, so one restored since the scan is kept.
func (j Purge) Run(ctx context.Context, r Run) (Result, error) {
	grace := age(r.OlderThan, j.Grace)
	cutoff := r.Now.Add(-grace)
	reason := "archived for over " + grace.String()
	return eachDue(ctx, r, "purge", reason,
		func(limit int) ([]uuid.UUID, error) { return j.Store.Purgeable(ctx, cutoff, r.Project, limit) },
		func(id uuid.UUID) (bool, error) {
			return j.Store.Purge(ctx, store.PurgeParams{ID: id, Cutoff: cutoff, Actor: r.Actor, Reason: reason})
		})
}
