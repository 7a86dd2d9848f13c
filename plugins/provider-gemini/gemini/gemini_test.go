package gemini_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/plugins/provider-gemini/gemini"
	"github.com/memhost/memhost/sdk/provider"
	"github.com/memhost/memhost/sdk/provider/providertest"
)

// userSettings are a user's settings.json, with comments as Gemini CLI
// allows them, their own auth and MCP server.
const userSettings = `{
  // signed in with an API key
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "mcpServers": {"github": {"command": "gh-mcp", "args": ["--read-only"]}}, /* mine */
  "ui": {"theme": "GitHub // dark"}
}
`

// withUser gives the fake user a ~/.gemini with settings, context, auth and
// an installation id.
func withUser(home string) (map[string]string, error) {
	dir := filepath.Join(home, ".gemini")
	if err := os.MkdirAll(filepath.Join(dir, "extensions"), 0o700); err != nil {
		return nil, err
	}
	for name, content := range map[string]string{
		"settings.json": userSettings, "GEMINI.md": "Always answer in French.\n", "oauth_creds.json": "{}", "installation_id": "x",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

func TestConformance(t *testing.T) {
	t.Parallel()
	providertest.Exercise(t, gemini.New())
	providertest.Exercise(t, providertest.Serve(t, gemini.New()), providertest.WithUser(withUser))
}

type bundle struct {
	home, user, scratch, token string
}

func setup(t *testing.T, args ...string) (provider.Spawn, *bundle) {
	t.Helper()
	root := t.TempDir()
	b := &bundle{home: filepath.Join(root, "home"), scratch: filepath.Join(root, "scratch"), token: "mh_" + strings.Repeat("G", 43)}
	b.user = filepath.Join(b.home, ".gemini")
	_, err := withUser(b.home)
	require.NoError(t, err)
	require.NoError(t, os.Mkdir(b.scratch, 0o700))
	return provider.Spawn{
		CLI: "gemini", Executable: "/usr/local/bin/gemini", Args: args, Dir: filepath.Join(root, "project"),
		Env:    map[string]string{"HOME": b.home},
		Banner: "# Project brain\nwe use pnpm\n", Project: "github.com/o/r", ScratchDir: b.scratch,
		MCP: &provider.MCPServer{Name: "memhost", URL: "http://127.0.0.1:7420/mcp", Token: b.token},
	}, b
}

func prepare(t *testing.T, s provider.Spawn) provider.Plan {
	t.Helper()
	plan, err := gemini.New().Prepare(t.Context(), s)
	require.NoError(t, err)
	require.NoError(t, plan.Validate(s))
	return plan
}

func files(plan provider.Plan) map[string]provider.File {
	out := map[string]provider.File{}
	for _, f := range plan.Files {
		out[f.Path] = f
	}
	return out
}

func sessionID(t *testing.T, plan provider.Plan) string {
	t.Helper()
	id, ok := strings.CutPrefix(plan.Args[0], "--session-id=")
	require.True(t, ok, "first argument %q", plan.Args[0])
	require.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, id)
	return id
}

func TestTheScratchHomeMirrorsTheUsers(t *testing.T) {
	t.Parallel()
	s, b := setup(t, "-p", "what do we use?", "-o", "json")
	plan := prepare(t, s)
	require.Equal(t, append([]string{"--session-id=" + sessionID(t, plan)}, s.Args...), plan.Args)
	require.Equal(t, map[string]string{
		"GEMINI_CLI_HOME":            filepath.Join(b.scratch, "gemini-home"),
		"GEMINI_CLI_TRUST_WORKSPACE": "true",
	}, plan.SetEnv)

	fs := files(plan)
	for _, name := range []string{"oauth_creds.json", "installation_id", "extensions"} {
		require.Equal(t, provider.File{Path: "gemini-home/.gemini/" + name, LinkTarget: filepath.Join(b.user, name)}, fs["gemini-home/.gemini/"+name], name)
	}
	for _, name := range []string{"tmp", "history"} {
		require.True(t, fs["gemini-home/.gemini/"+name].CreateTargetDir, name)
	}
	require.Equal(t, "Always answer in French.\n\n# Project brain\nwe use pnpm\n", string(fs["gemini-home/.gemini/GEMINI.md"].Content))
	require.Equal(t, os.FileMode(0o600), fs["gemini-home/.gemini/GEMINI.md"].Mode, "the banner is for this user alone")

	settings := fs["gemini-home/.gemini/settings.json"]
	require.Equal(t, os.FileMode(0o600), settings.Mode)
	require.JSONEq(t, `{
	  "security": {"auth": {"selectedType": "gemini-api-key"}},
	  "mcpServers": {
	    "github": {"command": "gh-mcp", "args": ["--read-only"]},
	    "memhost": {"type": "http", "url": "http://127.0.0.1:7420/mcp", "trust": true, "headers": {"Authorization": "Bearer `+b.token+`"}}
	  },
	  "ui": {"theme": "GitHub // dark"}
	}`, string(settings.Content))

	user, err := os.ReadFile(filepath.Join(b.user, "settings.json"))
	require.NoError(t, err)
	require.Equal(t, userSettings, string(user), "the user's own file is never written")
}

func TestTheUsersContextFileNameAndAllowListAreHonoured(t *testing.T) {
	t.Parallel()
	s, b := setup(t)
	require.NoError(t, os.WriteFile(filepath.Join(b.user, "settings.json"),
		[]byte(`{"context": {"fileName": ["AGENTS.md", "GEMINI.md"]}, "mcp": {"allowed": ["github"]}}`), 0o600))
	fs := files(prepare(t, s))
	require.Equal(t, "# Project brain\nwe use pnpm\n", string(fs["gemini-home/.gemini/AGENTS.md"].Content))
	require.Equal(t, filepath.Join(b.user, "GEMINI.md"), fs["gemini-home/.gemini/GEMINI.md"].LinkTarget)
	var got struct {
		MCP struct{ Allowed []string } `json:"mcp"`
	}
	require.NoError(t, json.Unmarshal(fs["gemini-home/.gemini/settings.json"].Content, &got))
	require.Equal(t, []string{"github", "memhost"}, got.MCP.Allowed)
}

func TestTheUsersGeminiCLIHomeIsMirrored(t *testing.T) {
	t.Parallel()
	s, b := setup(t)
	own := filepath.Join(b.home, "elsewhere")
	_, err := withUser(own)
	require.NoError(t, err)
	s.Env["GEMINI_CLI_HOME"] = own
	fs := files(prepare(t, s))
	require.Equal(t, filepath.Join(own, ".gemini", "installation_id"), fs["gemini-home/.gemini/installation_id"].LinkTarget)
}

func TestManagementCommandsAndResumesRunAsGiven(t *testing.T) {
	t.Parallel()
	s, _ := setup(t, "mcp", "list")
	require.Equal(t, provider.Plan{Args: s.Args}, prepare(t, s))

	s, _ = setup(t, "--resume", "latest")
	plan := prepare(t, s)
	require.Equal(t, s.Args, plan.Args)
	require.NotEmpty(t, plan.SetEnv)
}

func TestWithoutMemhostNothingChanges(t *testing.T) {
	t.Parallel()
	s, _ := setup(t, "-p", "hi")
	s.MCP, s.Banner = nil, ""
	require.Equal(t, provider.Plan{Args: s.Args}, prepare(t, s))
}

func TestABrokenUserSettingsFileIsReported(t *testing.T) {
	t.Parallel()
	s, b := setup(t)
	require.NoError(t, os.WriteFile(filepath.Join(b.user, "settings.json"), []byte(`{"mcpServers": [}`), 0o600))
	_, err := gemini.New().Prepare(t.Context(), s)
	require.ErrorContains(t, err, "the user's settings.json does not parse")
	require.NoError(t, os.WriteFile(filepath.Join(b.user, "settings.json"), []byte(`{"mcpServers": []}`), 0o600))
	_, err = gemini.New().Prepare(t.Context(), s)
	require.EqualError(t, err, "the user's settings.json: mcpServers is not an object")
}

func TestFinishFindsTheChat(t *testing.T) {
	t.Parallel()
	s, b := setup(t, "-p", "hi")
	plan := prepare(t, s)
	id := sessionID(t, plan)
	started := time.Now()
	chat := func(project, sid, root string) string {
		dir := filepath.Join(b.user, "tmp", project)
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "chats"), 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(dir, ".project_root"), []byte(root), 0o600))
		path := filepath.Join(dir, "chats", "session-2026-11-23T00-57-"+sid[:8]+".jsonl")
		require.NoError(t, os.WriteFile(path, []byte(`{"sessionId":"`+sid+`","kind":"main"}`+"\n"), 0o600))
		return path
	}
	sess, err := gemini.New().Finish(t.Context(), provider.Ended{Spawn: s, State: plan.State, StartedAt: started})
	require.NoError(t, err)
	require.Equal(t, provider.Session{ID: id}, sess, "no chat yet: the chosen id")

	ours := chat("project", id, s.Dir)
	sess, err = gemini.New().Finish(t.Context(), provider.Ended{Spawn: s, State: plan.State, StartedAt: started})
	require.NoError(t, err)
	require.Equal(t, provider.Session{ID: id, Transcript: ours}, sess)

	// A resumed session: the newest chat of this directory.
	s.Args = []string{"--resume", "latest"}
	plan = prepare(t, s)
	chat("other", "7f000000-0000-4000-8000-000000000000", "/somewhere/else")
	sess, err = gemini.New().Finish(t.Context(), provider.Ended{Spawn: s, State: plan.State, StartedAt: started})
	require.NoError(t, err)
	require.Equal(t, provider.Session{ID: id, Transcript: ours}, sess)
}
