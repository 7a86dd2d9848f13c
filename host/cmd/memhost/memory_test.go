package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/shortid"
)

// TestMemoryCommandsGoThroughTheRunningHost: list, search, get, archive and restore from the
// terminal, by short id, with --json for scripts.
func TestMemoryCommandsGoThroughTheRunningHost(t *testing.T) {
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
	res, err := core.Service.Store(ctx, operator(cliProject), memory.StoreRequest{Text: "We use pnpm, never npm.", Kind: "convention"})
	require.NoError(t, err)
	id := res.Memory.ID
	p := []string{"--config", cfg, "--project", cliProject, "--token", token}

	out, err := run(t, append([]string{"memory", "list"}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, shortid.Of(id))
	require.Contains(t, out, "We use pnpm, never npm.")

	out, err = run(t, append([]string{"memory", "search", "pnpm", "--json"}, p...)...)
	require.NoError(t, err, out)
	var found searchAnswer
	require.NoError(t, json.Unmarshal([]byte(out), &found), out)
	require.Len(t, found.Results, 1, out)
	require.Equal(t, id, found.Results[0].ID)
	out, err = run(t, append([]string{"memory", "search", "pnpm"}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, shortid.Of(id))

	out, err = run(t, append([]string{"memory", "get", shortid.Of(id)}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "memory "+id.String()+": convention in "+cliProject)

	out, err = run(t, append([]string{"memory", "archive", shortid.Of(id), "--reason", "moved to yarn"}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "memory "+id.String()+" archived")
	out, err = run(t, append([]string{"memory", "list"}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "no memories")
	out, err = run(t, append([]string{"memory", "list", "--archived", "--full"}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, id.String())
	out, err = run(t, append([]string{"memory", "restore", shortid.Of(id)}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "restored")

	// Without a token the operator's configuration is the credential: its own token is minted.
	out, err = run(t, "memory", "list", "--config", cfg, "--project", cliProject, "--token", "")
	require.NoError(t, err, out)
	require.Contains(t, out, "We use pnpm, never npm.")
	_, err = run(t, "memory", "list", "--config", noDatabase(t, ln.Listener.Addr().String()), "--project", cliProject, "--token", "")
	require.ErrorContains(t, err, "--token: required (default $MEMHOST_TOKEN) when the configuration sets no database.url")
}
