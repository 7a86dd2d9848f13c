//go:build e2ecli

package e2ecli

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/testkit/standin"
)

// TestGeminiCLI runs `gemini -p -o json` against the Gemini stand-in in a relocated
// GEMINI_CLI_HOME and a workspace trusted through GEMINI_CLI_TRUST_WORKSPACE (headless Gemini
// CLI refuses an untrusted folder).
func TestGeminiCLI(t *testing.T) {
	t.Parallel()
	bin := cliPath(t, geminiCLI)

	// The banner as ~/.gemini/GEMINI.md; memhost in settings.json mcpServers marked trusted
	// (headless Gemini CLI offers an untrusted server's tools only when flags allow them).
	t.Run("GEMINI.md and MCP round trip", func(t *testing.T) {
		b := setup(t, standin.Gemini)
		geminiSettings(t, b, map[string]any{"mcpServers": map[string]any{"memhost": map[string]any{
			"type": "http", "url": b.host.mcpURL(), "trust": true,
			// Gemini CLI expands environment variables in settings values.
			"headers": map[string]string{"Authorization": "Bearer ${MEMHOST_TOKEN}"},
		}}})
		write(t, filepath.Join(b.home, ".gemini", "GEMINI.md"), b.banner())
		run := runCLI(t, b.work, geminiEnv(t, b), bin, "-p", prompt, "-o", "json")
		out := geminiResult(t, run)
		require.Equal(t, 1, out.Stats.Tools.ByName["mcp_memhost_memory_store"].Success, run.stdout)
		b.prove(t, run, "mcp_memhost_memory_store")
	})

	// The banner from a SessionStart hook in settings.json (timeout in milliseconds).
	t.Run("SessionStart hook", func(t *testing.T) {
		b := setup(t, standin.Gemini, standin.Say(doneText))
		geminiSettings(t, b, map[string]any{"hooks": map[string]any{"SessionStart": []any{
			map[string]any{"hooks": []any{map[string]any{"type": "command", "command": b.hookScript(t), "timeout": 10000}}},
		}}})
		run := runCLI(t, b.work, geminiEnv(t, b), bin, "-p", prompt, "-o", "json")
		geminiResult(t, run)
		b.requireSentinel(t, run)
	})
}

// geminiSettings writes ~/.gemini/settings.json: API-key auth (which honours
// GOOGLE_GEMINI_BASE_URL), no usage statistics (they are sent to Google), and extra.
func geminiSettings(t *testing.T, b *bundle, extra map[string]any) {
	t.Helper()
	settings := map[string]any{
		"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"privacy":  map[string]any{"usageStatisticsEnabled": false},
	}
	for k, v := range extra {
		settings[k] = v
	}
	body, err := json.MarshalIndent(settings, "", "  ")
	require.NoError(t, err)
	write(t, filepath.Join(b.home, ".gemini", "settings.json"), string(body))
}

func geminiEnv(t *testing.T, b *bundle) []string {
	return b.env(t,
		"GEMINI_CLI_HOME="+b.home,
		"GOOGLE_GEMINI_BASE_URL="+b.model.URL(),
		"GEMINI_API_KEY="+apiKey(),
		"GEMINI_CLI_TRUST_WORKSPACE=true",
	)
}

type geminiOutput struct {
	Response string `json:"response"`
	Stats    struct {
		Tools struct {
			ByName map[string]struct {
				Success int `json:"success"`
			} `json:"byName"`
		} `json:"tools"`
	} `json:"stats"`
}

func geminiResult(t *testing.T, run cliRun) geminiOutput {
	t.Helper()
	require.Zero(t, run.exitCode, "stdout:\n%s\nstderr:\n%s", run.stdout, run.stderr)
	var out geminiOutput
	require.NoError(t, json.Unmarshal([]byte(run.stdout), &out), run.stdout)
	require.Equal(t, doneText, out.Response)
	return out
}
