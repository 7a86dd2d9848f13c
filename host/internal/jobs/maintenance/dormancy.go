package maintenance

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/memhost/memhost/host/internal/core/store"
)

// Dormancy archives, with reason "dormant", the never-retrieved facts of a project the
// operator archived (`memhost project archive`, which queues this job for the project in
// its transaction) or whose git HEAD, as its map last saw it, is older than After (or the
// run's OlderThan). `memhost project unarchive` restores what it archived. Pinned and
// retrieved facts are never touched; the rule is pgstore's dormantFact.
type Dormancy struct {
	Store Store
	After time.Duration
}

// Name implements Job.
func (Dormancy) Name() string { return "dormancy" }

// Run implements Job.
func (j Dormancy) Run(ctx context.Context, r Run) (Result, error) {
	cutoff := r.Now.Add(-age(r.OlderThan, j.After))
	return eachDue(ctx, r, "archive", "dormant",
		func(limit int) ([]uuid.UUID, error) { return j.Store.DormantFacts(ctx, cutoff, r.Project, limit) },
		func(id uuid.UUID) (bool, error) { return j.Store.ArchiveDormant(ctx, id, cutoff, r.Actor) })
}

// ArchiveProject records the operator's archive of project and, in the same transaction,
// queues the dormancy job for it (an event job: unique per project while queued).
func (m *Maintenance) ArchiveProject(ctx context.Context, project, actor string) error {
	return m.store.SetProjectArchived(ctx, store.ProjectState{Key: project, Archived: true, Actor: actor}, func(tx pgx.Tx) error {
		return m.EnqueueTx(ctx, tx, Dormancy{}.Name(), project)
	})
}

// UnarchiveProject makes project active again and restores what dormancy archived in it,
// returning the restored ids.
func (m *Maintenance) UnarchiveProject(ctx context.Context, project, actor string) ([]uuid.UUID, error) {
	if err := m.store.SetProjectArchived(ctx, store.ProjectState{Key: project, Actor: actor}, nil); err != nil {
		return nil, err
	}
	return m.store.RestoreDormant(ctx, project, actor)
}
