//go:build e2ecli

package e2ecli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/testkit/standin"
)

// TestCodex runs `codex exec --json` against the Responses stand-in, configured as a model
// provider in a scratch CODEX_HOME.
func TestCodex(t *testing.T) {
	t.Parallel()
	bin := cliPath(t, codex)

	// The banner as $CODEX_HOME/AGENTS.md; memhost as [mcp_servers.memhost] reading its token
	// from MEMHOST_TOKEN. Codex offers the MCP tools as the namespace mcp__memhost.
	t.Run("AGENTS.md and MCP round trip", func(t *testing.T) {
		b := setup(t, standin.Responses)
		home := codexHome(t, b)
		write(t, filepath.Join(home, "AGENTS.md"), b.banner())
		run := runCLI(t, b.work, codexEnv(t, b, home), bin, "exec", "--json", "--skip-git-repo-check", prompt)
		answer, mcpCall := codexEvents(t, run)
		require.Equal(t, doneText, answer, run.stdout)
		require.NotNil(t, mcpCall, run.stdout)
		require.Equal(t, "memhost", mcpCall["server"])
		require.Equal(t, "memory_store", mcpCall["tool"])
		require.Equal(t, "completed", mcpCall["status"])
		b.prove(t, run, "mcp__memhost__memory_store")
	})

	// The banner as developer_instructions given with -c (no file in CODEX_HOME).
	t.Run("developer_instructions", func(t *testing.T) {
		b := setup(t, standin.Responses, standin.Say(doneText))
		home := codexHome(t, b)
		run := runCLI(t, b.work, codexEnv(t, b, home), bin, "exec", "--json", "--skip-git-repo-check",
			"-c", fmt.Sprintf("developer_instructions=%q", b.banner()), prompt)
		answer, _ := codexEvents(t, run)
		require.Equal(t, doneText, answer, run.stdout)
		b.requireSentinel(t, run)
	})
}

// codexHome writes a scratch CODEX_HOME whose config.toml selects the stand-in and registers
// memhost, and returns it.
func codexHome(t *testing.T, b *bundle) string {
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

[mcp_servers.memhost]
url = %q
bearer_token_env_var = "MEMHOST_TOKEN"

# Without these Codex syncs its curated plugins from GitHub and ChatGPT at start.
[features]
plugins = false
apps = false

[analytics]
enabled = false
`, b.model.URL()+"/v1", b.host.mcpURL()))
	return home
}

func codexEnv(t *testing.T, b *bundle, home string) []string {
	return b.env(t, "CODEX_HOME="+home, "STANDIN_API_KEY="+apiKey())
}

// codexEvents reads codex exec's JSONL: the last agent message and the last MCP tool call.
func codexEvents(t *testing.T, run cliRun) (answer string, mcpCall map[string]any) {
	t.Helper()
	require.Zero(t, run.exitCode, "stdout:\n%s\nstderr:\n%s", run.stdout, run.stderr)
	sc := bufio.NewScanner(strings.NewReader(run.stdout))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev struct {
			Type string         `json:"type"`
			Item map[string]any `json:"item"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev), sc.Text())
		if ev.Type != "item.completed" {
			continue
		}
		switch ev.Item["type"] {
		case "agent_message":
			answer, _ = ev.Item["text"].(string)
		case "mcp_tool_call":
			mcpCall = ev.Item
		}
	}
	require.NoError(t, sc.Err())
	return answer, mcpCall
}
