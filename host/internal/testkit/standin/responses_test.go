package standin

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// codexRequest is a Responses request shaped as Codex sends it: plain function tools and a
// namespace holding an MCP server's tools.
func codexRequest(input ...any) map[string]any {
	if len(input) == 0 {
		input = []any{map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "hi"}}}}
	}
	return map[string]any{"model": "standin-model", "stream": true, "input": input, "tools": []any{
		map[string]any{"type": "function", "name": "exec_command"},
		map[string]any{"type": "namespace", "name": "mcp__memhost", "tools": []any{
			map[string]any{"type": "function", "name": "memory_search"},
			map[string]any{"type": "function", "name": "memory_store"},
		}},
		map[string]any{"type": "web_search"},
	}}
}

func TestResponsesCallsANamespacedToolAndExposesItsResult(t *testing.T) {
	t.Parallel()
	s := setup(t, Responses, CallTool("memory_store", map[string]any{"text": "we use pnpm"}), Say("Stored."))

	events := postSSE(t, s, "/v1/responses", codexRequest())
	require.Equal(t, []string{"response.created", "response.output_item.added", "response.function_call_arguments.delta",
		"response.function_call_arguments.done", "response.output_item.done", "response.completed"}, names(events))
	item := dig(events[4].data, "item")
	require.Equal(t, "function_call", dig(item, "type"))
	require.Equal(t, "memory_store", dig(item, "name"))
	require.Equal(t, "mcp__memhost", dig(item, "namespace"))
	require.JSONEq(t, `{"text":"we use pnpm"}`, dig(item, "arguments").(string))
	callID, _ := dig(item, "call_id").(string)
	require.NotEmpty(t, callID)
	require.Equal(t, "completed", dig(events[5].data, "response", "status"))
	require.EqualValues(t, 110, dig(events[5].data, "response", "usage", "total_tokens"))

	events = postSSE(t, s, "/v1/responses", codexRequest(
		map[string]any{"type": "function_call", "call_id": callID, "name": "memory_store", "namespace": "mcp__memhost", "arguments": "{}"},
		map[string]any{"type": "function_call_output", "call_id": callID, "output": []any{
			map[string]any{"type": "input_text", "text": "Output:"}, map[string]any{"type": "input_text", "text": `{"id":7}`}}},
	))
	require.Equal(t, []string{"response.created", "response.output_item.added", "response.content_part.added", "response.output_text.delta",
		"response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed"}, names(events))
	require.Equal(t, "Stored.", dig(events[3].data, "delta"))
	for i, e := range events {
		require.EqualValues(t, i, e.data["sequence_number"])
	}

	res, ok := s.ResultOf(callID)
	require.True(t, ok)
	require.Equal(t, ToolResult{CallID: callID, Name: "mcp__memhost__memory_store", Content: "Output:\n{\"id\":7}"}, res)
	require.Equal(t, []string{"exec_command", "mcp__memhost__memory_search", "mcp__memhost__memory_store"}, s.Requests()[0].Tools)
}

func TestResponsesAnswersAStringOutputAndJSONFormat(t *testing.T) {
	t.Parallel()
	s := setup(t, Responses, CallTool("exec_command", map[string]any{"cmd": "ls"}))

	events := postSSE(t, s, "/v1/responses", codexRequest())
	item := dig(events[4].data, "item")
	require.Equal(t, "exec_command", dig(item, "name"))
	require.Nil(t, dig(item, "namespace"))
	callID := dig(item, "call_id").(string)

	req := codexRequest(map[string]any{"type": "function_call_output", "call_id": callID, "output": "a.txt"})
	req["tools"] = []any{}
	req["text"] = map[string]any{"format": map[string]any{"type": "json_schema", "schema": map[string]any{"type": "object",
		"properties": map[string]any{"kind": map[string]any{"type": "string", "enum": []any{"a", "b"}}}}}}
	events = postSSE(t, s, "/v1/responses", req)
	require.JSONEq(t, `{"kind":"a"}`, dig(events[3].data, "delta").(string))

	res, ok := s.ResultOf(callID)
	require.True(t, ok)
	require.Equal(t, "a.txt", res.Content)
	require.True(t, s.Requests()[1].Auxiliary)
}
