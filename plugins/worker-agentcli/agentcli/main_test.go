package agentcli_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/memhost/memhost/plugins/worker-agentcli/agentcli"
)

// fakeBin holds the stand-in CLIs, one fakecli binary under each CLI's name.
var fakeBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "agentcli-fake-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fakeBin = dir
	code := buildFakes(dir)
	if code == 0 {
		code = m.Run()
	}
	_ = os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

func buildFakes(dir string) int {
	bin := filepath.Join(dir, "fakecli")
	build := exec.Command("go", "build", "-o", bin, "./testdata/fakecli")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build the fake CLI:", err)
		return 1
	}
	for _, cli := range []string{"claude", "gemini", "codex"} {
		if err := os.Link(bin, filepath.Join(dir, cli)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

// env is a test's world: the user's home with each CLI's login in it, the
// folder the fake records to, and the marker every process it starts
// carries.
type env struct {
	home, record, marker string
}

func newEnv(t *testing.T) env {
	t.Helper()
	e := env{home: t.TempDir(), record: t.TempDir(), marker: fmt.Sprintf("agentcli-test-%d-%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "-"))}
	for path, content := range map[string]string{
		".claude/.credentials.json": `{"claudeAiOauth":"user-claude-login"}`,
		".claude/settings.json":     `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"memhost hook session-start --cli claude"}]}]}}`,
		".gemini/oauth_creds.json":  `{"token":"user-gemini-login"}`,
		".gemini/settings.json": `{
  // comments are allowed
  "security": {"auth": {"selectedType": "oauth-personal"}},
  "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "memhost hook session-start --cli gemini"}]}]},
  "mcpServers": {"memhost": {"command": "memhost", "args": ["mcp"]}}
}`,
		".codex/auth.json": `{"OPENAI_API_KEY":"user-codex-login"}`,
		".codex/config.toml": `model = "gpt-fake"
model_provider = "corp"

[model_providers.corp]
name = "corp"
base_url = "http://127.0.0.1:1/v1"

[mcp_servers.memhost]
command = "memhost"
args = ["mcp"]
`,
	} {
		p := filepath.Join(e.home, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// environ is the plugin's environment in the test: what the host passes
// (PATH, HOME, its handshake cookie) and memhost's own variables, which
// must not reach the CLI.
func (e env) environ() []string {
	return []string{
		"PATH=" + fakeBin + ":/usr/bin:/bin",
		"HOME=" + e.home,
		"FAKECLI_RECORD=" + e.record,
		"FAKECLI_MARKER=" + e.marker,
		"MEMHOST_PLUGIN=cookie",
		"MEMHOST_TOKEN=mh_secret",
		"MEMHOST_CONFIG=/etc/memhost.toml",
	}
}

func (e env) worker(cli agentcli.CLI, timeout time.Duration) *agentcli.Worker {
	return agentcli.New(agentcli.Config{
		Name: "agentcli", CLI: cli, Timeout: timeout, MaxInputBytes: agentcli.DefaultMaxInputBytes, Env: e.environ(),
	})
}

// survivors lists the processes that carry the test's marker.
func (e env) survivors() []string {
	var found []string
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), "FAKECLI_MARKER="+e.marker+"\x00") {
			found = append(found, p)
		}
	}
	return found
}

var clis = []agentcli.CLI{agentcli.Claude, agentcli.Gemini, agentcli.Codex}
