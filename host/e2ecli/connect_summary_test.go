//go:build e2ecli

package e2ecli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/testkit/standin"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
)

// summaryLLM is the host's worker model: an OpenAI-compatible endpoint (what the openaicompat
// worker plugin speaks) answering the summarize job's tasks by their instructions: the summary,
// then the durable facts.
func summaryLLM(t *testing.T, summary, fact string) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"good","object":"model"}]}`))
	})
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		var answer any = map[string]any{"update": false}
		switch system := req.Messages[0].Content; {
		case strings.Contains(system, "summarise one coding-agent session"):
			answer = map[string]any{"summary": summary}
		case strings.Contains(system, "durable facts"):
			answer = map[string]any{"facts": []string{fact}}
		}
		content, _ := json.Marshal(answer)
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "model": "good",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": string(content)}}},
			"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
		})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestSessionSummaryEndToEnd: a real Claude Code session, connected by memhost connect, ends;
// its SessionEnd hook journals it with its transcript; the host's summarize job writes the
// worker's summary into that journal entry and stores the fact it extracted; a real Codex
// session under memhost run then finds the extracted fact with memory_search.
func TestSessionSummaryEndToEnd(t *testing.T) {
	t.Parallel()
	id := randomHex(6)
	summary := "Summary " + id + ": the session agreed to cut releases from the release branch."
	fact := "e2ecli " + id + ": releases are cut from the release branch, never from main."
	llm := summaryLLM(t, summary, fact)
	h := startHostWith(t, hostOptions{dirs: []string{testplugins.Workers(t)},
		extra: journalEverySession + fmt.Sprintf("[workers.local]\nplugin = \"openaicompat\"\nbase_url = %q\nmodel = \"good\"\nlocality = \"local\"\n", llm.URL+"/v1")})
	b := setupOn(t, h, standin.Anthropic, standin.Say(doneText))
	w := newSpawnWorld(t, b)
	w.seed(t)
	env := claudeEnv(t, b)
	w.connectCLI(t, claudeCode, env, false)
	requireClaudeResult(t, runCLI(t, b.work, env, cliPath(t, claudeCode), "-p", prompt, "--output-format", "json"))

	var text string
	require.Eventually(t, func() bool {
		entries := w.journal(t, b.project)
		if len(entries) != 1 {
			return false
		}
		text, _ = entries[0]["text"].(string)
		return strings.Contains(text, "\nSummary: ")
	}, 90*time.Second, 250*time.Millisecond, "the journal entry is summarised: %q\n%s", text, h.logs)
	require.True(t, strings.HasPrefix(text, "claude session ended after "), text)
	require.True(t, strings.HasSuffix(text, "\nSummary: "+summary), text)

	b.model = newModel(t, standin.Responses, standin.CallTool("memory_search", map[string]any{"query": "releases cut release branch main"}), standin.Say(doneText))
	home := codexUserHome(t, b, b.model.URL())
	answer, _ := codexEvents(t, w.run(t, codex, codexEnv(t, b, home), "exec", "--json", "--skip-git-repo-check", "Where are releases cut?"))
	require.Equal(t, doneText, answer)
	requireSearchRoundTrip(t, b.model, "mcp__memhost__memory_search", fact)
	require.Empty(t, b.egress.seen())
}
