package store

import (
	"context"
	"errors"

	"github.com/google/uuid"
)

// Errors a Store returns; callers match them with errors.Is.
var (
	ErrNotFound = errors.New("memory not found")
	// ErrConflict means the change would create a second live memory with the same text.
	ErrConflict = errors.New("conflicts with a live memory")
)

// Store is the durable memory store.
type Store interface {
	// Write folds w into its nearest neighbour in the same scope and embedder when the
	// similarity reaches w.FoldThreshold (or the text is identical), else inserts it. Concurrent
	// writes to one scope are serialised, so the same fact written twice at once ends in one row.
	Write(ctx context.Context, w Write) (WriteResult, error)
	Get(ctx context.Context, id uuid.UUID) (Memory, error)
	// GetMany returns the memories that exist among ids, in no particular order. With
	// similarTo set, each carries its cosine similarity to that vector (nil for rows of another
	// embedder), so search scores lexical-only candidates in the same round trip.
	GetMany(ctx context.Context, ids []uuid.UUID, similarTo *Vector) ([]Loaded, error)
	List(ctx context.Context, q ListQuery) ([]Memory, error)
	// SetArchived soft-deletes (archived=true) or restores a memory and records it in history.
	SetArchived(ctx context.Context, id uuid.UUID, archived bool, reason, actor string) (Memory, error)
	SetPinned(ctx context.Context, id uuid.UUID, pinned bool, actor string) (Memory, error)
	History(ctx context.Context, id uuid.UUID) ([]HistoryEntry, error)
	// Nearest returns the live (or, if asked, archived) memories closest to q.Vector among rows
	// of the same embedder, best first.
	Nearest(ctx context.Context, q VectorQuery) ([]VectorHit, error)
	// RecordHits adds hits[id] to each memory's hit_count and sets last_hit_at; it does not
	// advance the change feed.
	RecordHits(ctx context.Context, hits map[uuid.UUID]int64) error
	// Changes returns feed entries with seq > after in seq order. Seqs become visible in commit
	// order, so a reader that resumes from the last seq it saw never misses a change.
	Changes(ctx context.Context, after int64, limit int) ([]Change, error)
	// EnsureVectorIndex creates the ANN index for one embedder's vectors if it is missing, and
	// rebuilds it if it is invalid or was built with other parameters.
	EnsureVectorIndex(ctx context.Context, embedder string, dimensions int) error
	// IndexDeferred moves up to limit imported rows into the ANN index (Import defers that
	// cost) and returns how many it moved; 0 means nothing is pending. Safe to run from
	// several hosts at once. Callers use IndexDeferredBatch unless they have a reason not to.
	IndexDeferred(ctx context.Context, limit int) (int, error)
	Counts(ctx context.Context) (Counts, error)
	// Export streams one scope's memories (archived included) with history and vectors.
	Export(ctx context.Context, scope ScopeRef, fn func(ExportRecord) error) error
	// Import inserts records whose id is not present yet, in one transaction.
	Import(ctx context.Context, records []ExportRecord) (ImportResult, error)
}
