package brain_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/access"
	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
)

var (
	_ brain.Store          = (*pgstore.Store)(nil)
	_ access.SafeMessenger = (*brain.Error)(nil)
)

const (
	keyA = "github.com/acme/app"
	keyB = "github.com/acme/other"
)

// Accesses: agents hold write tokens, operators admin ones.
var (
	agentA    = memory.Access{Project: keyA, Actor: "agent-token"}
	operatorA = memory.Access{Project: keyA, Actor: "operator", Admin: true}
	agentB    = memory.Access{Project: keyB, Actor: "agent-token"}
	operatorB = memory.Access{Project: keyB, Actor: "operator", Admin: true}
)

// bundle is one test's brain on a fresh schema with a real BM25 plugin process.
type bundle struct {
	brain *brain.Service
	mem   *memory.Service
	store *pgstore.Store
	pool  *pgxpool.Pool
	now   time.Time
}

// setup wires the brain to a fresh schema, its configuration changed by mods. The clock is
// fixed, so banners are deterministic.
func setup(t *testing.T, mods ...func(*brain.Config)) *bundle {
	t.Helper()
	pool, _ := testdb.Migrated(t)
	st := pgstore.New(pool)
	emb := embeddertest.Launch(t, testplugins.BM25(t))
	redact := func(s string) (string, int) {
		// The real redactor is wired in the server; a marker proves each path runs it.
		return strings.ReplaceAll(s, "SECRETVALUE", "[REDACTED:test]"), strings.Count(s, "SECRETVALUE")
	}
	mem := memory.New(st, lexical.New(), memory.Fixed(emb), redact, memory.DefaultConfig())
	b := &bundle{mem: mem, store: st, pool: pool, now: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	cfg := brain.DefaultConfig()
	for _, m := range mods {
		m(&cfg)
	}
	b.brain = brain.New(st, mem, cfg, brain.WithClock(func() time.Time { return b.now }))
	return b
}

// fact stores a fact through the write path.
func (b *bundle) fact(t *testing.T, a memory.Access, text string) memory.StoreResult {
	t.Helper()
	res, err := b.mem.Store(context.Background(), a, memory.StoreRequest{Text: text, Agent: "claude-code"})
	require.NoError(t, err)
	return res
}

// rows counts memories rows of project key (every kind, live and archived).
func (b *bundle) rows(t *testing.T, key string) int {
	t.Helper()
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM memories WHERE scope_key = $1`, key).Scan(&n))
	return n
}

// proposals counts proposals of project key.
func (b *bundle) proposals(t *testing.T, key string) int {
	t.Helper()
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM proposals WHERE scope_key = $1`, key).Scan(&n))
	return n
}

func (b *bundle) history(t *testing.T, id string) []store.HistoryEntry {
	t.Helper()
	h, err := b.store.History(context.Background(), mustUUID(t, id))
	require.NoError(t, err)
	return h
}
