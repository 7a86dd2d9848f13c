package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/shortid"
	"github.com/memhost/memhost/host/internal/daemon/server"
)

// servedCore is a host core on a fresh schema serving HTTP at its config's listen address, for
// the commands that talk to the running host; cfg is its config file, dsn its database.
func servedCore(t *testing.T) (cfg, dsn string, core *server.Core) {
	t.Helper()
	ln := httptest.NewUnstartedServer(nil)
	cfg, dsn = brainConfig(t, ln.Listener.Addr().String())
	core = openCore(t, cfg)
	handler, closeMCP := core.Handler()
	ln.Config.Handler = handler
	ln.Start()
	t.Cleanup(func() { ln.Close(); closeMCP() })
	return cfg, dsn, core
}

// TestMaintenanceCommands: status lists the stale job with its River kind and, after a run,
// who ran it and what changed; run --dry-run prints what would change and changes nothing;
// run archives, memory archived lists it with its reason, and project health counts it by
// reason; project journal prune archives old entries only; project archive queues dormancy
// and unarchive restores; a non-admin token is refused.
func TestMaintenanceCommands(t *testing.T) {
	t.Parallel()
	cfg, dsn, core := servedCore(t)
	ctx := context.Background()
	admin, _, err := core.Tokens.Create(ctx, auth.CreateToken{Name: "op", Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite, auth.ScopeAdmin}})
	require.NoError(t, err)
	user, _, err := core.Tokens.Create(ctx, auth.CreateToken{Name: "agent", Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite}})
	require.NoError(t, err)
	res, err := core.Service.Store(ctx, operator(cliProject), memory.StoreRequest{Text: "The old cron host is kestrel."})
	require.NoError(t, err)
	// Age it past the 90-day default instead of waiting.
	pool, err := pgxpool.New(ctx, dsn)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	_, err = pool.Exec(ctx, `UPDATE memories SET created_at = now() - interval '100 days'`)
	require.NoError(t, err)
	p := []string{"--config", cfg, "--token", admin}

	out, err := run(t, append([]string{"maintenance", "status"}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "maintenance.stale")
	require.Contains(t, out, "never")

	out, err = run(t, append([]string{"maintenance", "run", "stale", "--dry-run", "--project", cliProject}, p...)...)
	require.NoError(t, err, out)
	require.Regexp(t, `stale on \S+: ok; examined 1 memory, would change 1 memory \(a dry run: nothing was changed\)\n`, out)
	require.Contains(t, out, "  archive "+shortid.Of(res.ID)+" (stale)\n", "a short id, as every table prints")
	m, err := core.Store.Get(ctx, res.ID)
	require.NoError(t, err)
	require.False(t, m.Archived())

	out, err = run(t, append([]string{"maintenance", "run", "stale"}, p...)...)
	require.NoError(t, err, out)
	require.Regexp(t, `stale on \S+: ok; examined 1 memory, changed 1 memory\n`, out)
	m, err = core.Store.Get(ctx, res.ID)
	require.NoError(t, err)
	require.Equal(t, "stale", m.ArchivedReason)

	out, err = run(t, append([]string{"memory", "archived", "--project", cliProject, "--reason", "stale", "--full"}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, res.ID.String())
	require.Contains(t, out, "stale")
	out, err = run(t, append([]string{"memory", "archived", "--project", cliProject, "--reason", "dormant"}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "no archived memories")

	out, err = run(t, "project", "health", "--config", cfg, "--project", cliProject)
	require.NoError(t, err, out)
	require.Contains(t, out, "archived:   1 stale")

	out, err = run(t, append([]string{"maintenance", "status"}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "(manual)")
	require.Contains(t, out, "ok")

	// The journal prune: entries older than --older-than are listed and archived in bulk.
	oldEntry, err := core.Brain.AppendJournal(ctx, operator(cliProject), brain.JournalRequest{Text: "Session: moved cron to nomad."})
	require.NoError(t, err)
	newEntry, err := core.Brain.AppendJournal(ctx, operator(cliProject), brain.JournalRequest{Text: "Session: fixed the login bug."})
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `UPDATE memories SET created_at = now() - interval '100 days' WHERE id = $1`, oldEntry.Entry.ID)
	require.NoError(t, err)
	out, err = run(t, append([]string{"project", "journal", "prune", "--project", cliProject, "--older-than", "90d", "--dry-run"}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "would change 1 memory (a dry run: nothing was changed)")
	require.Contains(t, out, "archive "+shortid.Of(oldEntry.Entry.ID)+" (journal prune)")
	out, err = run(t, append([]string{"project", "journal", "prune", "--project", cliProject, "--older-than", "90d"}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "changed 1")
	m, err = core.Store.Get(ctx, oldEntry.Entry.ID)
	require.NoError(t, err)
	require.Equal(t, "journal prune", m.ArchivedReason)
	m, err = core.Store.Get(ctx, newEntry.Entry.ID)
	require.NoError(t, err)
	require.False(t, m.Archived(), "a recent entry stays")
	_, err = run(t, append([]string{"project", "journal", "prune", "--project", cliProject, "--older-than", "soon"}, p...)...)
	require.ErrorContains(t, err, "--older-than")

	// Archiving the project queues the dormancy job for it; unarchiving restores its facts.
	out, err = run(t, append([]string{"project", "archive", "--project", cliProject}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "project "+cliProject+" archived")
	var queued int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'maintenance.dormancy'`).Scan(&queued))
	require.Equal(t, 1, queued)
	out, err = run(t, append([]string{"project", "unarchive", "--project", cliProject}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "project "+cliProject+" active; 0 facts restored")
	_, err = run(t, "project", "archive", "--config", cfg, "--project", cliProject, "--token", user)
	require.ErrorContains(t, err, "admin")

	_, err = run(t, "maintenance", "status", "--config", cfg, "--token", user)
	require.ErrorContains(t, err, "admin")
	_, err = run(t, append([]string{"maintenance", "run", "nope"}, p...)...)
	require.ErrorContains(t, err, "unknown job")
}

// TestReembedCommand: rows without a vector of the active embedder (as after an embedder
// switch) show in status as work left; `memhost reembed --wait` embeds them, printing plain
// progress lines off a terminal, and status then shows none left; non-admins are refused.
func TestReembedCommand(t *testing.T) {
	t.Parallel()
	cfg, dsn, core := servedCore(t)
	ctx := context.Background()
	admin, _, err := core.Tokens.Create(ctx, auth.CreateToken{Name: "op", Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite, auth.ScopeAdmin}})
	require.NoError(t, err)
	user, _, err := core.Tokens.Create(ctx, auth.CreateToken{Name: "agent", Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite}})
	require.NoError(t, err)
	storeServices(t, core.Service, 5)
	pool, err := pgxpool.New(ctx, dsn)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	_, err = pool.Exec(ctx, `DELETE FROM memory_vectors WHERE memory_id IN (SELECT id FROM memories ORDER BY id LIMIT 3)`)
	require.NoError(t, err)
	p := []string{"--config", cfg, "--token", admin}

	out, err := run(t, append([]string{"status"}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "re-embed:    bm25-v1-384: 2 of 5 memories embedded (40%), 3 left")

	out, err = run(t, append([]string{"reembed", "--wait"}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "bm25-v1-384: 5 of 5 memories embedded (100%), 0 left")
	require.Contains(t, out, "done: every memory has a vector of bm25-v1-384")
	require.NotContains(t, out, "\r", "plain lines off a terminal")

	out, err = run(t, append([]string{"status"}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "0 left")
	out, err = run(t, append([]string{"reembed"}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "done")

	_, err = run(t, "reembed", "--config", cfg, "--token", user)
	require.ErrorContains(t, err, "admin")
}

// TestHostWideCommandsNeedTheOperatorsToken: with an admin token bound to another project, the
// commands over host-wide routes (reload, reembed; workers in the restapi tests) are refused saying an unbound admin
// token is needed; maintenance run and project archive name no other project; a dry run
// without --project lists its own project's memories only.
func TestHostWideCommandsNeedTheOperatorsToken(t *testing.T) {
	t.Parallel()
	cfg, dsn, core := servedCore(t)
	ctx := context.Background()
	bound, _, err := core.Tokens.Create(ctx, auth.CreateToken{Name: "ops-other", Scopes: []auth.Scope{auth.ScopeAdmin}, ProjectKey: "other"})
	require.NoError(t, err)
	res, err := core.Service.Store(ctx, operator(cliProject), memory.StoreRequest{Text: "The old cron host is kestrel."})
	require.NoError(t, err)
	own, err := core.Service.Store(ctx, operator("other"), memory.StoreRequest{Text: "The other project's cron host is osprey."})
	require.NoError(t, err)
	pool, err := pgxpool.New(ctx, dsn)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	_, err = pool.Exec(ctx, `UPDATE memories SET created_at = now() - interval '100 days'`)
	require.NoError(t, err)
	p := []string{"--config", cfg, "--token", bound}

	for _, args := range [][]string{{"reload"}, {"reembed"}, {"maintenance", "run", "reembed"}} {
		_, err := run(t, append(args, p...)...)
		require.Error(t, err, args)
		require.Contains(t, err.Error(), "host-wide: it needs an admin token not bound to a project", args)
	}
	for _, args := range [][]string{{"maintenance", "run", "stale", "--project", cliProject}, {"project", "archive", "--project", cliProject}} {
		_, err := run(t, append(args, p...)...)
		require.Error(t, err, args)
		require.Contains(t, err.Error(), `bound to project "other"`, args)
	}
	out, err := run(t, append([]string{"maintenance", "run", "stale", "--dry-run"}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, shortid.Of(own.ID))
	require.NotContains(t, out, shortid.Of(res.ID))
	m, err := core.Store.Get(ctx, res.ID)
	require.NoError(t, err)
	require.False(t, m.Archived())
}

// storeServices stores n distinct facts ("Service svc-i listens on port 9000+i.") in the
// operator's project through svc.
func storeServices(t *testing.T, svc *memory.Service, n int) {
	t.Helper()
	for i := range n {
		_, err := svc.Store(context.Background(), operator(cliProject), memory.StoreRequest{Text: fmt.Sprintf("Service svc-%d listens on port %d.", i, 9000+i)})
		require.NoError(t, err)
	}
}
