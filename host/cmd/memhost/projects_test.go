package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/wire"
)

// TestProjectsCommandListsEveryProject: `memhost projects` asks the running host for every
// project with its counts and last activity, most recently active first, as a table or with
// --json; a key a row holds that a terminal would obey is printed escaped; without an admin
// token the host refuses.
func TestProjectsCommandListsEveryProject(t *testing.T) {
	t.Parallel()
	ln := httptest.NewUnstartedServer(nil)
	cfg, dsn := brainConfig(t, ln.Listener.Addr().String())
	core := openCore(t, cfg)
	handler, closeMCP := core.Handler()
	ln.Config.Handler = handler
	ln.Start()
	t.Cleanup(func() { ln.Close(); closeMCP() })
	ctx := context.Background()
	admin, _, err := core.Tokens.Create(ctx, auth.CreateToken{Name: "operator", Scopes: []auth.Scope{auth.ScopeAdmin}})
	require.NoError(t, err)
	for _, text := range []string{"We use pnpm, never npm.", "CI runs on Buildkite."} {
		_, err = core.Service.Store(ctx, operator(cliProject), memory.StoreRequest{Text: text})
		require.NoError(t, err)
	}
	_, err = core.Service.Store(ctx, operator("github.com/acme/later"), memory.StoreRequest{Text: "Later uses yarn."})
	require.NoError(t, err)
	// A row written straight to the database, before input refused control characters.
	pool, err := pgxpool.New(ctx, dsn)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	_, err = pool.Exec(ctx, `INSERT INTO project_maps (scope_key, map, generated_at, updated_at) VALUES ($1, '{}', now(), now() - interval '1 day')`, "evil\x1b[2K\tkey")
	require.NoError(t, err)

	out, err := run(t, "projects", "--config", cfg, "--token", admin)
	require.NoError(t, err, out)
	requireNoRawControls(t, out)
	require.Regexp(t, `^KEY +MEMORIES +ARCHIVED +PROPOSALS +JOURNAL +LAST ACTIVITY\n`+
		`github\.com/acme/later +1 +0 +0 +0 +\d{4}-\d\d-\d\d \d\d:\d\d\n`+
		regexp.QuoteMeta(cliProject)+` +2 +0 +0 +0 +\d{4}-\d\d-\d\d \d\d:\d\d\n`+
		regexp.QuoteMeta(`evil\x1b[2K\tkey`)+` +0 +0 +0 +0 `, out)

	out, err = run(t, "projects", "--config", cfg, "--token", admin, "--limit", "1", "--json")
	require.NoError(t, err, out)
	var page wire.ProjectsPage
	require.NoError(t, json.Unmarshal([]byte(out), &page), out)
	require.Len(t, page.Projects, 1)
	require.Equal(t, "github.com/acme/later", page.Projects[0].Key)
	require.NotEmpty(t, page.NextCursor)
	out, err = run(t, "projects", "--config", cfg, "--token", admin, "--limit", "1", "--cursor", page.NextCursor)
	require.NoError(t, err, out)
	require.Contains(t, out, cliProject)
	require.Contains(t, out, "more: memhost projects --cursor ")

	agent, _, err := core.Tokens.Create(ctx, auth.CreateToken{Name: "agent", Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite}})
	require.NoError(t, err)
	_, err = run(t, "projects", "--config", cfg, "--token", agent)
	require.ErrorContains(t, err, "admin")
	out, err = run(t, "projects", "--config", cfg, "--token", "")
	require.NoError(t, err, out)
	require.Contains(t, out, cliProject, "without a token, the operator's own is minted")
	_, err = run(t, "projects", "--config", noDatabase(t, ln.Listener.Addr().String()), "--token", "")
	require.ErrorContains(t, err, "--token: required")
}
