package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/shortid"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/daemon/server"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
)

// runSplit runs the command line and returns its standard output and error apart.
func runSplit(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	root := rootCmd()
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetIn(strings.NewReader(""))
	err = root.ExecuteContext(t.Context())
	return out.String(), errOut.String(), err
}

// noDatabase writes a config that names no database, with a host at listen.
func noDatabase(t *testing.T, listen string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "memhost.toml")
	require.NoError(t, os.WriteFile(path, []byte(fmt.Sprintf("[server]\nlisten = %q\n", listen)), 0o600))
	return path
}

// routeLog counts the API requests a host answered, by "METHOD /api/v1/projects/{key}/route".
type routeLog struct {
	mu   sync.Mutex
	seen map[string]int
}

func (l *routeLog) count(method, route string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seen[method+" "+projectPath(cliProject, route)]
}

func (l *routeLog) total() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, c := range l.seen {
		n += c
	}
	return n
}

// loggedHost serves a core on cfg (listening where cfg says) and logs the API requests it
// answers: proof that a command went through the host and not through a core of its own.
func loggedHost(t *testing.T) (cfg, down string, core *server.Core, log *routeLog) {
	t.Helper()
	ln := httptest.NewUnstartedServer(nil)
	cfg, dsn := brainConfig(t, ln.Listener.Addr().String())
	core = openCore(t, cfg)
	handler, closeMCP := core.Handler()
	log = &routeLog{seen: map[string]int{}}
	ln.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.EscapedPath(), "/api/") {
			log.mu.Lock()
			log.seen[r.Method+" "+r.URL.EscapedPath()]++
			log.mu.Unlock()
		}
		handler.ServeHTTP(w, r)
	})
	ln.Start()
	t.Cleanup(func() { ln.Close(); closeMCP() })
	// The same database with no host answering: a port nothing listens on.
	down = filepath.Join(t.TempDir(), "down.toml")
	body := fmt.Sprintf("[server]\nlisten = \"127.0.0.1:1\"\n[database]\nurl = %q\n[plugins]\ndirs = [%q]\n[log]\nlevel = \"warn\"\n", dsn, testplugins.Dir(t))
	require.NoError(t, os.WriteFile(down, []byte(body), 0o600))
	return cfg, down, core, log
}

// TestBrainCommandsGoThroughTheRunningHost: without a token, every project brain command asks
// the running host (the operator's own token is minted once and kept), and prints exactly what
// it printed when it opened a core of its own, which it still does, saying so once on stderr,
// when no host answers.
func TestBrainCommandsGoThroughTheRunningHost(t *testing.T) {
	t.Parallel()
	cfg, downCfg, core, log := loggedHost(t)
	ctx := context.Background()
	p := []string{"--project", cliProject, "--token", ""}
	// run2 runs the command with the host, or, down, with no host answering.
	run2 := func(down bool, args ...string) (string, string) {
		t.Helper()
		config := cfg
		if down {
			config = downCfg
		}
		out, errOut, err := runSplit(t, append(append(args, "--config", config), p...)...)
		require.NoError(t, err, errOut)
		return out, errOut
	}
	through := func(args ...string) string {
		t.Helper()
		out, errOut := run2(false, args...)
		require.NotContains(t, errOut, "no host answers")
		return out
	}
	// same runs the command through the host, then with no host answering: it prints the same,
	// the second saying once on stderr that it works on the database.
	same := func(args ...string) {
		t.Helper()
		before := log.total()
		out, errOut := run2(false, args...)
		require.Greater(t, log.total(), before, "memhost %s asked the host", strings.Join(args, " "))
		before = log.total()
		outDown, errDown := run2(true, args...)
		// A proposal seconds old ages between the two runs (and its column's width with it).
		secs := regexp.MustCompile(`\b\d+s\b *`)
		require.Equal(t, secs.ReplaceAllString(out, "Ns"), secs.ReplaceAllString(outDown, "Ns"), "memhost %s prints the same through the host and on the database", strings.Join(args, " "))
		require.Equal(t, "memhost: no host answers on 127.0.0.1:1: working on the database directly (start one with memhost up)\n"+errOut, errDown)
		require.Equal(t, before, log.total(), "no request reached the host")
	}

	out := through("project", "goal", "set", "Ship the CLI through the host.")
	require.Equal(t, "goal of github.com/acme/cli set (version 1)\n", out)
	require.Equal(t, 1, log.count("PUT", "goal"))
	d, err := core.Brain.Document(ctx, operator(cliProject), store.KindGoal)
	require.NoError(t, err)
	require.Equal(t, "cli", d.UpdatedBy, "the host records the CLI as the source, as the command's own core did")
	h, err := core.Service.History(ctx, operator(cliProject), d.ID)
	require.NoError(t, err)
	require.Equal(t, operatorName(), h[0].Actor, "and the operator as the actor")
	_, errOut, err := runSplit(t, "project", "goal", "show", "--config", cfg, "--project", cliProject)
	require.NoError(t, err)
	require.Contains(t, errOut, " by cli)\n", "the header names who updated it, as before")
	same("project", "goal", "show")

	res, err := core.Brain.Propose(ctx, operator(cliProject), brain.ProposeRequest{Layer: "plan", Text: "1. Store\n2. Banner", Reason: "a plan", Agent: "codex"})
	require.NoError(t, err)
	ref := shortid.Of(res.Proposal.ID)
	same("project", "inbox")
	same("project", "inbox", "list", "--status", "all")
	same("project", "inbox", "show", ref)
	out = through("project", "inbox", "approve", ref)
	require.Contains(t, out, "plan of github.com/acme/cli is now version 1")
	require.Equal(t, 1, log.count("POST", "proposals/"+ref+"/approve"))
	same("project", "plan", "show")

	a, err := core.Service.Store(ctx, operator(cliProject), memory.StoreRequest{Text: "Releases ship on Fridays"})
	require.NoError(t, err)
	b, err := core.Service.Store(ctx, operator(cliProject), memory.StoreRequest{Text: "Releases ship on Tuesdays"})
	require.NoError(t, err)
	_, err = core.Store.FileConflict(ctx, store.Conflict{ScopeKey: cliProject, MemoryA: a.ID, MemoryB: b.ID, TextA: "x", TextB: "y",
		Evidence: "two release days", Severity: "high", CreatedAt: time.Now().Add(-time.Hour)})
	require.NoError(t, err)
	page, err := core.Brain.Conflicts(ctx, operator(cliProject), brain.ConflictsRequest{})
	require.NoError(t, err)
	conflict := shortid.Of(page.Conflicts[0].ID)
	same("project", "conflicts")
	same("project", "conflicts", "show", conflict)
	out = through("project", "conflicts", "accept", conflict, "--archive", shortid.Of(a.ID))
	require.Equal(t, fmt.Sprintf("conflict %s accepted\nmemory %s archived\n", page.Conflicts[0].ID, a.ID), out)

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/x\n\ngo 1.22\n"), 0o644))
	out = through("project", "map", "refresh", dir)
	require.Contains(t, out, "map of github.com/acme/cli uploaded")
	require.Equal(t, 1, log.count("PUT", "map"))
	same("project", "map", "show")
	same("project", "map", "show", "--json")
	same("banner", "--cli", "codex", "--budget", "800")
	// The health snapshot through a host that knows its workers is health_test.go's.
	out = through("project", "health")
	require.Contains(t, out, "project github.com/acme/cli\nfacts:      1 (1 this week)")
	require.Equal(t, 1, log.count("GET", "health"))

	// The value report's window starts a week before each run: its minute may differ.
	out = through("project", "value", "--since", "2d")
	require.Equal(t, 1, log.count("GET", "value"))
	outDown, errDown := run2(true, "project", "value", "--since", "2d")
	require.Contains(t, errDown, "no host answers on 127.0.0.1:1")
	require.Equal(t, 1, log.count("GET", "value"), "no request reached the host")
	minute := regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d`)
	require.Equal(t, minute.ReplaceAllString(out, "T"), minute.ReplaceAllString(outDown, "T"))
	require.Contains(t, out, "sessions:   0\n")

	// One operator token served every command: admin, for any project, named for the
	// operator, expiring within the hour.
	live, err := core.Tokens.List(ctx, false)
	require.NoError(t, err)
	require.Len(t, live, 1)
	require.Equal(t, operatorName(), live[0].Name)
	require.Equal(t, []auth.Scope{auth.ScopeAdmin}, live[0].Scopes)
	require.Empty(t, live[0].ProjectKey)
	require.WithinDuration(t, time.Now().Add(operatorTokenTTL), *live[0].ExpiresAt, 5*time.Minute)

	// A kept token the host refuses (revoked) is minted again, once.
	require.NoError(t, core.Tokens.Revoke(ctx, live[0].ID))
	require.Contains(t, through("project", "goal", "show"), "Ship the CLI through the host.")
	live, err = core.Tokens.List(ctx, false)
	require.NoError(t, err)
	require.Len(t, live, 1)

	// A given token is used as it is: a refused one is an error, never a fallback.
	_, _, err = runSplit(t, "project", "goal", "show", "--config", cfg, "--project", cliProject, "--token", "mh_"+"not-a-token")
	require.ErrorContains(t, err, "invalid, expired or revoked token")
	// With neither a token nor a database, there is nothing to work with.
	_, _, err = runSplit(t, "project", "goal", "show", "--config", noDatabase(t, "127.0.0.1:1"), "--project", cliProject, "--token", "")
	require.ErrorContains(t, err, "database.url")
}

// TestImportCLIGoesThroughTheRunningHost: import-cli reads the files here and the host stores
// them; a second run adds nothing, and with no host answering the command does the same on the
// database.
func TestImportCLIGoesThroughTheRunningHost(t *testing.T) {
	t.Parallel()
	cfg, down, core, log := loggedHost(t)
	withProviders := func(path string) string {
		body, err := os.ReadFile(path)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(body), "dirs = [", "dirs = ["+fmt.Sprintf("%q", testplugins.Providers(t))+", ", 1)), 0o600))
		return path
	}
	cfg, down = withProviders(cfg), withProviders(down)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "CLAUDE.md"), []byte("# Rules\n\n- Use pnpm.\n- Tests need TZ=UTC.\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("- Staging needs the VPN.\n"), 0o644))
	args := []string{"import-cli", dir, "--project", cliProject, "--token", "", "--env", "CLAUDE_CONFIG_DIR=" + t.TempDir()}

	out, errOut, err := runSplit(t, append(args, "--config", cfg)...)
	require.NoError(t, err, errOut)
	require.Contains(t, out, "read 3, added 3, folded 0 into existing memories, skipped 0")
	require.Equal(t, 1, log.count("POST", "import-cli"))
	page, err := core.Service.List(context.Background(), operator(cliProject), memory.ListRequest{})
	require.NoError(t, err)
	require.Len(t, page.Memories, 3)

	out, errOut, err = runSplit(t, append(args, "--config", down)...)
	require.NoError(t, err, errOut)
	require.Contains(t, errOut, "no host answers")
	require.Contains(t, out, "read 3, added 0, folded 0 into existing memories, skipped 3")
	require.Equal(t, 1, log.count("POST", "import-cli"), "no request reached the host")
}
