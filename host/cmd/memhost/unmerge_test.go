package main

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/shortid"
	"github.com/memhost/memhost/host/internal/core/store"
)

// TestMemoryUnmerge: `memhost memory unmerge ID` restores what consolidation merged into a
// memory, through the running host, by short id; project health counts the merge and a
// superseded fact, and `memhost memory unsupersede` undoes the supersession.
func TestMemoryUnmerge(t *testing.T) {
	t.Parallel()
	ln := httptest.NewUnstartedServer(nil)
	cfg, _ := brainConfig(t, ln.Listener.Addr().String())
	core := openCore(t, cfg)
	handler, closeMCP := core.Handler()
	ln.Config.Handler = handler
	ln.Start()
	t.Cleanup(func() { ln.Close(); closeMCP() })
	ctx := context.Background()
	token, _, err := core.Tokens.Create(ctx, auth.CreateToken{Name: "operator", Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite}})
	require.NoError(t, err)
	a, err := core.Service.Store(ctx, operator(cliProject), memory.StoreRequest{Text: "Deploys go through ArgoCD."})
	require.NoError(t, err)
	b, err := core.Service.Store(ctx, operator(cliProject), memory.StoreRequest{Text: "ArgoCD ships every deploy"})
	require.NoError(t, err)
	_, err = core.Service.Merge(ctx, memory.MergeRequest{Survivor: a.ID, Absorbed: []uuid.UUID{b.ID},
		Texts: map[uuid.UUID]string{a.ID: a.Memory.Text, b.ID: b.Memory.Text}, Actor: "maintenance:consolidate"})
	require.NoError(t, err)
	got, err := core.Store.Get(ctx, b.ID)
	require.NoError(t, err)
	require.Equal(t, "merged into "+a.ID.String(), got.ArchivedReason)

	c, err := core.Service.Store(ctx, operator(cliProject), memory.StoreRequest{Text: "Deploys ran through Jenkins"})
	require.NoError(t, err)
	_, changed, err := core.Store.Supersede(ctx, store.SupersedeParams{Older: c.ID, Newer: a.ID, Actor: "maintenance:conflicts"})
	require.NoError(t, err)
	require.True(t, changed)
	out, err := run(t, "memory", "get", shortid.Of(c.ID), "--config", cfg, "--project", cliProject, "--token", token)
	require.NoError(t, err, out)
	require.Contains(t, out, "superseded by: "+a.ID.String())
	out, err = run(t, "project", "health", "--config", cfg, "--project", cliProject)
	require.NoError(t, err, out)
	require.Contains(t, out, "merges:     1 (1 this week)")
	require.Contains(t, out, "superseded: 1 fact\n")
	require.Contains(t, out, "archived:   1 merged into\n", "one line for every survivor's merges")

	out, err = run(t, "memory", "unsupersede", shortid.Of(c.ID), "--config", cfg, "--project", cliProject, "--token", token)
	require.NoError(t, err, out)
	require.Contains(t, out, "memory "+c.ID.String()+" no longer superseded")
	out, err = run(t, "memory", "get", shortid.Of(c.ID), "--config", cfg, "--project", cliProject, "--token", token)
	require.NoError(t, err, out)
	require.NotContains(t, out, "superseded by")

	out, err = run(t, "memory", "unmerge", shortid.Of(a.ID), "--config", cfg, "--project", cliProject, "--token", token)
	require.NoError(t, err, out)
	require.Contains(t, out, "memory "+a.ID.String()+" unmerged: 1 memory came back\n", "says how many came back")
	got, err = core.Store.Get(ctx, b.ID)
	require.NoError(t, err)
	require.False(t, got.Archived())
}
