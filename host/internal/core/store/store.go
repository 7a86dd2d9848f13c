package store

import (
	"context"
	"iter"

	"github.com/google/uuid"
)

// A Store answers rules.ErrNotFound for a memory that is not there (or not in the caller's
// scope), and rules.ErrConflict for a change that would create a second live memory with the
// same text; callers match them with errors.Is.

// Store is the durable memory store.
type Store interface {
	// WithScopeLock runs fn in one transaction that holds the write lock of scope from fn's
	// first call on tx until the commit. Writes to one scope serialise on it across every host
	// sharing the store, so what fn reads through tx stays true until it commits: the same fact
	// written twice at once ends in one row. ScopeTx says when the write commits; an error
	// before that rolls everything back.
	WithScopeLock(ctx context.Context, scope ScopeRef, fn func(tx ScopeTx) error) error
	Get(ctx context.Context, id uuid.UUID) (Memory, error)
	// GetMany returns the memories that exist among ids, in no particular order. With
	// similarTo set, each carries its cosine similarity to that vector (nil for rows of another
	// embedder, and where a zero vector on either side leaves it undefined), so search scores
	// lexical-only candidates in the same round trip.
	GetMany(ctx context.Context, ids []uuid.UUID, similarTo *Vector) ([]Loaded, error)
	List(ctx context.Context, q ListQuery) ([]Memory, error)
	// SetArchived soft-deletes or restores a memory and records it in history.
	SetArchived(ctx context.Context, p ArchiveParams) (Memory, error)
	SetPinned(ctx context.Context, id uuid.UUID, pinned bool, actor string) (Memory, error)
	History(ctx context.Context, id uuid.UUID) ([]HistoryEntry, error)
	// PurgedScope returns the scope a purged memory lived in (found false if id was never
	// purged): its history still answers, to callers who could see it.
	PurgedScope(ctx context.Context, id uuid.UUID) (ref ScopeRef, found bool, err error)
	// Nearest returns the live (or, if asked, archived) memories closest to q.Vector among rows
	// of the same embedder, best first. A zero vector has no neighbours, and rows holding one
	// are never returned: their similarity is undefined.
	Nearest(ctx context.Context, q VectorQuery) ([]VectorHit, error)
	// IDsBetween returns the ids q asks for: a short id prefix resolves through the primary
	// key's order without a scan.
	IDsBetween(ctx context.Context, q IDRangeQuery) ([]uuid.UUID, error)
	// IDsEndingWith returns up to limit ids whose hex digits end with digits (at least
	// shortid.Len of them) among the given scopes, archived included: a short id resolves
	// through an index on the ids' last digits without a scan.
	IDsEndingWith(ctx context.Context, digits string, scopes []ScopeRef, limit int) ([]uuid.UUID, error)
	// MatchText returns the ids of the memories whose whole text is q.Text, newest first.
	MatchText(ctx context.Context, q TextQuery) ([]uuid.UUID, error)
	// RecordHits adds hits[id] to each memory's hit_count and sets last_hit_at; it does not
	// advance the change feed.
	RecordHits(ctx context.Context, hits map[uuid.UUID]int64) error
	// RecordRetrievals sets last_retrieved_at on each memory (returned by a search or a get);
	// it changes no rank and does not advance the change feed.
	RecordRetrievals(ctx context.Context, ids []uuid.UUID) error
	// Changes returns feed entries with seq > after in seq order. Seqs become visible in commit
	// order, so a reader that resumes from the last seq it saw never misses a change.
	Changes(ctx context.Context, after int64, limit int) ([]Change, error)
	// EnsureVectorIndex prepares the ANN indexing of one embedder's vectors: it checks and
	// registers the embedder's width, and the store indexes that embedder's large scopes from
	// then on (pgstore builds each their own graph in the background).
	EnsureVectorIndex(ctx context.Context, embedder string, dimensions int) error
	// IndexDeferred moves up to limit deferred rows into the ANN index (Import defers that
	// cost, and so may a write) and returns how many it moved; 0 means nothing is pending. Safe to run from
	// several hosts at once. A graph insertion costs milliseconds, so limit bounds how long
	// one call holds a core.
	// A row the index refuses is set aside and counted, and the error names it.
	IndexDeferred(ctx context.Context, limit int) (int, error)
	Counts(ctx context.Context) (Counts, error)
	// Export streams one scope's memories (archived included) with history and vectors.
	Export(ctx context.Context, scope ScopeRef, fn func(ExportRecord) error) error
	// Import inserts records whose id is not present yet, in one transaction.
	Import(ctx context.Context, records []ExportRecord) (ImportResult, error)
	// ImportBatches inserts the records of every batch whose id is not present yet, all in one
	// transaction: an error from batches (or from the store) rolls back every batch before it.
	ImportBatches(ctx context.Context, batches iter.Seq2[[]ExportRecord, error]) (ImportResult, error)
	// VectorDimensions returns the width every stored vector of each embedder has; the store
	// refuses a vector of another width.
	VectorDimensions(ctx context.Context) (map[string]int, error)
	// Merge is a consolidation merge (MergeParams), in one transaction under the scope's lock:
	// the absorbed are archived "merged into <survivor>", their texts kept in its merged_from.
	Merge(ctx context.Context, p MergeParams) (survivor Memory, absorbed []Memory, err error)
	// PendingUnmerge reads what unmerging survivor would restore.
	PendingUnmerge(ctx context.Context, survivor Memory) (MergeUndo, error)
	// Unmerge restores what a survivor absorbed and, if asked, its prior text.
	Unmerge(ctx context.Context, p UnmergeParams) (survivor Memory, restored []Memory, err error)
	// Unsupersede clears a memory's supersession (Memory.SupersededBy) and records the pair
	// as a dismissed conflict; changed is false when it was not superseded.
	Unsupersede(ctx context.Context, id uuid.UUID, actor string) (m Memory, changed bool, err error)
}

// ScopeTx is what a write may do under its scope's lock; every method works in that scope
// only, on live (not archived) memories.
//
// A write is a lookup and then one final change: the store may send the lock, the
// transaction's start and the lookup together, and commit with the final change, so a write
// costs two round trips. Insert, Fold and Edit are final: they commit when they succeed, and no
// method may be called on tx after one of them (it returns an error). An error from Lookup,
// from the final change, or from fn before the final change rolls the write back.
type ScopeTx interface {
	// Lookup returns what a write of text with vector v may fold into: the live memory whose
	// text is text (compared by NormalizeText), if any, and its neighbours: those of the
	// candidates (memory ids the caller chose, from an index that may lag) and of the scope's
	// few newest facts (which a concurrent write may have added since) that are live facts of
	// the locked scope holding a vector of v's embedder, with their similarity to v, best
	// first. A zero vector has no direction, so it has no neighbours; nor do rows holding one.
	// A nil v (Vector{}) looks up the exact match alone. A pending v (Vector.Pending: the
	// write's vector is not there yet) gets the same candidates whatever vectors they hold,
	// with similarity 0, in the order of candidates, then the newest.
	Lookup(ctx context.Context, text string, v Vector, candidates []uuid.UUID) (Candidates, error)
	// Insert adds w as a new row with an add entry in history, and commits. w must be of the
	// locked scope. A pending w.Vector stores no vector: it follows (PutVectors).
	Insert(ctx context.Context, w Write) (Memory, error)
	// Fold updates a live row of the locked scope as p says, records the fold in history, and
	// commits. A row that is not live in the locked scope is rules.ErrNotFound, and nothing changes.
	Fold(ctx context.Context, p FoldParams) (Memory, error)
	// Edit updates a live fact of the locked scope as p says, records an update in history, and
	// commits. A row that is not a live fact of the locked scope is rules.ErrNotFound; a text another
	// live memory of the scope holds is rules.ErrConflict; either way nothing changes.
	Edit(ctx context.Context, p EditParams) (Memory, error)
}

// Candidates is what ScopeTx.Lookup found.
type Candidates struct {
	Exact      *Memory     // the live memory with the same text, nil if none
	Neighbours []Neighbour // the candidates that may absorb the write, most similar first
}
