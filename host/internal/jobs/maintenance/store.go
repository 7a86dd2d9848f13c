package maintenance

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/memhost/memhost/host/internal/core/store"
)

// Store is what the jobs read and change directly in the database: the rows each job selects
// (its rule lives in the SQL, next to the index that serves it), the changes that are not a
// memory write (archive, purge, supersession, conflicts, vectors), the runs' ledger and the
// transcripts waiting for a summary. Every text a job writes as memory goes through the
// memory service instead, so it keeps the write rules. The PostgreSQL store implements it; the
// daemon passes it to New, and tests may pass any implementation.
type Store interface {
	Get(ctx context.Context, id uuid.UUID) (store.Memory, error)
	ProjectsWithFacts(ctx context.Context, project string) ([]string, error)
	// WithExclusive runs fn while this host holds the database-wide lock name; false when
	// another host holds it.
	WithExclusive(ctx context.Context, name string, fn func() error) (bool, error)

	// Staleness, dormancy, journal pruning and purge: the candidates, then one row at a time.
	StaleFacts(ctx context.Context, cutoff time.Time, project string, limit int) ([]uuid.UUID, error)
	ArchiveStale(ctx context.Context, id uuid.UUID, cutoff time.Time, actor string) (changed bool, err error)
	DormantFacts(ctx context.Context, cutoff time.Time, project string, limit int) ([]uuid.UUID, error)
	ArchiveDormant(ctx context.Context, id uuid.UUID, cutoff time.Time, actor string) (changed bool, err error)
	RestoreDormant(ctx context.Context, key, actor string) ([]uuid.UUID, error)
	// SetProjectArchived records the operator's archive or unarchive of a project and runs also
	// (nil: nothing) in the same transaction.
	SetProjectArchived(ctx context.Context, p store.ProjectState, also func(pgx.Tx) error) error
	OldJournal(ctx context.Context, cutoff time.Time, project string, limit int) ([]uuid.UUID, error)
	ArchiveOldJournal(ctx context.Context, id uuid.UUID, cutoff time.Time, actor string) (changed bool, err error)
	Purgeable(ctx context.Context, cutoff time.Time, project string, limit int) ([]uuid.UUID, error)
	Purge(ctx context.Context, p store.PurgeParams) (purged bool, err error)

	// Consolidation and conflicts.
	ConsolidationFacts(ctx context.Context, project, embedder string, limit int) ([]store.ConsolidationFact, error)
	KeptApart(ctx context.Context, project string) (map[string]bool, error)
	StatementsFor(ctx context.Context, q store.StatementsQuery) ([]store.Memory, error)
	ConflictPairs(ctx context.Context, key string) (map[string]bool, error)
	FileConflict(ctx context.Context, c store.Conflict) (filed bool, err error)
	Supersede(ctx context.Context, p store.SupersedeParams) (store.Memory, bool, error)

	// Session summaries.
	QueueTranscriptTx(ctx context.Context, tx pgx.Tx, t store.SessionTranscript) error
	PendingTranscripts(ctx context.Context, project string, limit int) ([]store.SessionTranscript, error)
	SummarizeJournal(ctx context.Context, sum store.JournalSummary) (store.Memory, error)
	TranscriptFailed(ctx context.Context, journalID uuid.UUID, reason string) (int, error)
	DropTranscript(ctx context.Context, journalID uuid.UUID) error

	// Re-embedding.
	VectorCoverage(ctx context.Context, embedder string) (store.VectorCoverage, error)
	Unembedded(ctx context.Context, q store.UnembeddedQuery) ([]store.Unembedded, error)
	PutVectors(ctx context.Context, embedder string, items []store.Embedded) (int, error)
	JobThroughput(ctx context.Context, job string, since time.Time) (changed int64, busy time.Duration, err error)

	// The runs' ledger.
	StartRun(ctx context.Context, r store.MaintenanceRun, live store.LiveRuns) (id int64, claimed bool, err error)
	Heartbeat(ctx context.Context, id int64, at time.Time) error
	FinishRun(ctx context.Context, r store.MaintenanceRun) error
	AbandonRuns(ctx context.Context, live store.LiveRuns, at time.Time) (int64, error)
	LastRuns(ctx context.Context, project string) (map[string]store.MaintenanceRun, error)
	LastWindows(ctx context.Context) (map[string]time.Time, error)
}
