package spawn

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pelletier/go-toml/v2"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/wire"
)

// TestClaudeGetsTheBannerAndMemhostsServer: the real Claude provider's plan reaches the CLI:
// its flags before the user's arguments, the MCP config file with this session's token, the
// banner; afterwards the journal has the session and nothing is left behind.
func TestClaudeGetsTheBannerAndMemhostsServer(t *testing.T) {
	t.Parallel()
	b := setup(t, "claude", "-p", "what do we use?")
	res, rec := b.run(t)
	require.Equal(t, 0, res.ExitCode)
	require.True(t, res.Injected)
	require.Positive(t, res.Overhead)
	token := b.tokens.only(t)

	args := rec.args()
	require.Len(t, args, 6)
	require.Equal(t, []string{"-p", "what do we use?"}, args[4:], "the user's arguments, last and as given")
	mcpFlag, ok := strings.CutPrefix(args[0], "--mcp-config=")
	require.True(t, ok, args[0])
	require.True(t, strings.HasPrefix(mcpFlag, b.scratchRoot+"/claude-"), "in a scratch directory under the root: %s", mcpFlag)
	banners, ends := b.host.sessions()
	require.Len(t, banners, 1)
	key := banners[0].Session.Key
	require.Equal(t, wire.BannerRequest{CLI: "claude", Task: "what do we use?", Session: &wire.SessionRef{Key: key, CLI: "claude", Origin: "run"}}, banners[0],
		"the provider found the task in the arguments")
	require.JSONEq(t, `{"mcpServers":{"memhost":{"type":"http","url":"`+b.host.srv.URL+`/mcp","headers":{"Authorization":"Bearer `+token+`","X-Memhost-Session":"`+key+`"}}}}`,
		rec.read("file-mcp.json"))
	require.Equal(t, "--allowedTools=mcp__memhost", args[1])
	require.Equal(t, "--append-system-prompt-file="+filepath.Join(filepath.Dir(mcpFlag), "banner.md"), args[2])
	require.Equal(t, b.host.banner, rec.read("file-banner.md"))
	sessionID := sessionIDOf(args)
	require.Len(t, sessionID, 36)
	require.Equal(t, b.project, strings.TrimSpace(rec.read("pwd")))

	env := rec.env()
	require.Equal(t, b.home, env["HOME"])
	require.Equal(t, "mh_operator-secret-not-for-providers", env["MEMHOST_TOKEN"], "the user's environment is the CLI's")
	require.Equal(t, key, env[SessionKeyEnv])

	// The session's end closes its record, by the same key; the CLI's own id comes with it.
	require.Len(t, ends, 1)
	require.Equal(t, wire.SessionRef{Key: key, CLI: "claude", Origin: "run"}, ends[0].Session)
	require.Equal(t, sessionIDOf(args), ends[0].CLISession)

	require.Equal(t, []journalCall{{Project: b.project, Entry: JournalEntry{
		Agent: "claude", Session: sessionID, Text: "claude session ended after 0s with exit code 0.",
		TranscriptNote: "the provider found no transcript",
	}}}, b.host.entries())
	require.Empty(t, b.warn.String())
}

func sessionIDOf(args []string) string { return strings.TrimPrefix(args[3], "--session-id=") }

// TestTheBannerReachesClaudeInAPrivateFile: the banner is never on the CLI's command line,
// which every local user can read in /proc/PID/cmdline, but in a 0600 file of a 0700 scratch
// directory, removed when the CLI is gone; a banner of 200 KiB (past the 128 KiB exec takes
// in one argument) still starts the CLI with memory.
func TestTheBannerReachesClaudeInAPrivateFile(t *testing.T) {
	t.Parallel()
	b := setup(t, "claude", "-p", "hi")
	b.host.banner = "# Project brain\n" + strings.Repeat("- one fact of the project, a line long.\n", 200<<10/40) + "end-" + random(6) + "\n"
	b.opts.Env = append(b.opts.Env, "FAKE_MODE=wait")
	signals := make(chan os.Signal, 1)
	b.opts.Signals = signals
	type seen struct {
		file, dir os.FileMode
		err       error
	}
	during := make(chan seen, 1)
	go func() {
		waitFor(t, filepath.Join(b.out, "ready"))
		var s seen
		for _, a := range (record{t: t, dir: b.out}).args() {
			if path, ok := strings.CutPrefix(a, "--append-system-prompt-file="); ok {
				fi, err := os.Stat(path)
				di, derr := os.Stat(filepath.Dir(path))
				if s.err = errors.Join(err, derr); s.err == nil {
					s.file, s.dir = fi.Mode().Perm(), di.Mode().Perm()
				}
			}
		}
		during <- s
		signals <- syscall.SIGTERM
	}()
	res, rec := b.run(t) // requires the scratch directory gone afterwards
	require.Equal(t, 143, res.ExitCode)
	require.True(t, res.Injected)
	require.Empty(t, b.warn.String())
	for _, a := range rec.args() {
		require.NotContains(t, a, "Project brain")
		require.Less(t, len(a), 1<<10)
	}
	require.Equal(t, b.host.banner, rec.read("file-banner.md"))
	s := <-during
	require.NoError(t, s.err)
	require.Equal(t, seen{file: 0o600, dir: 0o700}, s)
}

// TestCodexRunsInAScratchHomeThatMirrorsTheUsers: CODEX_HOME points at a scratch home with the
// user's own files linked, a merged config.toml and AGENTS.md; the user's files are unchanged
// and the rollout directory is theirs.
func TestCodexRunsInAScratchHomeThatMirrorsTheUsers(t *testing.T) {
	t.Parallel()
	b := setup(t, "codex", "exec", "--json", "fix it")
	user := filepath.Join(b.home, ".codex")
	require.NoError(t, os.MkdirAll(user, 0o700))
	for name, content := range map[string]string{
		"config.toml": "model = \"gpt-9\"\n[mcp_servers.github]\ncommand = \"gh-mcp\"\n",
		"auth.json":   `{"tokens":"theirs"}`,
		"AGENTS.md":   "Answer in French.\n",
	} {
		require.NoError(t, os.WriteFile(filepath.Join(user, name), []byte(content), 0o600))
	}
	before := snapshot(t, user)

	res, rec := b.run(t)
	require.Equal(t, 0, res.ExitCode)
	token := b.tokens.only(t)
	require.Equal(t, []string{"exec", "--json", "fix it"}, rec.args())
	env := rec.env()
	require.True(t, strings.HasPrefix(env["CODEX_HOME"], b.scratchRoot+"/codex-"), env["CODEX_HOME"])

	home := filepath.Join(b.out, "codex-home")
	link, err := os.Readlink(filepath.Join(home, "auth.json"))
	require.NoError(t, err)
	require.Equal(t, filepath.Join(user, "auth.json"), link, "the user's auth, linked")
	link, err = os.Readlink(filepath.Join(home, "sessions"))
	require.NoError(t, err)
	require.Equal(t, filepath.Join(user, "sessions"), link, "rollouts land in the user's home")
	agents, err := os.ReadFile(filepath.Join(home, "AGENTS.md"))
	require.NoError(t, err)
	require.Equal(t, "Answer in French.\n\n"+b.host.banner, string(agents))
	fi, err := os.Stat(filepath.Join(home, "config.toml"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	raw, err := os.ReadFile(filepath.Join(home, "config.toml"))
	require.NoError(t, err)
	var config struct {
		Model      string                    `toml:"model"`
		MCPServers map[string]map[string]any `toml:"mcp_servers"`
	}
	require.NoError(t, toml.Unmarshal(raw, &config))
	require.Equal(t, "gpt-9", config.Model)
	require.Equal(t, "gh-mcp", config.MCPServers["github"]["command"])
	banners, _ := b.host.sessions()
	require.Equal(t, "fix it", banners[0].Task)
	require.Equal(t, map[string]any{"url": b.host.srv.URL + "/mcp", "http_headers": map[string]any{"Authorization": "Bearer " + token,
		"X-Memhost-Session": banners[0].Session.Key}}, config.MCPServers["memhost"])

	after := snapshot(t, user)
	sessions := filepath.Join(user, "sessions")
	require.Equal(t, "drwx------", after[sessions], "created for the CLI's rollouts")
	delete(after, sessions)
	require.Equal(t, before, after, "the user's own files are never modified")
	require.Len(t, b.host.entries(), 1)
}

// TestGeminiRunsInAScratchHomeThatMirrorsTheUsers: GEMINI_CLI_HOME points at a scratch home
// whose .gemini has the merged settings (memhost trusted) and GEMINI.md with the banner, in a
// trusted workspace.
func TestGeminiRunsInAScratchHomeThatMirrorsTheUsers(t *testing.T) {
	t.Parallel()
	b := setup(t, "gemini", "-p", "hi", "-o", "json")
	user := filepath.Join(b.home, ".gemini")
	require.NoError(t, os.MkdirAll(user, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(user, "settings.json"), []byte(`{"security":{"auth":{"selectedType":"gemini-api-key"}}}`), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(user, "oauth_creds.json"), []byte(`{}`), 0o600))
	before := snapshot(t, user)

	res, rec := b.run(t)
	require.Equal(t, 0, res.ExitCode)
	token := b.tokens.only(t)
	args := rec.args()
	require.Equal(t, []string{"-p", "hi", "-o", "json"}, args[1:])
	env := rec.env()
	require.Equal(t, "true", env["GEMINI_CLI_TRUST_WORKSPACE"])
	dot := filepath.Join(b.out, "gemini-home", ".gemini")
	settings, err := os.ReadFile(filepath.Join(dot, "settings.json"))
	require.NoError(t, err)
	banners, _ := b.host.sessions()
	require.Equal(t, "hi", banners[0].Task)
	key := banners[0].Session.Key
	require.JSONEq(t, `{"security":{"auth":{"selectedType":"gemini-api-key"}},
		"mcpServers":{"memhost":{"type":"http","url":"`+b.host.srv.URL+`/mcp","trust":true,"headers":{"Authorization":"Bearer `+token+`","X-Memhost-Session":"`+key+`"}}}}`, string(settings))
	context, err := os.ReadFile(filepath.Join(dot, "GEMINI.md"))
	require.NoError(t, err)
	require.Equal(t, b.host.banner, string(context))
	link, err := os.Readlink(filepath.Join(dot, "oauth_creds.json"))
	require.NoError(t, err)
	require.Equal(t, filepath.Join(user, "oauth_creds.json"), link)

	after := snapshot(t, user)
	for _, d := range []string{"tmp", "history"} {
		delete(after, filepath.Join(user, d))
	}
	require.Equal(t, before, after)
	require.Equal(t, strings.TrimPrefix(args[0], "--session-id="), b.host.entries()[0].Entry.Session)
}

func TestExitCodesPassThrough(t *testing.T) {
	t.Parallel()
	b := setup(t, "claude", "-p", "hi")
	b.opts.Env = append(b.opts.Env, "FAKE_EXIT=3")
	res, _ := b.run(t)
	require.Equal(t, 3, res.ExitCode)
	require.Equal(t, "claude session ended after 0s with exit code 3.", b.host.entries()[0].Entry.Text)
	b.tokens.only(t)
}

// TestACrashedCLILeavesNothingBehind: a CLI killed by a signal is reported as 128+N, and its
// scratch files and token are cleaned up as after a normal exit.
func TestACrashedCLILeavesNothingBehind(t *testing.T) {
	t.Parallel()
	b := setup(t, "codex", "exec", "hi")
	b.opts.Env = append(b.opts.Env, "FAKE_MODE=crash")
	res, _ := b.run(t)
	require.Equal(t, 128+int(syscall.SIGSEGV), res.ExitCode)
	b.tokens.only(t)
	require.Contains(t, b.host.entries()[0].Entry.Text, "with exit code 139")
}

// waitFor polls until path exists.
func waitFor(t *testing.T, path string) {
	t.Helper()
	require.Eventually(t, func() bool {
		_, err := os.Stat(path)
		return err == nil
	}, 30*time.Second, 10*time.Millisecond, "%s never appeared", path)
}

// TestSignalsReachTheCLI: a signal memhost run receives is passed on; the CLI's exit status
// (its trap's) is memhost run's, and everything is cleaned up.
func TestSignalsReachTheCLI(t *testing.T) {
	t.Parallel()
	for sig, want := range map[syscall.Signal]struct {
		code int
		trap string
	}{syscall.SIGTERM: {143, "TERM"}, syscall.SIGINT: {130, "INT"}} {
		t.Run(want.trap, func(t *testing.T) {
			t.Parallel()
			b := setup(t, "gemini")
			b.opts.Env = append(b.opts.Env, "FAKE_MODE=wait")
			signals := make(chan os.Signal, 1)
			b.opts.Signals = signals
			go func() {
				waitFor(t, filepath.Join(b.out, "ready"))
				signals <- sig
			}()
			res, rec := b.run(t)
			require.Equal(t, want.code, res.ExitCode)
			require.Equal(t, want.trap+"\n", rec.read("signal"))
			b.tokens.only(t)
		})
	}
}

// TestAKilledCLILeavesNothingBehind: kill -9 of the CLI.
func TestAKilledCLILeavesNothingBehind(t *testing.T) {
	t.Parallel()
	b := setup(t, "claude")
	b.opts.Env = append(b.opts.Env, "FAKE_MODE=wait")
	go func() {
		waitFor(t, filepath.Join(b.out, "ready"))
		pid := strings.TrimSpace(record{t: t, dir: b.out}.read("pid"))
		n, err := strconv.Atoi(pid)
		if err == nil {
			_ = syscall.Kill(n, syscall.SIGKILL)
		}
	}()
	res, _ := b.run(t)
	require.Equal(t, 137, res.ExitCode)
	b.tokens.only(t)
}

// TestAnUnreachableHostDoesNotBlockTheCLI: the CLI starts plain after one line on stderr, and
// the token granted for the attempt is released.
func TestAnUnreachableHostDoesNotBlockTheCLI(t *testing.T) {
	t.Parallel()
	b := setup(t, "claude", "-p", "hi")
	b.host.srv.Close()
	res, rec := b.run(t)
	require.Equal(t, 0, res.ExitCode)
	require.False(t, res.Injected)
	require.Equal(t, []string{"-p", "hi"}, rec.args())
	warning := b.warn.String()
	require.Equal(t, 1, strings.Count(warning, "\n"), warning)
	require.True(t, strings.HasPrefix(warning, "memhost: fetch the banner: host "+b.host.srv.URL+" unreachable"), warning)
	require.True(t, strings.HasSuffix(warning, "; starting claude without memory\n"), warning)
	b.tokens.only(t)
}

func TestAMissingProviderDoesNotBlockTheCLI(t *testing.T) {
	t.Parallel()
	b := setup(t, "codex", "exec", "hi")
	b.opts.PluginDirs = []string{t.TempDir()}
	res, rec := b.run(t)
	require.Equal(t, 0, res.ExitCode)
	require.False(t, res.Injected)
	require.Equal(t, []string{"exec", "hi"}, rec.args())
	require.Contains(t, b.warn.String(), "memhost: no provider plugin memhost-provider-codex in ")
	require.Empty(t, b.host.entries())
}

func TestAMissingCLIIsAnError(t *testing.T) {
	t.Parallel()
	b := setup(t, "claude")
	b.opts.Executable = "no-such-claude"
	res, err := Run(context.Background(), b.opts)
	require.EqualError(t, err, "no-such-claude: not found on PATH (install it, or name it with --bin)")
	require.Equal(t, 127, res.ExitCode)
	requireEmpty(t, b.scratchRoot)
	b.tokens.only(t)
}

// TestManagementCommandsLeaveNoJournalEntry: `memhost run claude -- mcp list` runs the command
// as given and records no session.
func TestManagementCommandsLeaveNoJournalEntry(t *testing.T) {
	t.Parallel()
	b := setup(t, "claude", "mcp", "list")
	res, rec := b.run(t)
	require.Equal(t, 0, res.ExitCode)
	require.Equal(t, []string{"mcp", "list"}, rec.args())
	require.Empty(t, b.host.entries())
}

// TestAnInterruptBeforeTheCLIStartsStartsNothing: Ctrl-C while memhost prepares the spawn
// (its context ends) exits 130 without starting the CLI, and cleans up.
func TestAnInterruptBeforeTheCLIStartsStartsNothing(t *testing.T) {
	t.Parallel()
	b := setup(t, "claude", "-p", "hi")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Run(ctx, b.opts)
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, 130, res.ExitCode)
	require.NoFileExists(t, filepath.Join(b.out, "args"), "the CLI never ran")
	requireEmpty(t, b.scratchRoot)
}

// TestASessionThatDidNothingLeavesNoJournalEntry: a session that ends cleanly within
// DefaultQuietUnder is not journalled (its line would crowd the banner's recent sessions); a
// longer one is, and so is a short one that failed (TestExitCodesPassThrough).
func TestASessionThatDidNothingLeavesNoJournalEntry(t *testing.T) {
	t.Parallel()
	b := setup(t, "claude", "-p", "hi")
	b.opts.QuietUnder = 0 // the default: 30 s
	res, _ := b.run(t)
	require.Equal(t, 0, res.ExitCode)
	require.True(t, res.Injected)
	require.Empty(t, b.host.entries())
	require.Empty(t, b.warn.String())
	b.tokens.only(t)

	b = setup(t, "claude", "-p", "hi")
	b.opts.QuietUnder = time.Nanosecond // every session outlasts it
	b.run(t)
	require.Len(t, b.host.entries(), 1)
}
