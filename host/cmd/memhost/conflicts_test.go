package main

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/shortid"
	"github.com/memhost/memhost/host/internal/core/store"
)

// TestProjectConflictsThroughTheCLI: the conflicts inbox lists, shows, accepts (archiving one
// side) and dismisses by short id; a decided conflict is not decided twice; project health
// counts open conflicts, merges and superseded facts.
func TestProjectConflictsThroughTheCLI(t *testing.T) {
	t.Parallel()
	cfg, _ := brainConfig(t, "127.0.0.1:1")
	core := openCore(t, cfg)
	ctx := context.Background()
	p := []string{"--config", cfg, "--project", cliProject}
	write := func(text string) uuid.UUID {
		r, err := core.Service.Store(ctx, operator(cliProject), memory.StoreRequest{Text: text})
		require.NoError(t, err)
		return r.ID
	}
	fri, tue := write("Releases ship on Fridays"), write("Releases ship on Tuesdays")
	pg, my := write("The database is Postgres 16"), write("The database is MySQL 8")
	file := func(a, b uuid.UUID, evidence string) uuid.UUID {
		_, err := core.Store.FileConflict(ctx, store.Conflict{ScopeKey: cliProject, MemoryA: a, MemoryB: b, TextA: "x", TextB: "y",
			Evidence: evidence, Severity: "high", CreatedAt: time.Now().Add(-2 * time.Hour)})
		require.NoError(t, err)
		page, err := core.Store.Conflicts(ctx, store.ConflictQuery{ScopeKey: cliProject, Limit: 10})
		require.NoError(t, err)
		for _, c := range page {
			if c.MemoryA == a {
				return c.ID
			}
		}
		t.Fatal("not filed")
		return uuid.Nil
	}
	release := file(fri, tue, "two release days")
	database := file(pg, my, "two databases")

	out, err := run(t, append([]string{"project", "health"}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "conflicts:  2 open, oldest waiting 2h")
	require.Contains(t, out, "merges:     0 (0 this week)")
	require.Contains(t, out, "superseded: 0 facts")
	require.Contains(t, out, "llm:        0 calls, 0 tokens this week (all projects)")

	out, err = run(t, append([]string{"project", "conflicts"}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, shortid.Of(release))
	require.Contains(t, out, "two databases")
	out, err = run(t, append([]string{"project", "conflicts", "show", shortid.Of(release)}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "evidence: two release days")
	require.Contains(t, out, "A "+fri.String())

	_, err = run(t, append([]string{"project", "conflicts", "accept", shortid.Of(release), "--archive", shortid.Of(pg)}, p...)...)
	require.ErrorContains(t, err, "is not one of conflict")
	out, err = run(t, append([]string{"project", "conflicts", "accept", shortid.Of(release), "--archive", shortid.Of(fri)}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "memory "+fri.String()+" archived")
	m, err := core.Store.Get(ctx, fri)
	require.NoError(t, err)
	require.Equal(t, "conflict "+release.String(), m.ArchivedReason)
	_, err = run(t, append([]string{"project", "conflicts", "dismiss", shortid.Of(release)}, p...)...)
	require.ErrorContains(t, err, "already accepted")

	out, err = run(t, append([]string{"project", "conflicts", "dismiss", shortid.Of(database)}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "dismissed")
	out, err = run(t, append([]string{"project", "conflicts"}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "no open conflicts")
	out, err = run(t, append([]string{"project", "conflicts", "--status", "all"}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "dismissed")
	require.Contains(t, out, "accepted")
	out, err = run(t, append([]string{"project", "health"}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "archived:   1 conflict")
	out, _, err = runSplit(t, "project", "conflicts", "--status", "all", "--config", cfg, "--project", "github.com/acme/quiet")
	require.NoError(t, err, out)
	require.Equal(t, "no conflicts in github.com/acme/quiet\n", out, "not \"no all conflicts\"")
}
