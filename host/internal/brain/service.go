package brain

import (
	"context"
	"sync"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/memhost/memhost/host/internal/brain/banner"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
)

// Store is what the brain needs from storage; *pgstore.Store implements it.
type Store interface {
	// WithScopeLock is store.Store's: journal entries are inserted through it.
	WithScopeLock(ctx context.Context, scope store.ScopeRef, fn func(tx store.ScopeTx) error) error
	// InsertWith inserts a journal entry that comes with a session's transcript, queueing its
	// summary in the same transaction.
	InsertWith(ctx context.Context, w store.Write, then func(tx pgx.Tx, m store.Memory) error) (store.Memory, error)
	Document(ctx context.Context, key string, kind store.Kind) (store.Memory, error)
	SetDocument(ctx context.Context, w store.DocumentWrite) (store.Memory, error)
	CreateProposal(ctx context.Context, p store.Proposal) (store.Proposal, error)
	Proposal(ctx context.Context, key string, id uuid.UUID) (store.Proposal, error)
	Proposals(ctx context.Context, q store.ProposalQuery) ([]store.Proposal, error)
	ProposalIDsEndingWith(ctx context.Context, key, digits string, limit int) ([]uuid.UUID, error)
	ApproveProposal(ctx context.Context, key string, id uuid.UUID, w store.DocumentWrite) (store.Proposal, store.Memory, error)
	RejectProposal(ctx context.Context, key string, id uuid.UUID, actor string) (store.Proposal, error)
	Journal(ctx context.Context, key string, limit int, before *store.Cursor) ([]store.Memory, error)
	PutMap(ctx context.Context, m store.ProjectMap) (store.ProjectMap, error)
	ProjectMap(ctx context.Context, key string) (store.ProjectMap, error)
	Spawn(ctx context.Context, q store.SpawnQuery) (store.SpawnRows, error)
	Health(ctx context.Context, key string, since time.Time) (store.Health, error)
	KnownTexts(ctx context.Context, key string, texts []string) (map[string]bool, error)
	ConflictStore
	SessionStore
}

// Config tunes the brain.
type Config struct {
	// MapMaxAge is the age after which a project map is stale: a host that can see the
	// project rebuilds it when asked for it, and surfaces say it is stale.
	MapMaxAge time.Duration
	// MapSummaryBytes bounds the map summary stored at upload, which the banner embeds.
	MapSummaryBytes int
	// Banner holds the banner's defaults: Budget when a request gives none, RecentWindow and
	// JournalEntries always.
	Banner banner.Options
	// MaxPendingProposals bounds a project's pending proposals (1..MaxInbox): each waits for
	// a person to read it, so an agent that files hundreds buries the ones that matter.
	MaxPendingProposals int
	// TaskContext gives a session the facts relevant to its task: a banner section when the
	// task is known at spawn, and a prompt hook's context for each prompt (task.go). Off, a
	// banner is query-less and prompt hooks add nothing (brain.prompt_context).
	TaskContext bool
	// TaskFloor is the score a fact must reach to be given for a task (brain.prompt_floor).
	TaskFloor float64
}

// DefaultConfig is the configuration memhost ships with.
func DefaultConfig() Config {
	return Config{
		MapMaxAge: 24 * time.Hour, MapSummaryBytes: 4096, MaxPendingProposals: DefaultMaxPendingProposals,
		TaskContext: true, TaskFloor: DefaultTaskFloor,
		Banner: banner.Options{Budget: banner.DefaultBudget, RecentWindow: banner.DefaultRecentWindow, JournalEntries: banner.DefaultJournalEntries},
	}
}

// Service is the project brain over one store and the memory service whose embedder,
// indexes and ranker it shares.
type Service struct {
	st  Store
	mem *memory.Service
	cfg Config
	now func() time.Time
	// proposing serialises Propose's read of the pending proposals and its insert, so that
	// proposals filed at once cannot all pass the duplicate check and the cap. Proposals are
	// rare; one lock for all projects costs nothing.
	proposing sync.Mutex
	// summarizer queues session summaries; nil journals metadata alone.
	summarizer Summarizer
	// conflictChecks says whether conflict checking is on; nil: this core cannot tell.
	conflictChecks ConflictChecks
	// metrics counts session records; nil counts nothing.
	metrics *Metrics
}

// Option configures a Service.
type Option func(*Service)

// WithClock replaces the clock (tests pin it to render deterministic banners).
func WithClock(now func() time.Time) Option { return func(s *Service) { s.now = now } }

// New builds the brain.
func New(st Store, mem *memory.Service, cfg Config, opts ...Option) *Service {
	s := &Service{st: st, mem: mem, cfg: cfg, now: time.Now}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Config returns the brain's configuration.
func (s *Service) Config() Config { return s.cfg }

// Layer names, as hits and requests spell them: a fact of any fact kind, or a layer kind.
const (
	LayerFact    = "fact"
	LayerJournal = string(store.KindJournal)
	LayerGoal    = string(store.KindGoal)
	LayerPlan    = string(store.KindPlan)
)

// Layers lists the layers in the order cross-layer search documents them.
var Layers = []string{LayerFact, LayerJournal, LayerGoal, LayerPlan}

// LayerOf names the layer of a memory kind.
func LayerOf(k store.Kind) string {
	if store.IsLayer(k) {
		return string(k)
	}
	return LayerFact
}

// check refuses an access without a project.
func check(a memory.Access) error {
	if a.Project == "" {
		return rules.Errf("project", "is required (pass project or cwd, or use a project-bound token)")
	}
	return nil
}
