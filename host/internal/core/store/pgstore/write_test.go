package pgstore_test

import (
	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/rules"

	"context"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/core/store/storetest"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
)

// tripCounter counts round trips on the connections it dials: a write to the server after a
// read from it (or the first write) starts one. pgx pipelines a batch into one write burst.
type tripCounter struct {
	trips atomic.Int64
}

func (c *tripCounter) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &countedConn{Conn: conn, trips: &c.trips}, nil
}

type countedConn struct {
	net.Conn
	trips *atomic.Int64
	mu    sync.Mutex
	sent  bool // written since the last read: the current trip is under way
}

func (c *countedConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	if !c.sent {
		c.sent = true
		c.trips.Add(1)
	}
	c.mu.Unlock()
	return c.Conn.Write(p)
}

func (c *countedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.mu.Lock()
		c.sent = false
		c.mu.Unlock()
	}
	return n, err
}

type writeBundle struct {
	store   *pgstore.Store
	pool    *pgxpool.Pool // one connection, dialled through counter
	counter *tripCounter
	dsn     string
}

// setupWrite is a store on a pool of one counted connection, so a failed write that spoiled
// its connection would fail the next one, and every round trip is seen.
func setupWrite(t *testing.T) writeBundle {
	t.Helper()
	ctx := context.Background()
	_, dsn := testdb.Migrated(t)
	cfg, err := pgxpool.ParseConfig(dsn)
	require.NoError(t, err)
	counter := &tripCounter{}
	cfg.MaxConns = 1
	cfg.ConnConfig.DialFunc = counter.dial
	// The pool pings a connection idle for over a second before lending it; that trip is the
	// pool's, not the write's, and a slow test run must not count it.
	cfg.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return false }
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	s := pgstore.New(pool)
	require.NoError(t, s.EnsureVectorIndex(ctx, storetest.Embedder, storetest.Dims))
	return writeBundle{store: s, pool: pool, counter: counter, dsn: dsn}
}

// write is the fold path's shape: one lookup, then the insert, or the fold into the exact
// match (with the incoming text as replacement when replace is set).
func (b writeBundle) write(ctx context.Context, w store.Write, replace bool) error {
	return b.store.WithScopeLock(ctx, w.Ref(), func(tx store.ScopeTx) error {
		// The candidates query runs whether or not the ids exist.
		c, err := tx.Lookup(ctx, w.Text, w.Vector, []uuid.UUID{w.ID})
		if err != nil {
			return err
		}
		if c.Exact == nil {
			_, err = tx.Insert(ctx, w)
			return err
		}
		p := store.FoldParams{ID: c.Exact.ID, Kind: c.Exact.Kind, DedupedCount: c.Exact.DedupedCount + 1,
			Before: c.Exact.Text, After: c.Exact.Text, Actor: "suite"}
		if replace {
			p.Replacement = &store.Replacement{Text: w.Text, Vector: w.Vector, Provenance: w.Provenance}
		}
		_, err = tx.Fold(ctx, p)
		return err
	})
}

func TestWriteCostsTwoRoundTrips(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupWrite(t)
	shapes := []struct {
		name    string
		text    string
		replace bool
	}{
		{"insert", "", false},
		{"fold", "tests need TZ=UTC", false},
		{"fold with a new text", "tests need TZ=UTC", true},
	}
	require.NoError(t, b.write(ctx, storetest.NewWrite("p", "tests need TZ=UTC", storetest.Vec(1, 0)), false))
	// The first round prepares each statement on the connection (one more trip each time);
	// the second runs on the statement cache, as every later write does.
	for round := range 2 {
		for i, shape := range shapes {
			text := shape.text
			if text == "" {
				text = "fact " + string(rune('a'+round*len(shapes)+i))
			}
			before := b.counter.trips.Load()
			require.NoError(t, b.write(ctx, storetest.NewWrite("p", text, storetest.Vec(1, 0.01)), shape.replace))
			if round == 1 {
				require.Equal(t, int64(2), b.counter.trips.Load()-before, "round trips of a write (%s)", shape.name)
			}
		}
	}
	live, err := b.store.List(ctx, store.ListQuery{Scopes: []store.ScopeRef{store.Project("p")}, Limit: 10})
	require.NoError(t, err)
	require.Len(t, live, 3, "two inserts and the folded fact")
}

func TestFailedWritesReturnTheirConnectionClean(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupWrite(t)
	staging := storetest.NewWrite("p", "staging db is pg-stage-2", storetest.Vec(2, 0))
	require.NoError(t, b.write(ctx, staging, false))
	conns := b.pool.Stat().NewConnsCount()

	// A batch the server refuses midway (a unique violation) leaves an aborted transaction.
	err := b.store.WithScopeLock(ctx, store.Project("p"), func(tx store.ScopeTx) error {
		_, err := tx.Lookup(ctx, "anything", storetest.Vec(2, 0), []uuid.UUID{staging.ID})
		require.NoError(t, err)
		_, err = tx.Insert(ctx, storetest.NewWrite("p", "staging db is pg-stage-2", storetest.Vec(2, 0)))
		return err
	})
	require.ErrorIs(t, err, rules.ErrConflict)
	require.NoError(t, b.write(ctx, storetest.NewWrite("p", "after a conflict", storetest.Vec(3, 0)), false))

	// A context cancelled between the lookup and the insert leaves an open transaction.
	cctx, cancel := context.WithCancel(ctx)
	err = b.store.WithScopeLock(cctx, store.Project("p"), func(tx store.ScopeTx) error {
		_, err := tx.Lookup(cctx, "anything", storetest.Vec(2, 0), nil)
		require.NoError(t, err)
		cancel()
		_, err = tx.Insert(cctx, storetest.NewWrite("p", "never written", storetest.Vec(4, 0)))
		return err
	})
	require.ErrorIs(t, err, context.Canceled)
	require.NoError(t, b.write(ctx, storetest.NewWrite("p", "after a cancellation", storetest.Vec(5, 0)), false))

	require.Equal(t, conns, b.pool.Stat().NewConnsCount(), "the failed writes rolled back and kept their connection")
	live, err := b.store.List(ctx, store.ListQuery{Scopes: []store.ScopeRef{store.Project("p")}, Limit: 10})
	require.NoError(t, err)
	require.Len(t, live, 3)
}

func TestAWriteCancelledWhileWaitingForTheLockLeavesThePoolUsable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupWrite(t)
	other, err := pgxpool.New(ctx, b.dsn)
	require.NoError(t, err)
	t.Cleanup(other.Close)
	holder := pgstore.New(other)

	holding, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- holder.WithScopeLock(ctx, store.Project("p"), func(tx store.ScopeTx) error {
			if _, err := tx.Lookup(ctx, "anything", storetest.Vec(6, 0), nil); err != nil {
				return err
			}
			close(holding)
			<-release
			return nil
		})
	}()
	<-holding
	wctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	err = b.write(wctx, storetest.NewWrite("p", "waits for the lock", storetest.Vec(7, 0)), false)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	close(release)
	require.NoError(t, <-done)

	require.NoError(t, b.write(ctx, storetest.NewWrite("p", "waits for the lock", storetest.Vec(7, 0)), false),
		"the next write on the pool's one connection succeeds")
	live, err := b.store.List(ctx, store.ListQuery{Scopes: []store.ScopeRef{store.Project("p")}, Limit: 10})
	require.NoError(t, err)
	require.Len(t, live, 1)
}

// TestAWriteWhoseLookupFailedDoesNotReportSuccess: fn that swallows a failed lookup cannot
// commit the aborted transaction; the write says so and the connection comes back clean.
func TestAWriteWhoseLookupFailedDoesNotReportSuccess(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupWrite(t)
	row := storetest.NewWrite("p", "a row of 16 dimensions", storetest.Vec(1, 0))
	require.NoError(t, b.write(ctx, row, false))
	conns := b.pool.Stat().NewConnsCount()
	// Rows of the embedder have 16 dimensions; the server refuses to compare them with 17.
	wide := store.Vector{Embedder: storetest.Embedder, Dimensions: storetest.Dims + 1, Values: make([]float32, storetest.Dims+1)}
	wide.Values[0] = 1
	var lookupErr error
	err := b.store.WithScopeLock(ctx, store.Project("p"), func(tx store.ScopeTx) error {
		_, lookupErr = tx.Lookup(ctx, "anything", wide, []uuid.UUID{row.ID})
		return nil
	})
	require.Error(t, lookupErr)
	require.Error(t, err, "an aborted transaction does not commit")
	require.NoError(t, b.write(ctx, storetest.NewWrite("p", "the next write", storetest.Vec(2, 0)), false))
	require.Equal(t, conns, b.pool.Stat().NewConnsCount())
}
