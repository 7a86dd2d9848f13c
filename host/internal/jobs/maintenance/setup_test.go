package maintenance

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/redact"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/daemon/lifecycle"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
)

// fakeClock is a clock tests move forward instead of sleeping.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

type env struct {
	pool  *pgxpool.Pool
	store *pgstore.Store
	svc   *memory.Service
}

// setup gives a migrated schema and a memory service with the BM25 plugin, its hit recorder
// running (searches and gets record retrievals through it).
func setup(t *testing.T) env {
	t.Helper()
	return setupWith(t, memory.DefaultConfig())
}

// setupWith is setup with the memory service configured by cfg.
func setupWith(t *testing.T, cfg memory.Config) env {
	t.Helper()
	return setupRedacting(t, cfg, func(s string) (string, int) { return s, 0 })
}

// realRedactor is the host's secret redactor, as the memory service is given it.
func realRedactor(t *testing.T) memory.RedactFunc {
	t.Helper()
	r, err := redact.New()
	require.NoError(t, err)
	return func(s string) (string, int) {
		out, f := r.Redact(s)
		return out, len(f)
	}
}

// setupRedacting is setupWith with the memory service redacting through redactFn.
func setupRedacting(t *testing.T, cfg memory.Config, redactFn memory.RedactFunc) env {
	t.Helper()
	pool, _ := testdb.Migrated(t)
	st := pgstore.New(pool)
	emb := embeddertest.Launch(t, testplugins.BM25(t))
	svc := memory.New(st, lexical.New(), memory.Fixed(emb), redactFn, cfg)
	g := lifecycle.NewGroup(nil, lifecycle.Func("hit recorder", svc.RecordHits))
	require.NoError(t, g.Start(context.Background()))
	t.Cleanup(func() { require.NoError(t, g.Stop(context.Background())) })
	return env{pool: pool, store: st, svc: svc}
}

// newMaintenance builds a Maintenance for the stale job on e's schema; start runs its River
// client until the test ends.
func (e env) newMaintenance(t *testing.T, host string, clock Clock, every time.Duration) *Maintenance {
	t.Helper()
	m, err := New(e.pool, e.store, Config{Host: host, Clock: clock, testOnly: true, Jobs: []Scheduled{{
		Job: Stale{Store: e.store, After: 90 * 24 * time.Hour}, Enabled: true, Every: every,
		Budget: Budget{MaxRows: 100, MaxDuration: time.Minute},
	}}})
	require.NoError(t, err)
	return m
}

// start runs m's River client; the returned stop ends it and waits (also at cleanup).
func start(t *testing.T, m *Maintenance) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			require.NoError(t, <-done)
		})
	}
	t.Cleanup(stop)
	return stop
}

var proj = memory.Access{Project: "github.com/acme/app", Actor: "alice"}
