package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/core/shortid"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/daemon/server"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
)

// brainConfig writes a config on a fresh schema with the BM25 plugin, listening on listen
// (where a test host may serve).
func brainConfig(t *testing.T, listen string) (path, dsn string) {
	t.Helper()
	dsn = testdb.Schema(t)
	path = filepath.Join(t.TempDir(), "memhost.toml")
	body := fmt.Sprintf("[server]\nlisten = %q\n[database]\nurl = %q\n[plugins]\ndirs = [%q]\n[log]\nlevel = \"warn\"\n", listen, dsn, testplugins.Dir(t))
	require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
	return path, dsn
}

// runIn runs the command line with stdin.
func runIn(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	root := rootCmd()
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetIn(strings.NewReader(stdin))
	err := root.ExecuteContext(t.Context())
	return out.String(), err
}

// openCore opens a host core on the config, as a running host has.
func openCore(t *testing.T, cfgPath string) *server.Core {
	t.Helper()
	cfg, err := config.Load(context.Background(), config.LoadOptions{ConfigPath: cfgPath})
	require.NoError(t, err)
	core, err := server.Open(context.Background(), cfg, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { core.Close(context.Background()) })
	return core
}

const cliProject = "github.com/acme/cli"

func TestProjectDocumentsAndInboxThroughTheCLI(t *testing.T) {
	t.Parallel()
	cfg, _ := brainConfig(t, "127.0.0.1:1")
	p := []string{"--config", cfg, "--project", cliProject}

	out, err := run(t, append([]string{"project", "goal", "show"}, p...)...)
	require.Error(t, err)
	require.Contains(t, err.Error(), "has no goal yet")

	out, err = run(t, append([]string{"project", "goal", "set", "Ship the brain."}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "goal of github.com/acme/cli set")
	out, err = runIn(t, "1. Store\n2. Banner\n", append([]string{"project", "plan", "set", "-"}, p...)...)
	require.NoError(t, err, out)
	out, err = run(t, append([]string{"project", "plan", "show"}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "1. Store\n2. Banner\n")

	_, err = run(t, append([]string{"project", "goal", "set", ""}, p...)...)
	require.ErrorContains(t, err, "text: must not be empty")

	// An agent proposes (through the host's store, as MCP does).
	core := openCore(t, cfg)
	res, err := core.Brain.Propose(context.Background(), operator(cliProject), brain.ProposeRequest{Layer: "plan",
		Text: "1. Store\n2. Banner\n3. Providers", Reason: "scope grew", Agent: "codex", Session: "s-9"})
	require.NoError(t, err)
	id := res.Proposal.ID.String()

	out, err = run(t, append([]string{"project", "inbox"}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, shortid.Of(res.Proposal.ID))
	require.NotContains(t, out, id, "tables show short ids")
	require.Contains(t, out, "scope grew")
	out, err = run(t, append([]string{"project", "inbox", "--full"}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, id, "--full shows whole ids")
	out, err = run(t, append([]string{"project", "inbox", "show", id[:8]}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "codex (session s-9)", "a prefix printed by an older release still resolves")
	out, err = run(t, append([]string{"project", "inbox", "show", shortid.Of(res.Proposal.ID)}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "codex (session s-9)")
	require.Contains(t, out, "+3. Providers\n")

	_, err = run(t, append([]string{"project", "inbox", "approve", uuid.NewString()}, p...)...)
	require.ErrorContains(t, err, "has no proposal")
	_, err = run(t, append([]string{"project", "inbox", "approve", id}, "--config", cfg, "--project", "github.com/acme/elsewhere")...)
	require.ErrorContains(t, err, "has no proposal", "another project's proposal id is not found")

	out, err = run(t, append([]string{"project", "inbox", "approve", id}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "approved")
	out, err = run(t, append([]string{"project", "plan", "show"}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "3. Providers")
	_, err = run(t, append([]string{"project", "inbox", "reject", id}, p...)...)
	require.ErrorContains(t, err, "already approved")

	out, err = run(t, append([]string{"project", "health"}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "proposals:  0 pending")
	require.Contains(t, out, "plan:       updated")
}

func TestBannerAndMapRefreshUseTheRunningHost(t *testing.T) {
	t.Parallel()
	ln := httptest.NewUnstartedServer(nil)
	cfg, _ := brainConfig(t, ln.Listener.Addr().String())
	core := openCore(t, cfg)
	handler, closeMCP := core.Handler()
	ln.Config.Handler = handler
	ln.Start()
	t.Cleanup(func() { ln.Close(); closeMCP() })
	token, _, err := core.Tokens.Create(context.Background(), auth.CreateToken{Name: "runner", Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite}})
	require.NoError(t, err)
	_, err = core.Brain.SetDocument(context.Background(), operator(cliProject), store.KindGoal, brain.SetRequest{Text: "GOAL-VIA-HOST"})
	require.NoError(t, err)

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/x\n\ngo 1.22\n"), 0o644))
	out, err := run(t, "project", "map", "refresh", dir, "--config", cfg, "--project", cliProject, "--token", token)
	require.NoError(t, err, out)
	require.Contains(t, out, "map of github.com/acme/cli uploaded")
	m, err := core.Brain.Map(context.Background(), operator(cliProject), brain.MapRequest{})
	require.NoError(t, err)
	require.Contains(t, m.Summary, "Go")

	out, err = run(t, "banner", "--cli", "codex", "--budget", "800", "--config", cfg, "--project", cliProject, "--token", token)
	require.NoError(t, err, out)
	require.Contains(t, out, "GOAL-VIA-HOST")
	require.Contains(t, out, "mcp__memhost__memory_store")

	_, err = run(t, "banner", "--budget", "5", "--config", cfg, "--project", cliProject, "--token", token)
	require.ErrorContains(t, err, "budget: 5 is out of range")
	_, err = run(t, "banner", "--config", cfg, "--project", cliProject, "--token", "mh_not-a-token")
	require.ErrorContains(t, err, "invalid, expired or revoked token")

	// Without a token the database is read directly.
	out, err = run(t, "banner", "--config", cfg, "--project", cliProject, "--token", "")
	require.NoError(t, err, out)
	require.Contains(t, out, "GOAL-VIA-HOST")
}

// importConfig is brainConfig with provider plugins in the plugin folders: import-cli asks
// them which files their CLIs keep.
func importConfig(t *testing.T, providerDir string) string {
	t.Helper()
	cfg, _ := brainConfig(t, "127.0.0.1:1")
	body, err := os.ReadFile(cfg)
	require.NoError(t, err)
	withProviders := strings.Replace(string(body), "dirs = [", "dirs = ["+strconv.Quote(providerDir)+", ", 1)
	require.NoError(t, os.WriteFile(cfg, []byte(withProviders), 0o600))
	return cfg
}

func TestImportCLICommand(t *testing.T) {
	t.Parallel()
	cfg := importConfig(t, testplugins.Providers(t))
	dir := t.TempDir()
	claude := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "CLAUDE.md"), []byte("# Rules\n\n- Use pnpm.\n- Tests need TZ=UTC.\n"), 0o644))
	mem := filepath.Join(claude, "projects", brain.EncodeProjectFolder(dir), "memory")
	require.NoError(t, os.MkdirAll(mem, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(mem, "notes.md"), []byte("Staging needs the VPN.\n"), 0o644))

	args := []string{"import-cli", dir, "--config", cfg, "--project", cliProject, "--env", "CLAUDE_CONFIG_DIR=" + claude}
	out, err := run(t, args...)
	require.NoError(t, err, out)
	require.Contains(t, out, "read 3, added 3, folded 0 into existing memories, skipped 0")
	out, err = run(t, args...)
	require.NoError(t, err, out)
	require.Contains(t, out, "read 3, added 0, folded 0 into existing memories, skipped 3")
}

// TestImportCLIReadsTheFilesTheProvidersName: with only the Codex provider installed, import-cli
// reads AGENTS.md, the file it names, and no other CLI's file.
func TestImportCLIReadsTheFilesTheProvidersName(t *testing.T) {
	t.Parallel()
	only := t.TempDir()
	testplugins.Install(t, only, "memhost-provider-codex", filepath.Join(testplugins.Providers(t), "memhost-provider-codex"))
	cfg := importConfig(t, only)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("- Use pnpm.\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "CLAUDE.md"), []byte("- Tests need TZ=UTC.\n"), 0o644))
	out, err := run(t, "import-cli", dir, "--config", cfg, "--project", cliProject)
	require.NoError(t, err, out)
	require.Contains(t, out, "AGENTS.md")
	require.NotContains(t, out, "CLAUDE.md")
	require.Contains(t, out, "read 1, added 1")
}
