package standin

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

func anthropicRequestWith(tools []string, messages ...map[string]any) map[string]any {
	list := make([]any, len(tools))
	for i, n := range tools {
		list[i] = map[string]any{"name": n, "input_schema": map[string]any{"type": "object"}}
	}
	if len(messages) == 0 {
		messages = []map[string]any{{"role": "user", "content": "hi"}}
	}
	return map[string]any{"model": "claude-test", "stream": true, "max_tokens": 100, "tools": list,
		"system": []any{map[string]any{"type": "text", "text": "banner SENTINEL-A1"}}, "messages": messages}
}

func TestAnthropicStreamsAToolCallAndExposesItsResult(t *testing.T) {
	t.Parallel()
	s := setup(t, Anthropic, CallTool("memory_store", map[string]any{"text": "we use pnpm"}), Say("Stored."))
	tools := []string{"Bash", "mcp__memhost__memory_store"}

	events := postSSE(t, s, "/v1/messages?beta=true", anthropicRequestWith(tools))
	require.Equal(t, []string{"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}, names(events))
	block := dig(events[1].data, "content_block")
	require.Equal(t, "tool_use", dig(block, "type"))
	require.Equal(t, "mcp__memhost__memory_store", dig(block, "name"))
	callID, _ := dig(block, "id").(string)
	require.NotEmpty(t, callID)
	require.JSONEq(t, `{"text":"we use pnpm"}`, dig(events[2].data, "delta", "partial_json").(string))
	require.Equal(t, "tool_use", dig(events[4].data, "delta", "stop_reason"))

	events = postSSE(t, s, "/v1/messages", anthropicRequestWith(tools,
		map[string]any{"role": "user", "content": "hi"},
		map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": callID, "name": "mcp__memhost__memory_store", "input": map[string]any{}}}},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": callID,
			"content": []any{map[string]any{"type": "text", "text": `{"id":7}`}}}}},
	))
	require.Equal(t, "Stored.", dig(events[2].data, "delta", "text"))
	require.Equal(t, "end_turn", dig(events[4].data, "delta", "stop_reason"))

	res, ok := s.ResultOf(callID)
	require.True(t, ok)
	require.Equal(t, ToolResult{CallID: callID, Name: "mcp__memhost__memory_store", Content: `{"id":7}`}, res)
	reqs := s.Requests()
	require.Len(t, reqs, 2)
	require.True(t, reqs[0].Contains("SENTINEL-A1"))
	require.Equal(t, []int{0, 1}, []int{reqs[0].Turn, reqs[1].Turn})
	name, ok := reqs[0].FindTool("memory_store")
	require.True(t, ok)
	require.Equal(t, "mcp__memhost__memory_store", name)
	require.Zero(t, s.TurnsLeft())
}

func TestAnthropicLoadsADeferredToolThroughToolSearchOncePerTurn(t *testing.T) {
	t.Parallel()
	s := setup(t, Anthropic, CallTool("memory_search", map[string]any{"query": "pnpm"}), CallTool("memory_store", map[string]any{"text": "x"}))
	deferred := map[string]any{"role": "user", "content": "deferred tools:\nWebFetch\nmcp__memhost__memory_search\nmcp__memhost__memory_store\n"}

	events := postSSE(t, s, "/v1/messages", anthropicRequestWith([]string{"Bash", "ToolSearch"}, deferred))
	block := dig(events[1].data, "content_block")
	require.Equal(t, "ToolSearch", dig(block, "name"))
	require.JSONEq(t, `{"query":"select:mcp__memhost__memory_search","max_results":5}`, dig(events[2].data, "delta", "partial_json").(string))
	require.Equal(t, 2, s.TurnsLeft(), "a load does not consume the turn")

	events = postSSE(t, s, "/v1/messages", anthropicRequestWith([]string{"Bash", "ToolSearch", "mcp__memhost__memory_search"}, deferred))
	require.Equal(t, "mcp__memhost__memory_search", dig(events[1].data, "content_block", "name"))

	// The next turn's tool is loaded once; if the CLI still does not offer it, the turn says so.
	events = postSSE(t, s, "/v1/messages", anthropicRequestWith([]string{"ToolSearch"}, deferred))
	require.Equal(t, "ToolSearch", dig(events[1].data, "content_block", "name"))
	events = postSSE(t, s, "/v1/messages", anthropicRequestWith([]string{"ToolSearch"}, deferred))
	require.Contains(t, dig(events[2].data, "delta", "text"), `calls "memory_store", which this request does not offer`)

	calls := s.Calls()
	require.Len(t, calls, 3)
	require.Equal(t, []bool{true, false, true}, []bool{calls[0].Loader, calls[1].Loader, calls[2].Loader})
}

func TestAnthropicAnswersWithoutStreamingAndItsSideEndpoints(t *testing.T) {
	t.Parallel()
	s := setup(t, Anthropic, Say("Hello."))

	req := anthropicRequestWith([]string{"Bash"})
	req["stream"] = false
	status, raw := post(t, s, "/v1/messages", req)
	require.Equal(t, http.StatusOK, status)
	var msg map[string]any
	require.NoError(t, json.Unmarshal(raw, &msg))
	require.Equal(t, "message", msg["type"])
	require.Equal(t, "Hello.", dig(msg, "content", 0, "text"))
	require.Equal(t, "end_turn", msg["stop_reason"])

	status, raw = post(t, s, "/v1/messages/count_tokens", anthropicRequestWith(nil))
	require.Equal(t, http.StatusOK, status)
	require.JSONEq(t, `{"input_tokens":100}`, string(raw))

	r, err := http.NewRequest(http.MethodHead, s.URL()+"/api/hello", nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(r)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Empty(t, s.Unhandled())
}

func TestAnthropicAuxiliaryCallsKeepTheScript(t *testing.T) {
	t.Parallel()
	s := setup(t, Anthropic, Say("Scripted."))

	events := postSSE(t, s, "/v1/messages", anthropicRequestWith(nil))
	require.Equal(t, AuxiliaryText, dig(events[2].data, "delta", "text"))

	req := anthropicRequestWith(nil)
	req["output_format"] = map[string]any{"type": "json_schema", "schema": map[string]any{"type": "object",
		"properties": map[string]any{"title": map[string]any{"type": "string"}}}}
	events = postSSE(t, s, "/v1/messages", req)
	require.JSONEq(t, `{"title":"standin"}`, dig(events[2].data, "delta", "text").(string))

	require.Equal(t, 1, s.TurnsLeft())
	reqs := s.Requests()
	require.True(t, reqs[0].Auxiliary)
	require.Equal(t, -1, reqs[0].Turn)
}

// A rule answers each task a headless worker CLI asks, in any order, beside the script.
func TestRulesAnswerByTheRequestsText(t *testing.T) {
	t.Parallel()
	s := setup(t, Anthropic, Say("scripted"))
	s.When("Summarise the session", CallTool("StructuredOutput", map[string]any{"summary": "Moved to pnpm."}))
	s.When("Pick the facts", Say(`{"facts":[]}`))
	tools := []string{"StructuredOutput"}
	ask := func(prompt string, more ...map[string]any) []event {
		return postSSE(t, s, "/v1/messages", anthropicRequestWith(tools, append([]map[string]any{{"role": "user", "content": prompt}}, more...)...))
	}

	events := ask("Pick the facts of this transcript")
	require.Equal(t, `{"facts":[]}`, dig(events[2].data, "delta", "text"))
	events = ask("Summarise the session: we moved to pnpm")
	block := dig(events[1].data, "content_block")
	require.Equal(t, "StructuredOutput", dig(block, "name"))
	require.JSONEq(t, `{"summary":"Moved to pnpm."}`, dig(events[2].data, "delta", "partial_json").(string))
	callID := dig(block, "id").(string)
	events = ask("Summarise the session: we moved to pnpm",
		map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": callID, "name": "StructuredOutput", "input": map[string]any{}}}},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": callID, "content": "ok"}}})
	require.Equal(t, DoneText, dig(events[2].data, "delta", "text"), "the result of a rule's call ends the task")
	require.Equal(t, 1, s.TurnsLeft(), "rules leave the script where it is")
	events = ask("anything else")
	require.Equal(t, "scripted", dig(events[2].data, "delta", "text"))
}
