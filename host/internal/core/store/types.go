package store

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Scope is where a memory lives: one project, or global (every project sees it).
type Scope string

// The two scopes. There is no session scope: a session always works in a project.
const (
	ScopeProject Scope = "project"
	ScopeGlobal  Scope = "global"
)

// ParseScope accepts "project" (also the default for "") and "global".
func ParseScope(s string) (Scope, error) {
	switch Scope(strings.ToLower(strings.TrimSpace(s))) {
	case "", ScopeProject:
		return ScopeProject, nil
	case ScopeGlobal:
		return ScopeGlobal, nil
	}
	return "", fmt.Errorf("scope: %q is not one of project, global", s)
}

// Kind classifies a memory. The set is closed and documented in docs/memory-model.md; each
// kind has its own recency half-life in the ranker.
type Kind string

// The memory kinds, drawn from the seeds (opendray's categories, Auto Claude's typed memories).
const (
	KindFact         Kind = "fact"          // something true about the project ("CI runs on Buildkite")
	KindDecision     Kind = "decision"      // a choice made and why ("we chose pgx over database/sql for COPY")
	KindConvention   Kind = "convention"    // how things are done here ("use pnpm, never npm")
	KindGotcha       Kind = "gotcha"        // a trap that cost time ("tests need TZ=UTC")
	KindPreference   Kind = "preference"    // the user's taste ("prefers table-driven tests")
	KindErrorPattern Kind = "error_pattern" // an error and its fix ("EADDRINUSE 5432: stop the system postgres")
	KindReference    Kind = "reference"     // where to find something ("runbooks live in docs/ops")
)

// Kinds lists every kind in documentation order.
var Kinds = []Kind{KindFact, KindDecision, KindConvention, KindGotcha, KindPreference, KindErrorPattern, KindReference}

// ParseKind accepts a kind name; "" means fact.
func ParseKind(s string) (Kind, error) {
	k := Kind(strings.ToLower(strings.TrimSpace(s)))
	if k == "" {
		return KindFact, nil
	}
	for _, known := range Kinds {
		if k == known {
			return k, nil
		}
	}
	if hint, ok := layerHint(k); ok {
		return "", fmt.Errorf("kind: %s", hint)
	}
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = string(k)
	}
	return "", fmt.Errorf("kind: %q is not one of %s", s, strings.Join(names, ", "))
}

// Provenance says who wrote a memory.
type Provenance struct {
	Agent   string `json:"agent,omitempty"`   // e.g. "claude-code", "codex", "gemini-cli"
	Session string `json:"session,omitempty"` // the agent's session id, when it has one
	Source  string `json:"source,omitempty"`  // "mcp", "rest", "import", ...
}

// Merged is a text a memory absorbed through a fold, kept so folding is lossless.
type Merged struct {
	Text  string    `json:"text"`
	Agent string    `json:"agent,omitempty"`
	At    time.Time `json:"at"`
}

// Memory is one stored memory.
type Memory struct {
	ID             uuid.UUID
	Scope          Scope
	ScopeKey       string // the project key; "" for global
	Kind           Kind
	Text           string
	Importance     float64
	Confidence     float64
	Pinned         bool
	HitCount       int64
	LastHitAt      *time.Time
	Provenance     Provenance
	Embedder       string
	DedupedCount   int      // how many writes folded into this row
	MergedFrom     []Merged // newest last, bounded
	CreatedAt      time.Time
	UpdatedAt      time.Time
	ArchivedAt     *time.Time
	ArchivedReason string
	Seq            int64
	// SupersededBy links a fact the conflicts job found clearly replaced to its successor:
	// still live, ranked below it, shown as superseded.
	SupersededBy *uuid.UUID
	// Version numbers a goal's or plan's texts: 1 when first set, one more per change. Only
	// document reads fill it in; it is 0 on every other row.
	Version int64
}

// Archived reports whether the memory is soft-deleted.
func (m Memory) Archived() bool { return m.ArchivedAt != nil }

// Event names a change recorded in the history ledger.
type Event string

// History events.
const (
	EventAdd     Event = "add"
	EventFold    Event = "fold"
	EventUpdate  Event = "update"
	EventArchive Event = "archive"
	EventRestore Event = "restore"
	EventPin     Event = "pin"
	EventUnpin   Event = "unpin"
	EventMerge   Event = "merge"
	EventImport  Event = "import"
	// EventPurge ends a purged memory's ledger: the memory is gone and the ledger's texts are
	// erased; the row keeps who, when, why and the text's sha256.
	EventPurge Event = "purge"
)

// HistoryEntry is one row of the history ledger.
type HistoryEntry struct {
	ID         int64          `json:"id"`
	MemoryID   uuid.UUID      `json:"memory_id"`
	Event      Event          `json:"event"`
	BeforeText *string        `json:"before_text,omitempty"`
	AfterText  *string        `json:"after_text,omitempty"`
	Actor      string         `json:"actor,omitempty"`
	Detail     map[string]any `json:"detail,omitempty"`
	CreatedAt  time.Time      `json:"created_at"`
}

// Vector is an embedding and the embedder that produced it.
type Vector struct {
	Embedder   string
	Dimensions int
	Values     []float32
}

// Pending reports whether v names its embedder but holds no values yet: a write stored
// before its embedder answered, whose vector follows (memory.Service.FollowVectors). A
// pending write is inserted without a vector row, and its fold lookup finds candidates
// without their similarity.
func (v Vector) Pending() bool { return v.Embedder != "" && v.Values == nil }

// IsZero reports whether v has no direction: an embedder maps text it has no tokens for
// (emoji, symbols) to the zero vector, whose cosine similarity to anything is undefined.
func (v Vector) IsZero() bool {
	for _, f := range v.Values {
		if f != 0 {
			return false
		}
	}
	return true
}

// Write is a new memory on its way in: validated, redacted and embedded. Whether it folds
// into an existing row or is inserted is the memory domain's decision (memory.FoldOrInsert);
// the store offers the scope lock and the primitives (ScopeTx) that decision runs on.
type Write struct {
	ID         uuid.UUID // the id of the row an insert creates
	Scope      Scope
	ScopeKey   string
	Kind       Kind
	Text       string
	Importance float64
	Confidence float64
	Pinned     bool
	Provenance Provenance
	Vector     Vector
	Actor      string // recorded in history
}

// Ref is the ScopeRef the write goes to.
func (w Write) Ref() ScopeRef { return ScopeRef{Scope: w.Scope, Key: w.ScopeKey} }

// Neighbour is a live memory of a write's scope near the write's vector.
type Neighbour struct {
	Memory
	Similarity float64 // cosine similarity, never NaN
}

// FoldParams is a fold the memory domain decided: row ID absorbs a write and afterwards holds
// exactly these fields. The store writes the row and its history entry; it decides nothing.
type FoldParams struct {
	ID           uuid.UUID
	Kind         Kind
	Importance   float64
	Confidence   float64
	Pinned       bool
	DedupedCount int
	MergedFrom   []Merged
	// Replacement is set when the incoming text became canonical: the row takes its text,
	// vector and provenance. Nil keeps the row's own.
	Replacement *Replacement
	// The fold's history entry: the canonical text before and after, who and why.
	Before, After string
	Actor         string
	Detail        map[string]any
}

// Replacement is the incoming side of a fold whose text won.
type Replacement struct {
	Text       string
	Vector     Vector
	Provenance Provenance
}

// TextHash is the exact-duplicate key the store keeps per memory: sha256 of NormalizeText(text).
func TextHash(text string) []byte {
	sum := sha256.Sum256([]byte(NormalizeText(text)))
	return sum[:]
}

// NormalizeText is the form in which two texts are the same memory (an exact duplicate):
// case-folded, with runs of whitespace collapsed, so "Use pnpm." and "use  pnpm." match.
func NormalizeText(text string) string {
	return strings.ToLower(strings.Join(strings.Fields(text), " "))
}

// TextQuery asks for the memories whose whole text is text (compared by NormalizeText), for
// queries neither retrieval index has anything for (emoji, symbols).
type TextQuery struct {
	Text            string
	Scopes          []ScopeRef
	Kinds           []Kind
	IncludeArchived bool
	Limit           int
}

// ScopeRef names one scope partition: a project, or global.
type ScopeRef struct {
	Scope Scope
	Key   string
}

// Project is the ScopeRef of a project key.
func Project(key string) ScopeRef { return ScopeRef{Scope: ScopeProject, Key: key} }

// Global is the ScopeRef of the global scope.
var Global = ScopeRef{Scope: ScopeGlobal}

// VectorQuery asks for the nearest memories to a vector.
type VectorQuery struct {
	Vector          Vector
	Scopes          []ScopeRef
	Kinds           []Kind
	IncludeArchived bool
	Limit           int
}

// Loaded is a memory and, when asked, its similarity to a query vector.
type Loaded struct {
	Memory
	Similarity *float64
}

// VectorHit is one nearest neighbour.
type VectorHit struct {
	ID         uuid.UUID
	Similarity float64
}

// ArchiveParams soft-deletes (Archived true) or restores one memory; Reason is kept with an
// archive, and Actor is recorded in its history.
type ArchiveParams struct {
	ID       uuid.UUID
	Archived bool
	Reason   string
	Actor    string
}

// IDRangeQuery asks for up to Limit ids in [Lo, Hi) (Hi nil: no upper bound) among Scopes,
// archived included, in id order.
type IDRangeQuery struct {
	Lo     uuid.UUID
	Hi     *uuid.UUID
	Scopes []ScopeRef
	Limit  int
}

// ListQuery pages through memories newest first.
type ListQuery struct {
	Scopes          []ScopeRef
	Kinds           []Kind
	IncludeArchived bool
	OnlyArchived    bool
	Filter          Filter
	Before          *Cursor // page after this position
	Limit           int
}

// Cursor is a position in a newest-first listing.
type Cursor struct {
	CreatedAt time.Time
	ID        uuid.UUID
}

// CursorOf is the cursor just past m in a newest-first listing.
func CursorOf(m Memory) Cursor { return Cursor{CreatedAt: m.CreatedAt, ID: m.ID} }

// String encodes the cursor as the opaque token clients pass back (next_cursor).
func (c Cursor) String() string {
	b := make([]byte, 8+16)
	binary.BigEndian.PutUint64(b, uint64(c.CreatedAt.UnixMicro()))
	copy(b[8:], c.ID[:])
	return base64.RawURLEncoding.EncodeToString(b)
}

// ParseCursor decodes what String encoded; ok is false for anything else.
func ParseCursor(s string) (c Cursor, ok bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) != 24 {
		return Cursor{}, false
	}
	copy(c.ID[:], b[8:])
	c.CreatedAt = time.UnixMicro(int64(binary.BigEndian.Uint64(b))).UTC()
	return c, true
}

// Change is one entry of the change feed: the indexed fields of a memory as of Seq.
type Change struct {
	Seq      int64
	ID       uuid.UUID
	Scope    Scope
	ScopeKey string
	Kind     Kind
	Text     string
	Archived bool
	// Purged is a tombstone: the memory was hard-deleted and indexes drop it.
	Purged bool
	// Merged are the texts the memory absorbed by folding (merged_from). They are indexed with
	// it, so a search for a folded-away statement finds the memory that holds it.
	Merged []string
}

// Counts summarises the store for status pages.
type Counts struct {
	Live       int64            `json:"live"`
	Archived   int64            `json:"archived"`
	Projects   int64            `json:"projects"`
	Global     int64            `json:"global"`
	ByEmbedder map[string]int64 `json:"by_embedder"` // live memories with a vector of each embedder
	// ANNDeferred counts vectors not yet in the ANN index (found by exact scan meanwhile).
	ANNDeferred int64 `json:"ann_deferred"`
	// TableBytes is the memories and vectors tables' size on disk, Graphs the scopes' HNSW graphs and
	// GraphBytes theirs: what Postgres must keep in memory for searches to stay fast.
	TableBytes int64 `json:"table_bytes"`
	Graphs     int64 `json:"graphs"`
	GraphBytes int64 `json:"graph_bytes"`
	// SharedBuffers is Postgres's own page cache (shared_buffers) in bytes: what it keeps in
	// memory whatever the OS does with its page cache (docs/operations.md, Sizing Postgres).
	SharedBuffers int64 `json:"shared_buffers_bytes"`
}

// ExportRecord is one memory with its full history and vector, as written by export.
type ExportRecord struct {
	Memory  Memory
	Vector  Vector
	History []HistoryEntry
}

// ImportResult counts what an import did.
type ImportResult struct {
	Inserted int
	Skipped  int // already present (same id): imports are idempotent
}
