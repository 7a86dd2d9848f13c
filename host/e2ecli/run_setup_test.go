//go:build e2ecli

package e2ecli

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/testkit/standin"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
)

// The tests in run_*_test.go prove `memhost run` and `memhost connect` on the real CLIs: the
// provider plugins inject memhost, nothing is configured by hand except what a user has
// anyway (the model endpoint in each CLI's own configuration).

// spawnWorld is a user's project for memhost run: a git repository whose origin is the
// bundle's project (so memhost resolves the same key the bundle's token is bound to), a config
// that also finds the provider plugins, and a temporary folder of its own for the scratch root.
type spawnWorld struct {
	b      *bundle
	config string
	tmp    string
	admin  string
}

// newSpawnWorld prepares b's project for memhost run.
func newSpawnWorld(t *testing.T, b *bundle) *spawnWorld {
	t.Helper()
	project(t, b.work, b.project)
	cfg, err := os.ReadFile(b.host.config)
	require.NoError(t, err)
	w := &spawnWorld{b: b, config: filepath.Join(t.TempDir(), "memhost.toml"), tmp: t.TempDir()}
	withProviders := strings.Replace(string(cfg), "dirs = [", "dirs = ["+strconv.Quote(testplugins.Providers(t))+", ", 1)
	require.NoError(t, os.WriteFile(w.config, []byte(withProviders), 0o600))
	w.admin = w.memhostOK(t, "token", "create", "--scopes", "admin", "--name", "e2ecli-admin")
	return w
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
}

// memhostOK runs a memhost command with the world's config and returns its last output line.
func (w *spawnWorld) memhostOK(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(testplugins.Memhost(t), append(args, "--config", w.config)...).Output()
	require.NoError(t, err, "memhost %v", args)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}

// run runs `memhost run CLI -- args` headless in the project, as runCLI runs a CLI: bounded, no
// inherited environment, no process left behind. The scratch root is in the world's
// temporary folder, and must be empty afterwards.
func (w *spawnWorld) run(t *testing.T, p npmPackage, env []string, args ...string) cliRun {
	t.Helper()
	return w.runIn(t, w.b.work, p, env, args...)
}

// runIn is run in another project folder.
func (w *spawnWorld) runIn(t *testing.T, dir string, p npmPackage, env []string, args ...string) cliRun {
	t.Helper()
	argv := append([]string{"run", "--config", w.config, "--bin", cliPath(t, p), p.bin, "--"}, args...)
	run := runCLI(t, dir, append(env, "TMPDIR="+w.tmp), testplugins.Memhost(t), argv...)
	w.requireNoScratch(t)
	return run
}

// project makes a folder a git repository whose origin is key, as memhost resolves projects.
func project(t *testing.T, dir, key string) {
	t.Helper()
	git(t, dir, "init", "-q")
	git(t, dir, "remote", "add", "origin", "https://"+key+".git")
}

func (w *spawnWorld) requireNoScratch(t *testing.T) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(w.tmp, "memhost-run-"+strconv.Itoa(os.Getuid())))
	if !os.IsNotExist(err) {
		require.NoError(t, err)
	}
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	require.Empty(t, left, "memhost run left scratch files behind")
}

// rest calls the host's REST API with the admin token.
func (w *spawnWorld) rest(t *testing.T, method, path string, body any) {
	t.Helper()
	w.api(t, method, path, body, nil)
}

// seed sets the bundle's project's goal and stores a fact, each carrying its sentinel, and
// returns them.
func (w *spawnWorld) seed(t *testing.T) (goal, fact string) {
	t.Helper()
	return w.seedProject(t, w.b.project, w.b.sentinel)
}

// seedProject seeds project key with sentinel.
func (w *spawnWorld) seedProject(t *testing.T, key, sentinel string) (goal, fact string) {
	t.Helper()
	goal = "GOAL-" + sentinel
	fact = "FACT-" + sentinel + ": releases are cut from the main branch on Tuesdays."
	w.rest(t, http.MethodPut, "/api/v1/projects/"+url.PathEscape(key)+"/goal", map[string]string{"text": "Ship it. " + goal})
	w.rest(t, http.MethodPost, "/api/v1/memories", map[string]string{"text": fact, "project": key})
	return goal, fact
}

// requireInModelRequest requires that a model request offering tools (the agent's own turn)
// carried each of texts.
func requireInModelRequest(t *testing.T, model *standin.Server, texts ...string) {
	t.Helper()
	for _, text := range texts {
		found := false
		for _, r := range model.Requests() {
			if !r.Auxiliary && r.Contains(text) {
				found = true
			}
		}
		require.True(t, found, "no model request carried %q", text)
	}
}

// requireNotInModelRequests requires that no request to model carried text.
func requireNotInModelRequests(t *testing.T, model *standin.Server, text string) {
	t.Helper()
	for _, r := range model.Requests() {
		require.False(t, r.Contains(text), "a model request carried %q", text)
	}
}

// requireSearchRoundTrip requires that the stand-in's memory_search call went out under tool
// and that its result, carrying want, came back in the CLI's next request.
func requireSearchRoundTrip(t *testing.T, model *standin.Server, tool, want string) {
	t.Helper()
	var call *standin.IssuedCall
	for _, c := range model.Calls() {
		if !c.Loader {
			call = &c
		}
	}
	require.NotNil(t, call, "the stand-in never called memory_search; tools offered: %v", lastTools(model.Requests()))
	require.Equal(t, tool, call.Name)
	res, ok := model.ResultOf(call.ID)
	require.True(t, ok, "no later request carried the result of %s", call.ID)
	require.False(t, res.IsError, res.Content)
	require.Contains(t, res.Content, want)
}

// codexUserHome writes the user's own CODEX_HOME: the model endpoint at modelURL (a stand-in)
// as model provider, nothing of memhost (memhost run adds it).
func codexUserHome(t *testing.T, b *bundle, modelURL string) string {
	t.Helper()
	home := filepath.Join(b.home, ".codex")
	write(t, filepath.Join(home, "config.toml"), fmt.Sprintf(`model = "standin-model"
model_provider = "standin"
check_for_update_on_startup = false

[model_providers.standin]
name = "memhost stand-in"
base_url = %q
wire_api = "responses"
env_key = "STANDIN_API_KEY"

[features]
plugins = false
apps = false

[analytics]
enabled = false
`, modelURL+"/v1"))
	write(t, filepath.Join(home, "AGENTS.md"), "The user's own instructions: be brief.\n")
	return home
}

// newModel starts a stand-in for proto with script, closed when the test ends.
func newModel(t *testing.T, proto standin.Protocol, script ...standin.Turn) *standin.Server {
	t.Helper()
	model, err := standin.New(proto, script...)
	require.NoError(t, err)
	require.NoError(t, model.Start())
	t.Cleanup(func() { require.NoError(t, model.Close()) })
	return model
}

// geminiRunEnv is the environment of a Gemini CLI run against model, without folder trust
// (memhost run grants it).
func geminiRunEnv(t *testing.T, b *bundle, model *standin.Server) []string {
	return b.env(t, "GEMINI_CLI_HOME="+b.home, "GOOGLE_GEMINI_BASE_URL="+model.URL(), "GEMINI_API_KEY="+apiKey())
}
