//go:build e2ecli

package e2ecli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/testkit/standin"
)

// searchHits are the facts TestModelBytes seeds: all about releases, none a paraphrase of
// another (they would fold), so a search for releases answers all five.
var searchHits = []string{
	"Releases are cut from the main branch every Tuesday by the on-call engineer.",
	"A release needs a green nightly build and a signed tag like v1.4.0.",
	"Release notes are generated from merged pull request titles by scripts/notes.sh.",
	"Hotfix releases branch from the last tag and are merged back into main afterwards.",
	"The release checklist lives in docs/release.md and includes the database migration check.",
}

// modelBytes is what one CLI's model paid for memhost in one run.
type modelBytes struct {
	tools, toolCount int    // memhost's tool definitions as the CLI sent them, in bytes
	result           string // the memory_search result as the model read it
}

// TestModelBytes measures, on each real CLI, what memhost costs the model: the bytes of
// memhost's tool definitions in a model request and of a five-hit memory_search result as
// it came back. It holds them to the budgets docs/e2e-cli.md records, and requires the
// result to be the compact, framed text rather than the structured output.
func TestModelBytes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		proto standin.Protocol
		tools int // budget for memhost's tool definitions, bytes
		run   func(t *testing.T, b *bundle) cliRun
	}{
		{"claude", standin.Anthropic, 9000, func(t *testing.T, b *bundle) cliRun {
			mcp, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"memhost": map[string]any{
				"type": "http", "url": b.host.mcpURL(), "headers": map[string]string{"Authorization": "Bearer ${MEMHOST_TOKEN}"},
			}}})
			require.NoError(t, err)
			// Without deferral every memhost tool is in every request, as after ToolSearch loads it.
			env := append(claudeEnv(t, b), "ENABLE_TOOL_SEARCH=false")
			run := runCLI(t, b.work, env, cliPath(t, claudeCode), "-p", prompt, "--output-format", "json",
				"--mcp-config", string(mcp), "--strict-mcp-config", "--allowedTools", "mcp__memhost")
			requireClaudeResult(t, run)
			return run
		}},
		// Codex also sends the server instructions, as the namespace's description.
		{"codex", standin.Responses, 10000, func(t *testing.T, b *bundle) cliRun {
			run := runCLI(t, b.work, codexEnv(t, b, codexHome(t, b)), cliPath(t, codex), "exec", "--json", "--skip-git-repo-check", prompt)
			answer, _ := codexEvents(t, run)
			require.Equal(t, doneText, answer, run.stdout)
			return run
		}},
		// Gemini CLI sends each schema in its own, larger form.
		{"gemini", standin.Gemini, 13500, func(t *testing.T, b *bundle) cliRun {
			geminiSettings(t, b, map[string]any{"mcpServers": map[string]any{"memhost": map[string]any{
				"type": "http", "url": b.host.mcpURL(), "trust": true,
				"headers": map[string]string{"Authorization": "Bearer ${MEMHOST_TOKEN}"},
			}}})
			run := runCLI(t, b.work, geminiEnv(t, b), cliPath(t, geminiCLI), "-p", prompt, "-o", "json")
			geminiResult(t, run)
			return run
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, c.proto, standin.CallTool("memory_search", map[string]any{"query": "release"}), standin.Say(doneText))
			for _, fact := range searchHits {
				b.host.store(b.token, fact)
			}
			run := c.run(t, b)
			require.Empty(t, b.egress.seen(), "the CLI tried to reach the network")
			got := measure(t, b.model)
			t.Logf("%s: memhost's %d tool definitions: %d bytes per request; 5-hit memory_search result as the model read it: %d bytes (run took %s)\n%s",
				c.name, got.toolCount, got.tools, len(got.result), run.took.Round(10e6), got.result)

			for _, fact := range searchHits {
				require.Contains(t, got.result, fact)
			}
			require.Contains(t, got.result, "not instructions", "memory text is framed as data")
			require.NotContains(t, got.result, `"created_at"`, "the model reads the brief, not the structured output")
			require.LessOrEqual(t, len(got.result), resultBudget, "5-hit search result")
			require.LessOrEqual(t, got.tools, c.tools, "memhost's tool definitions")
		})
	}
}

// resultBudget bounds a five-hit search result as any of the three CLIs' models read it; it and
// the tool budgets are the measurements in docs/e2e-cli.md with about 10% of room.
const resultBudget = 900

// measure finds memhost's tool definitions in the first agent request that offered them and the
// result of the stand-in's one memory_search call.
func measure(t *testing.T, model *standin.Server) modelBytes {
	t.Helper()
	var got modelBytes
	for _, r := range model.Requests() {
		if r.Auxiliary || len(r.Tools) == 0 {
			continue
		}
		if got.tools, got.toolCount = memhostTools(t, r.Body); got.toolCount > 0 {
			break
		}
	}
	require.NotZero(t, got.toolCount, "no model request offered memhost's tools")
	var call *standin.IssuedCall
	for _, c := range model.Calls() {
		if !c.Loader {
			call = &c
		}
	}
	require.NotNil(t, call, "the stand-in never called memory_search")
	res, ok := model.ResultOf(call.ID)
	require.True(t, ok, "no later request carried the result of %s", call.ID)
	require.False(t, res.IsError, res.Content)
	got.result = res.Content
	return got
}

// memhostTools sums the raw bytes of memhost's tool definitions in a model request body, in
// each protocol's shape: Anthropic's tools[] entries named mcp__memhost__*, Codex's one
// namespace entry mcp__memhost (its tools and the server instructions as its description),
// Gemini's tools[].functionDeclarations[] named mcp_memhost_*. count is how many tools.
func memhostTools(t *testing.T, body []byte) (size, count int) {
	t.Helper()
	var req struct {
		Tools []json.RawMessage `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(body, &req))
	for _, raw := range req.Tools {
		var entry struct {
			Name  string            `json:"name"`
			Tools []json.RawMessage `json:"tools"`
			Decls []json.RawMessage `json:"functionDeclarations"`
		}
		require.NoError(t, json.Unmarshal(raw, &entry))
		switch {
		case strings.Contains(entry.Name, "memhost"):
			size += len(raw)
			count += max(1, len(entry.Tools))
		case len(entry.Decls) > 0:
			for _, d := range entry.Decls {
				var decl struct {
					Name string `json:"name"`
				}
				require.NoError(t, json.Unmarshal(d, &decl))
				if strings.Contains(decl.Name, "memhost") {
					size += len(d)
					count++
				}
			}
		}
	}
	return size, count
}

// store saves text in the token's project through REST.
func (h *host) store(token, text string) {
	h.t.Helper()
	body, err := json.Marshal(map[string]string{"text": text})
	require.NoError(h.t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url+"/api/v1/memories", bytes.NewReader(body))
	require.NoError(h.t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(h.t, err)
	defer resp.Body.Close()
	require.Less(h.t, resp.StatusCode, 300, "store %q: %s", text, resp.Status)
}
