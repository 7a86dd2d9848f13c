package main

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/core/shortid"
	"github.com/memhost/memhost/host/internal/core/store"
)

// TestConsolidateAndConflictsJobsAreServed: the host schedules maintenance.consolidate and
// maintenance.conflicts; running consolidate merges two copies of a fact the write path was
// bypassed for, without a worker; conflicts without a worker changes nothing.
func TestConsolidateAndConflictsJobsAreServed(t *testing.T) {
	t.Parallel()
	ln := httptest.NewUnstartedServer(nil)
	cfg, _ := brainConfig(t, ln.Listener.Addr().String())
	core := openCore(t, cfg)
	handler, closeMCP := core.Handler()
	ln.Config.Handler = handler
	ln.Start()
	t.Cleanup(func() { ln.Close(); closeMCP() })
	ctx := context.Background()
	admin, _, err := core.Tokens.Create(ctx, auth.CreateToken{Name: "op", Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite, auth.ScopeAdmin}})
	require.NoError(t, err)
	// Two copies differing in case and punctuation, inserted as an import would, past the fold.
	var ids []uuid.UUID
	for _, text := range []string{"Deploys go through ArgoCD.", "deploys go through ArgoCD!"} {
		v, err := core.Service.EmbedDocument(ctx, text)
		require.NoError(t, err)
		require.NoError(t, core.Store.WithScopeLock(ctx, store.Project(cliProject), func(tx store.ScopeTx) error {
			m, err := tx.Insert(ctx, store.Write{Scope: store.ScopeProject, ScopeKey: cliProject, Kind: store.KindFact, Text: text,
				Importance: 0.5, Confidence: 0.8, Vector: v, Actor: "test"})
			ids = append(ids, m.ID)
			return err
		}))
	}
	p := []string{"--config", cfg, "--token", admin}

	out, err := run(t, append([]string{"maintenance", "status"}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "maintenance.consolidate")
	require.Contains(t, out, "maintenance.conflicts")

	out, err = run(t, append([]string{"maintenance", "run", "consolidate", "--project", cliProject}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "changed 1 memory")
	require.Contains(t, out, "merge "+shortid.Of(ids[1])+" (merged into "+ids[0].String()+")")

	out, err = run(t, append([]string{"maintenance", "run", "conflicts", "--project", cliProject}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "changed 0 memories")
}
