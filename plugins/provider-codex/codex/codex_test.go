package codex_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pelletier/go-toml/v2"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/plugins/provider-codex/codex"
	"github.com/memhost/memhost/sdk/provider"
	"github.com/memhost/memhost/sdk/provider/providertest"
)

// userConfig is a user's config.toml: their own model provider and MCP
// server, which the scratch copy must keep.
const userConfig = `# my codex setup
model = "gpt-9"
model_provider = "corp"

[model_providers.corp]
name = "Corp gateway"
base_url = "https://llm.corp.example/v1"
wire_api = "responses"
env_key = "CORP_KEY"

[mcp_servers.github]
command = "gh-mcp"
args = ["--read-only"]

[projects."/work/p"]
trust_level = "trusted"
`

// withUser gives the fake user a ~/.codex with config, instructions, auth
// and history.
func withUser(home string) (map[string]string, error) {
	dir := filepath.Join(home, ".codex")
	if err := os.MkdirAll(filepath.Join(dir, "log"), 0o700); err != nil {
		return nil, err
	}
	for name, content := range map[string]string{
		"config.toml": userConfig, "AGENTS.md": "Always answer in French.\n", "auth.json": `{"OPENAI_API_KEY":null}`, "history.jsonl": "",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

func TestConformance(t *testing.T) {
	t.Parallel()
	providertest.Exercise(t, codex.New())
	providertest.Exercise(t, providertest.Serve(t, codex.New()), providertest.WithUser(withUser))
}

type bundle struct {
	home, user, scratch, token string
}

func setup(t *testing.T, args ...string) (provider.Spawn, *bundle) {
	t.Helper()
	root := t.TempDir()
	b := &bundle{home: filepath.Join(root, "home"), scratch: filepath.Join(root, "scratch"), token: "mh_" + strings.Repeat("K", 43)}
	b.user = filepath.Join(b.home, ".codex")
	_, err := withUser(b.home)
	require.NoError(t, err)
	require.NoError(t, os.Mkdir(b.scratch, 0o700))
	return provider.Spawn{
		CLI: "codex", Executable: "/usr/local/bin/codex", Args: args, Dir: filepath.Join(root, "project"),
		Env:    map[string]string{"HOME": b.home},
		Banner: "# Project brain\nwe use pnpm\n", Project: "github.com/o/r", ScratchDir: b.scratch,
		MCP: &provider.MCPServer{Name: "memhost", URL: "http://127.0.0.1:7420/mcp", Token: b.token},
	}, b
}

func prepare(t *testing.T, s provider.Spawn) provider.Plan {
	t.Helper()
	plan, err := codex.New().Prepare(t.Context(), s)
	require.NoError(t, err)
	require.NoError(t, plan.Validate(s))
	return plan
}

// files maps each scratch path to its entry.
func files(plan provider.Plan) map[string]provider.File {
	out := map[string]provider.File{}
	for _, f := range plan.Files {
		out[f.Path] = f
	}
	return out
}

func TestTheScratchHomeMirrorsTheUsers(t *testing.T) {
	t.Parallel()
	s, b := setup(t, "exec", "--json", "what do we use?")
	plan := prepare(t, s)
	require.Equal(t, s.Args, plan.Args)
	require.Equal(t, map[string]string{"CODEX_HOME": filepath.Join(b.scratch, "codex-home")}, plan.SetEnv)

	fs := files(plan)
	for _, name := range []string{"auth.json", "history.jsonl", "log"} {
		require.Equal(t, provider.File{Path: "codex-home/" + name, LinkTarget: filepath.Join(b.user, name)}, fs["codex-home/"+name], name)
	}
	require.Equal(t, provider.File{Path: "codex-home/sessions", LinkTarget: filepath.Join(b.user, "sessions"), CreateTargetDir: true}, fs["codex-home/sessions"])

	agents := fs["codex-home/AGENTS.md"]
	require.Equal(t, os.FileMode(0o600), agents.Mode)
	require.Equal(t, "Always answer in French.\n\n# Project brain\nwe use pnpm\n", string(agents.Content))

	config := fs["codex-home/config.toml"]
	require.Equal(t, os.FileMode(0o600), config.Mode)
	var got map[string]any
	require.NoError(t, toml.Unmarshal(config.Content, &got))
	var want map[string]any
	require.NoError(t, toml.Unmarshal([]byte(userConfig+`
[mcp_servers.memhost]
url = "http://127.0.0.1:7420/mcp"
http_headers = { Authorization = "Bearer `+b.token+`" }
`), &want))
	require.Equal(t, want, got, "the user's settings kept, memhost's server added")

	user, err := os.ReadFile(filepath.Join(b.user, "config.toml"))
	require.NoError(t, err)
	require.Equal(t, userConfig, string(user), "the user's own file is never written")
}

// TestMemhostsServerReplacesAnEarlierRegistration: a [mcp_servers.memhost]
// the user added (memhost connect codex) is replaced in the copy by this
// spawn's project-bound one.
func TestMemhostsServerReplacesAnEarlierRegistration(t *testing.T) {
	t.Parallel()
	s, b := setup(t)
	require.NoError(t, os.WriteFile(filepath.Join(b.user, "config.toml"),
		[]byte("[mcp_servers.memhost]\nurl = \"http://old:1/mcp\"\nbearer_token_env_var = \"MEMHOST_TOKEN\"\n"), 0o600))
	var got struct {
		MCPServers map[string]map[string]any `toml:"mcp_servers"`
	}
	require.NoError(t, toml.Unmarshal(files(prepare(t, s))["codex-home/config.toml"].Content, &got))
	require.Equal(t, map[string]any{"url": "http://127.0.0.1:7420/mcp", "http_headers": map[string]any{"Authorization": "Bearer " + b.token}}, got.MCPServers["memhost"])
}

func TestAnOverrideFileGetsTheBanner(t *testing.T) {
	t.Parallel()
	s, b := setup(t)
	require.NoError(t, os.WriteFile(filepath.Join(b.user, "AGENTS.override.md"), []byte("Override.\n"), 0o600))
	fs := files(prepare(t, s))
	require.Equal(t, "Override.\n\n# Project brain\nwe use pnpm\n", string(fs["codex-home/AGENTS.override.md"].Content))
	require.Equal(t, filepath.Join(b.user, "AGENTS.md"), fs["codex-home/AGENTS.md"].LinkTarget)
}

func TestAFirstRunUserGetsAFreshHome(t *testing.T) {
	t.Parallel()
	s, b := setup(t, "exec", "hi")
	require.NoError(t, os.RemoveAll(b.user))
	fs := files(prepare(t, s))
	require.Len(t, fs, 3)
	require.Equal(t, "# Project brain\nwe use pnpm\n", string(fs["codex-home/AGENTS.md"].Content))
	require.True(t, fs["codex-home/sessions"].CreateTargetDir)
}

func TestManagementCommandsRunAgainstTheUsersHome(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"login"}, {"-c", "model=\"x\"", "mcp", "list"}, {"--profile", "work", "logout"}} {
		s, _ := setup(t, args...)
		plan := prepare(t, s)
		require.Equal(t, provider.Plan{Args: args}, plan, "args %v", args)
	}
	// A prompt that happens to be a word is still a session.
	s, _ := setup(t, "-m", "login", "fix the build")
	require.NotEmpty(t, prepare(t, s).SetEnv)
}

func TestWithoutMemhostNothingChanges(t *testing.T) {
	t.Parallel()
	s, _ := setup(t, "exec", "hi")
	s.MCP, s.Banner = nil, ""
	require.Equal(t, provider.Plan{Args: s.Args}, prepare(t, s))
}

func TestABrokenUserConfigIsReported(t *testing.T) {
	t.Parallel()
	s, b := setup(t)
	require.NoError(t, os.WriteFile(filepath.Join(b.user, "config.toml"), []byte("model = \n"), 0o600))
	_, err := codex.New().Prepare(t.Context(), s)
	require.ErrorContains(t, err, "the user's config.toml does not parse")
}

func TestFinishFindsTheRollout(t *testing.T) {
	t.Parallel()
	s, b := setup(t, "exec", "hi")
	started := time.Now()
	write := func(name, cwd string) string {
		day := filepath.Join(b.user, "sessions", started.Format("2006/01/02"))
		require.NoError(t, os.MkdirAll(day, 0o700))
		path := filepath.Join(day, name)
		meta := `{"timestamp":"x","type":"session_meta","payload":{"id":"` + strings.TrimSuffix(name[len(name)-42:], ".jsonl") + `","cwd":"` + cwd + `"}}` + "\n"
		require.NoError(t, os.WriteFile(path, []byte(meta), 0o600))
		return path
	}
	sess, err := codex.New().Finish(t.Context(), provider.Ended{Spawn: s, StartedAt: started})
	require.NoError(t, err)
	require.Equal(t, provider.Session{}, sess, "no rollout: nothing to report")

	ours := write("rollout-2026-11-23T01-00-25-01a205eb-2231-7221-a310-cc63f52e2003.jsonl", s.Dir)
	write("rollout-2026-11-23T01-00-26-01a205eb-0000-7221-a310-cc63f52e2003.jsonl", "/somewhere/else")
	sess, err = codex.New().Finish(t.Context(), provider.Ended{Spawn: s, StartedAt: started, ExitCode: 0})
	require.NoError(t, err)
	require.Equal(t, provider.Session{ID: "01a205eb-2231-7221-a310-cc63f52e2003", Transcript: ours}, sess)
}
