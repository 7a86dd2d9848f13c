package store

import (
	"errors"
	"time"

	"github.com/google/uuid"
)

// Errors of the project brain's store methods; callers match them with errors.Is.
var (
	// ErrStale means a change was made against a version of a goal or plan that is no longer
	// the live one; nothing was applied.
	ErrStale = errors.New("the document changed since")
	// ErrDecided means a proposal was already approved or rejected.
	ErrDecided = errors.New("proposal already decided")
)

// DocumentWrite sets a project's live goal or plan: it replaces the live row's text and vector
// (an update event in history keeps the old text) or, when there is none, inserts one.
type DocumentWrite struct {
	ID         uuid.UUID // the id of the row an insert creates
	ScopeKey   string
	Kind       Kind // KindGoal or KindPlan
	Text       string
	Vector     Vector
	Provenance Provenance
	Actor      string         // recorded in history
	Detail     map[string]any // added to the history entry
}

// ProposalStatus is where a proposal stands in the inbox.
type ProposalStatus string

// Proposal statuses. A pending proposal becomes stale when its document changes before it
// is decided; a stale proposal is never applied.
const (
	ProposalPending  ProposalStatus = "pending"
	ProposalApproved ProposalStatus = "approved"
	ProposalRejected ProposalStatus = "rejected"
	ProposalStale    ProposalStatus = "stale"
)

// Proposal is an agent's suggested goal or plan, waiting for a human.
type Proposal struct {
	ID       uuid.UUID
	ScopeKey string
	Layer    Kind // KindGoal or KindPlan
	// BaseSeq is the change seq of the live document the proposal was made against; 0 when
	// the project had none.
	BaseSeq int64
	// BaseVersion is that document's version (store.Memory.Version), what people are shown.
	BaseVersion int64
	Text        string
	Reason      string
	Agent       string
	Session     string
	Actor       string // the token that proposed it
	Status      ProposalStatus
	DecidedBy   string
	DecidedAt   *time.Time
	CreatedAt   time.Time
}

// ProposalQuery lists one project's proposals, newest first.
type ProposalQuery struct {
	ScopeKey string
	Statuses []ProposalStatus // empty: every status
	Limit    int
}

// ProjectMap is the uploaded map of one project.
type ProjectMap struct {
	ScopeKey    string
	Map         []byte // the map's JSON form (projectmap.Map)
	Summary     string // the compact text the banner embeds
	Fingerprint string
	GeneratedAt time.Time
	UpdatedAt   time.Time
}

// SpawnQuery asks for what one project's spawn banner is built from.
type SpawnQuery struct {
	ScopeKey   string
	Candidates int // live facts by importance, most recently updated first
	Recent     int // newest live facts
	Journal    int // newest journal entries
	Conflicts  int // open conflicts, most severe first
}

// SpawnRows is one project's banner material, read in one round trip.
type SpawnRows struct {
	Goal, Plan *Memory
	Map        *ProjectMap // Map bytes not loaded
	Candidates []Memory
	Recent     []Memory
	Journal    []Memory
	// Conflicts are the first open conflicts, OpenConflicts how many are open in all.
	Conflicts     []Conflict
	OpenConflicts int64
}

// Health is one project's health snapshot.
type Health struct {
	Facts, FactsSince            int64
	Journal, JournalSince        int64
	Folds, FoldsSince            int64
	NeverHit                     int64 // live facts no search or get ever returned
	ArchivedByReason             map[string]int64
	PendingProposals             int64
	OldestPending                *time.Time
	GoalUpdatedAt, PlanUpdatedAt *time.Time
	MapGeneratedAt               *time.Time // nil: the project has no map
	TopHit                       []Memory

	// Maintenance's work (docs/maintenance.md): consolidation merges, facts marked
	// superseded, open conflicts, and the LLM calls and tokens of every project this week
	// (worker_calls keeps no project).
	Merges, MergesSince int64
	Superseded          int64
	OpenConflicts       int64
	OldestConflict      *time.Time
	LLMCalls, LLMTokens int64
}
