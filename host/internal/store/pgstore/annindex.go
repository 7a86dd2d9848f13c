package pgstore

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/memhost/memhost/host/internal/store"
)

// HNSWM and HNSWEfConstruction are the build parameters of every embedder's HNSW index. ef_construction is twice pgvector's default
// of 64: hashed BM25 vectors are sparse and their neighbourhoods flat, and the wider build walk
// is what lifts recall at 100K memories from 0.90 to the 0.95 target for ~15% more insert time
// (docs/benchmarks.md). Changing them makes EnsureVectorIndex rebuild existing indexes.
const (
	HNSWM              = 16
	HNSWEfConstruction = 128
)

// annReloptions is how pg_class.reloptions spells the build parameters, sorted for comparison.
var annReloptions = slices.Sorted(slices.Values([]string{fmt.Sprintf("m=%d", HNSWM), fmt.Sprintf("ef_construction=%d", HNSWEfConstruction)}))

// maxIdentifier is Postgres's identifier length; longer names are silently truncated, which
// would let two long embedder names share one index name.
const maxIdentifier = 63

// indexName is the partial HNSW index of one embedder: readable when it fits, otherwise cut
// and suffixed with a hash of the full embedder name so names stay distinct.
func indexName(embedder string) string {
	name := "memories_ann_" + strings.NewReplacer(".", "_", "-", "_").Replace(embedder)
	if len(name) <= maxIdentifier {
		return name
	}
	return name[:maxIdentifier-9] + "_" + embedderHash(embedder)
}

// rebuildPoll is how often a host waiting for another host's rebuild checks on it.
const rebuildPoll = 250 * time.Millisecond

// rebuildName is where a replacement index is built before it takes indexName's place.
func rebuildName(embedder string) string { return "memories_ann_next_" + embedderHash(embedder) }

func embedderHash(embedder string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(embedder))
	return fmt.Sprintf("%08x", h.Sum32())
}

func annIndexDDL(name, embedder string, dimensions int, concurrently bool) string {
	how := "INDEX IF NOT EXISTS"
	if concurrently {
		how = "INDEX CONCURRENTLY"
	}
	return fmt.Sprintf(`CREATE %s %s ON memories USING hnsw ((%s) vector_cosine_ops) WITH (m = %d, ef_construction = %d) WHERE embedder = '%s' AND NOT ann_deferred`,
		how, name, vecExpr(dimensions), HNSWM, HNSWEfConstruction, embedder)
}

// annIndexState is what the catalog says about an embedder's index.
type annIndexState int

const (
	annMissing annIndexState = iota
	annCurrent
	annStale // invalid (an interrupted concurrent build), or built with other parameters or predicate
)

func annState(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, name string, dimensions int) (annIndexState, error) {
	var valid bool
	var opts []string
	var def string
	var err error
	for attempt := 0; ; attempt++ {
		err = q.QueryRow(ctx, `SELECT i.indisvalid, coalesce(c.reloptions, '{}'), pg_get_indexdef(c.oid)
			FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indexrelid = to_regclass($1)`, name).Scan(&valid, &opts, &def)
		// Another host swapping in a rebuilt index can drop the one this query resolved before
		// pg_get_indexdef reads it; Postgres then fails the lookup. Looking again sees the new one.
		if !isDroppedUnderLookup(err) || attempt == 4 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return annMissing, nil
	}
	if err != nil {
		return 0, fmt.Errorf("look up index %s: %w", name, err)
	}
	slices.Sort(opts)
	if !valid || !slices.Equal(opts, annReloptions) || !strings.Contains(def, fmt.Sprintf("::vector(%d)", dimensions)) || !strings.Contains(def, "NOT ann_deferred") {
		return annStale, nil
	}
	return annCurrent, nil
}

// EnsureVectorIndex implements store.Store. A missing index is created in place: the first time
// an embedder is seen it has no rows, so the build is instant. An index that is invalid or was
// built with other parameters or predicate (before migration 0002) is rebuilt concurrently
// under a new name and swapped in, so searches keep their old index and writes are not
// blocked while the new one is built.
func (s *Store) EnsureVectorIndex(ctx context.Context, embedder string, dimensions int) error {
	if err := checkVector(store.Vector{Embedder: embedder, Dimensions: dimensions}); err != nil {
		return err
	}
	if dimensions > MaxIndexedDimensions {
		return fmt.Errorf("embedder %s has %d dimensions; pgvector's HNSW index supports at most %d", embedder, dimensions, MaxIndexedDimensions)
	}
	name := indexName(embedder)
	state, err := annState(ctx, s.pool, name, dimensions)
	if err != nil {
		return err
	}
	switch state {
	case annCurrent:
		return nil
	case annMissing:
		_, err := s.pool.Exec(ctx, annIndexDDL(name, embedder, dimensions, false))
		// Two hosts creating the index at once: IF NOT EXISTS does not cover the race, and the
		// loser fails on the catalog's unique name. The winner's index is the one we wanted.
		if isUniqueViolation(err) {
			err = nil
		}
		if err != nil {
			return fmt.Errorf("create ANN index for %s: %w", embedder, err)
		}
		return nil
	}
	return s.rebuildVectorIndex(ctx, embedder, dimensions)
}

// rebuildVectorIndex replaces a stale index. Hosts sharing the database serialise on a session
// advisory lock; whoever comes second finds the index current and returns.
func (s *Store) rebuildVectorIndex(ctx context.Context, embedder string, dimensions int) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("rebuild ANN index for %s: %w", embedder, err)
	}
	defer releaseAdvisory(conn)
	name, next := indexName(embedder), rebuildName(embedder)
	// Poll rather than block: a session waiting in pg_advisory_lock holds a transaction open,
	// and CREATE INDEX CONCURRENTLY waits for every older transaction, a deadlock.
	for {
		var locked bool
		if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock(hashtextextended($1, 7420))`, "memhost.ann_index:"+embedder).Scan(&locked); err != nil {
			return fmt.Errorf("rebuild ANN index for %s: lock: %w", embedder, err)
		}
		state, err := annState(ctx, conn, name, dimensions)
		if err != nil || state == annCurrent {
			return err
		}
		if locked {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("rebuild ANN index for %s: wait for another host's rebuild: %w", embedder, ctx.Err())
		case <-time.After(rebuildPoll):
		}
	}
	// A leftover of an interrupted rebuild is invalid; start over.
	for _, sql := range []string{
		"DROP INDEX CONCURRENTLY IF EXISTS " + next,
		annIndexDDL(next, embedder, dimensions, true),
	} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			return fmt.Errorf("rebuild ANN index for %s: %w", embedder, err)
		}
	}
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, fmt.Sprintf("DROP INDEX IF EXISTS %s; ALTER INDEX %s RENAME TO %s", name, next, name))
		return err
	})
	if err != nil {
		return fmt.Errorf("rebuild ANN index for %s: swap: %w", embedder, err)
	}
	return nil
}

// releaseAdvisory drops the session's advisory locks before the connection goes back to the
// pool; if that fails the connection is closed, which releases them too.
func releaseAdvisory(conn *pgxpool.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_unlock_all()"); err != nil {
		_ = conn.Conn().Close(ctx)
	}
	conn.Release()
}

// IndexDeferred implements store.Store. Clearing the flag is the update that inserts each row
// into its embedder's HNSW graph. SKIP LOCKED lets several hosts drain the queue together, and
// small batches keep the row locks short for writes folding into those rows meanwhile.
func (s *Store) IndexDeferred(ctx context.Context, limit int) (int, error) {
	if limit <= 0 {
		return 0, fmt.Errorf("index deferred rows: limit %d must be positive", limit)
	}
	tag, err := s.pool.Exec(ctx, `UPDATE memories SET ann_deferred = false WHERE id IN (
		SELECT id FROM memories WHERE ann_deferred LIMIT $1 FOR UPDATE SKIP LOCKED)`, limit)
	if err != nil {
		return 0, fmt.Errorf("index deferred rows: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// isDroppedUnderLookup reports Postgres's internal error for a catalog object that vanished
// while a query was reading it.
func isDroppedUnderLookup(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "XX000" && strings.Contains(pgErr.Message, "cache lookup failed")
}
