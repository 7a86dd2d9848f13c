package claude_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/plugins/provider-claude/claude"
	"github.com/memhost/memhost/sdk/provider"
	"github.com/memhost/memhost/sdk/provider/providertest"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	providertest.Exercise(t, claude.New())
	providertest.Exercise(t, providertest.Serve(t, claude.New()))
}

type bundle struct {
	home, dir, scratch string
	token              string
}

// setup returns a spawn of claude with args in a fresh home and project.
func setup(t *testing.T, args ...string) (provider.Spawn, *bundle) {
	t.Helper()
	root := t.TempDir()
	b := &bundle{home: filepath.Join(root, "home"), dir: filepath.Join(root, "my project"), scratch: filepath.Join(root, "scratch"),
		token: "mh_" + strings.Repeat("T", 43)}
	for _, d := range []string{b.home, b.dir, b.scratch} {
		require.NoError(t, os.MkdirAll(d, 0o700))
	}
	return provider.Spawn{
		CLI: "claude", Executable: "/usr/local/bin/claude", Args: args, Dir: b.dir,
		Env:    map[string]string{"HOME": b.home},
		Banner: "# Project brain\nwe use pnpm\n", Project: "github.com/o/r", ScratchDir: b.scratch,
		MCP: &provider.MCPServer{Name: "memhost", URL: "http://127.0.0.1:7420/mcp", Token: b.token},
	}, b
}

func prepare(t *testing.T, s provider.Spawn) provider.Plan {
	t.Helper()
	plan, err := claude.New().Prepare(t.Context(), s)
	require.NoError(t, err)
	require.NoError(t, plan.Validate(s))
	return plan
}

func file(t *testing.T, plan provider.Plan, path string) provider.File {
	t.Helper()
	for _, f := range plan.Files {
		if f.Path == path {
			return f
		}
	}
	t.Fatalf("no scratch file %s in %v", path, plan.Files)
	return provider.File{}
}

// sessionID returns the --session-id the plan passes, requiring it last
// among the provider's options.
func sessionID(t *testing.T, plan provider.Plan, userArgs int) string {
	t.Helper()
	last := plan.Args[len(plan.Args)-userArgs-1]
	id, ok := strings.CutPrefix(last, "--session-id=")
	require.True(t, ok, "last injected argument %q", last)
	require.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, id)
	return id
}

func TestHeadlessRun(t *testing.T) {
	t.Parallel()
	s, b := setup(t, "-p", "what do we use?", "--output-format", "json")
	plan := prepare(t, s)
	id := sessionID(t, plan, 4)
	require.Equal(t, []string{
		"--mcp-config=" + filepath.Join(b.scratch, "mcp.json"),
		"--allowedTools=mcp__memhost",
		"--append-system-prompt-file=" + filepath.Join(b.scratch, "banner.md"),
		"--session-id=" + id,
		"-p", "what do we use?", "--output-format", "json",
	}, plan.Args)
	mcp := file(t, plan, "mcp.json")
	require.Equal(t, os.FileMode(0o600), mcp.Mode)
	require.JSONEq(t, `{"mcpServers":{"memhost":{"type":"http","url":"http://127.0.0.1:7420/mcp","headers":{"Authorization":"Bearer `+b.token+`"}}}}`, string(mcp.Content))
	banner := file(t, plan, "banner.md")
	require.Equal(t, os.FileMode(0o600), banner.Mode)
	require.Equal(t, s.Banner, string(banner.Content))
	require.Empty(t, plan.SetEnv, "the user's own configuration stays where it is")
	require.Len(t, plan.Files, 2)
}

// TestTheBannerNeverReachesTheCommandLine: other local users read a process's arguments, and
// exec refuses one argument over 128 KiB; a banner of 200 KiB goes in a file all the same.
func TestTheBannerNeverReachesTheCommandLine(t *testing.T) {
	t.Parallel()
	s, _ := setup(t, "-p", "hi")
	s.Banner = "# Project brain\n" + strings.Repeat("- a fact of the project, one line of it\n", 200<<10/40)
	plan := prepare(t, s)
	for _, a := range plan.Args {
		require.NotContains(t, a, "Project brain")
		require.Less(t, len(a), 1024)
	}
	require.Equal(t, s.Banner, string(file(t, plan, "banner.md").Content))
}

func TestInteractiveRunAsksBeforeUsingTools(t *testing.T) {
	t.Parallel()
	s, _ := setup(t)
	plan := prepare(t, s)
	for _, a := range plan.Args {
		require.NotContains(t, a, "--allowedTools")
		require.NotContains(t, a, "--strict-mcp-config")
	}
	sessionID(t, plan, 0)
}

// TestTheUsersOwnSystemPromptIsKept: with the user's own
// --append-system-prompt or --append-system-prompt-file the banner comes
// through a SessionStart hook; with their own --settings as well, it is left
// out rather than override theirs, and the plan says it does not deliver it
// (the hook memhost connect registered, if any, then gives it).
func TestTheUsersOwnSystemPromptIsKept(t *testing.T) {
	t.Parallel()
	s, b := setup(t, "--append-system-prompt-file=/home/me/prompt.md", "-p", "hi")
	plan := prepare(t, s)
	require.Contains(t, plan.Args, "--settings="+filepath.Join(b.scratch, "settings.json"))
	require.True(t, plan.DeliversBanner)
	s, b = setup(t, "--append-system-prompt", "be terse", "-p", "hi")
	plan = prepare(t, s)
	require.Contains(t, plan.Args, "--settings="+filepath.Join(b.scratch, "settings.json"))
	require.True(t, plan.DeliversBanner)
	var settings struct {
		Hooks struct {
			SessionStart []struct {
				Hooks []struct{ Type, Command string }
			}
		}
	}
	require.NoError(t, json.Unmarshal(file(t, plan, "settings.json").Content, &settings))
	require.Equal(t, "cat '"+filepath.Join(b.scratch, "session-start.json")+"'", settings.Hooks.SessionStart[0].Hooks[0].Command)
	require.JSONEq(t, `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"# Project brain\nwe use pnpm\n"}}`,
		string(file(t, plan, "session-start.json").Content))

	s, _ = setup(t, "--append-system-prompt=be terse", "--settings", "/etc/mine.json")
	plan = prepare(t, s)
	for _, a := range plan.Args[:len(plan.Args)-3] {
		require.NotContains(t, a, "Project brain")
		require.NotContains(t, a, "--settings")
	}
	require.False(t, plan.DeliversBanner, "the banner had no channel")
}

func TestAResumedSessionKeepsItsID(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--resume", "abc"}, {"-c"}, {"--session-id=0190-x"}} {
		s, _ := setup(t, args...)
		plan := prepare(t, s)
		for _, a := range plan.Args[:len(plan.Args)-len(args)] {
			require.NotContains(t, a, "--session-id", "args %v", args)
		}
		require.Equal(t, `{}`, string(plan.State))
	}
}

func TestSubcommandsRunUnchanged(t *testing.T) {
	t.Parallel()
	s, _ := setup(t, "mcp", "list")
	plan := prepare(t, s)
	require.Equal(t, []string{"mcp", "list"}, plan.Args)
	require.Empty(t, plan.Files)
}

func TestWithoutMemhostOnlyTheSessionIsChosen(t *testing.T) {
	t.Parallel()
	s, _ := setup(t, "-p", "hi")
	s.MCP, s.Banner = nil, ""
	plan := prepare(t, s)
	require.Len(t, plan.Args, 3)
	sessionID(t, plan, 2)
	require.Empty(t, plan.Files)
}

func TestFinishFindsTheTranscript(t *testing.T) {
	t.Parallel()
	s, b := setup(t, "-p", "hi")
	cfg := filepath.Join(b.home, "claude-config")
	s.Env["CLAUDE_CONFIG_DIR"] = cfg
	plan := prepare(t, s)
	id := sessionID(t, plan, 2)
	started := time.Now()

	// The CLI crashed before writing anything: the id is still the session's.
	sess, err := claude.New().Finish(t.Context(), provider.Ended{Spawn: s, State: plan.State, ExitCode: 1, StartedAt: started})
	require.NoError(t, err)
	require.Equal(t, provider.Session{ID: id}, sess)

	// Claude Code names the project directory after the encoded path.
	projectDir := filepath.Join(cfg, "projects", strings.NewReplacer("/", "-", " ", "-").Replace(b.dir))
	require.NoError(t, os.MkdirAll(projectDir, 0o700))
	transcript := filepath.Join(projectDir, id+".jsonl")
	require.NoError(t, os.WriteFile(transcript, []byte("{}\n"), 0o600))
	sess, err = claude.New().Finish(t.Context(), provider.Ended{Spawn: s, State: plan.State, StartedAt: started})
	require.NoError(t, err)
	require.Equal(t, provider.Session{ID: id, Transcript: transcript}, sess)

	// A resumed session: the newest transcript of this directory since the start.
	s.Args = []string{"--continue"}
	plan = prepare(t, s)
	resumed := filepath.Join(projectDir, "0c0ffee0-0000-4000-8000-000000000000.jsonl")
	require.NoError(t, os.WriteFile(resumed, []byte("{}\n"), 0o600))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(transcript, old, old))
	sess, err = claude.New().Finish(t.Context(), provider.Ended{Spawn: s, State: plan.State, StartedAt: started})
	require.NoError(t, err)
	require.Equal(t, provider.Session{ID: "0c0ffee0-0000-4000-8000-000000000000", Transcript: resumed}, sess)
}
