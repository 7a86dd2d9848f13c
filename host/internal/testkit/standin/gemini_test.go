package standin

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

func geminiCLIRequest(contents ...any) map[string]any {
	if len(contents) == 0 {
		contents = []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "hi"}}}}
	}
	return map[string]any{
		"contents":          contents,
		"systemInstruction": map[string]any{"parts": []any{map[string]any{"text": "GEMINI.md: SENTINEL-G1"}}},
		"tools": []any{map[string]any{"functionDeclarations": []any{
			map[string]any{"name": "read_file"}, map[string]any{"name": "mcp_memhost_memory_store"},
		}}},
	}
}

const geminiStream = "/v1beta/models/gemini-test:streamGenerateContent?alt=sse"

func TestGeminiStreamsAFunctionCallAndExposesItsResult(t *testing.T) {
	t.Parallel()
	s := setup(t, Gemini, CallTool("memory_store", map[string]any{"text": "we use pnpm"}), Say("Stored."))

	events := postSSE(t, s, geminiStream, geminiCLIRequest())
	require.Len(t, events, 1)
	call := dig(events[0].data, "candidates", 0, "content", "parts", 0, "functionCall")
	require.Equal(t, "mcp_memhost_memory_store", dig(call, "name"))
	require.Equal(t, map[string]any{"text": "we use pnpm"}, dig(call, "args"))
	callID := dig(call, "id").(string)
	require.Equal(t, "STOP", dig(events[0].data, "candidates", 0, "finishReason"))

	events = postSSE(t, s, geminiStream, geminiCLIRequest(
		map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": call}}},
		map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{
			"id": callID, "name": "mcp_memhost_memory_store", "response": map[string]any{"output": `{"id":7}`}}}}},
	))
	require.Equal(t, "Stored.", dig(events[0].data, "candidates", 0, "content", "parts", 0, "text"))

	res, ok := s.ResultOf(callID)
	require.True(t, ok)
	require.Equal(t, ToolResult{CallID: callID, Name: "mcp_memhost_memory_store", Content: `{"id":7}`}, res)
	require.True(t, s.Requests()[0].Contains("SENTINEL-G1"))
}

func TestGeminiMatchesAnIDlessResultByNameAndSeesErrors(t *testing.T) {
	t.Parallel()
	s := setup(t, Gemini, CallTool("memory_store", map[string]any{"text": "x"}))
	events := postSSE(t, s, geminiStream, geminiCLIRequest())
	callID := dig(events[0].data, "candidates", 0, "content", "parts", 0, "functionCall", "id").(string)

	postSSE(t, s, geminiStream, geminiCLIRequest(map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{
		"name": "mcp_memhost_memory_store", "response": map[string]any{"error": "params must NOT have additional properties"}}}}}))
	res, ok := s.ResultOf(callID)
	require.True(t, ok)
	require.True(t, res.IsError)
	require.Equal(t, "params must NOT have additional properties", res.Content)
}

func TestGeminiFillsStructuredSideCallsAndCountsTokens(t *testing.T) {
	t.Parallel()
	s := setup(t, Gemini, Say("Scripted."))

	// Gemini CLI's router asks a small model for a JSON score of at least 1.
	router := map[string]any{
		"contents": []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "route"}}}},
		"generationConfig": map[string]any{"responseMimeType": "application/json", "responseJsonSchema": map[string]any{
			"type": "OBJECT", "properties": map[string]any{
				"complexity_reasoning": map[string]any{"type": "STRING"},
				"complexity_score":     map[string]any{"type": "INTEGER", "minimum": 1},
			}}},
	}
	status, raw := post(t, s, "/v1beta/models/gemini-lite:generateContent", router)
	require.Equal(t, http.StatusOK, status)
	var resp map[string]any
	require.NoError(t, json.Unmarshal(raw, &resp))
	require.JSONEq(t, `{"complexity_reasoning":"standin","complexity_score":1}`, dig(resp, "candidates", 0, "content", "parts", 0, "text").(string))
	require.Equal(t, 1, s.TurnsLeft())

	status, raw = post(t, s, "/v1beta/models/gemini-test:countTokens", geminiCLIRequest())
	require.Equal(t, http.StatusOK, status)
	require.JSONEq(t, `{"totalTokens":100}`, string(raw))
}
