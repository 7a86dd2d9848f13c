package standin

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNewRejectsAnUnknownProtocol(t *testing.T) {
	t.Parallel()
	_, err := New("grpc")
	require.EqualError(t, err, `standin: protocol "grpc": want "anthropic", "responses" or "gemini"`)
}

func TestUnknownPathsAreRecordedAnd404(t *testing.T) {
	t.Parallel()
	s := setup(t, Responses)
	status, _ := post(t, s, "/v1/chat/completions", map[string]any{})
	require.Equal(t, http.StatusNotFound, status)
	require.Equal(t, []string{"POST /v1/chat/completions"}, s.Unhandled())
	require.Len(t, s.Requests(), 1)
}

func TestMalformedModelCallsAnswer400(t *testing.T) {
	t.Parallel()
	s := setup(t, Anthropic)
	status, raw := post(t, s, "/v1/messages", []int{1})
	require.Equal(t, http.StatusBadRequest, status)
	require.Contains(t, string(raw), "invalid_request_error")
}

func TestAnExhaustedScriptAnswersDone(t *testing.T) {
	t.Parallel()
	s := setup(t, Gemini)
	events := postSSE(t, s, geminiStream, geminiCLIRequest())
	require.Equal(t, DoneText, dig(events[0].data, "candidates", 0, "content", "parts", 0, "text"))
}

func TestMatchToolWantsASeparatorBeforeTheSuffix(t *testing.T) {
	t.Parallel()
	tools := []string{"xmemory_store", "mcp_memhost_memory_store", "memory_search"}
	for _, tc := range []struct{ name, want string }{
		{"memory_store", "mcp_memhost_memory_store"},
		{"memory_search", "memory_search"},
		{"store", "xmemory_store"}, // the first tool in the request's order
		{"emory_store", ""},
		{"memory_get", ""},
	} {
		got, ok := matchTool(tools, tc.name)
		require.Equal(t, tc.want, got, tc.name)
		require.Equal(t, tc.want != "", ok, tc.name)
	}
}

func TestFindDeferredPrefersTheNamespacedName(t *testing.T) {
	t.Parallel()
	text := "use memory_store wisely\nmcp__memhost__memory_store\nmcp__memhost__memory_store_v2\n"
	require.Equal(t, "mcp__memhost__memory_store", findDeferred(text, "memory_store"))
	require.Empty(t, findDeferred("nothing here", "memory_store"))
}

func TestRequestTextUnescapesJSON(t *testing.T) {
	t.Parallel()
	r := Request{Body: []byte(`{"a":["x\u003cSENTINEL\u003ey"],"b":{"c":"line\nbreak"}}`)}
	require.True(t, r.Contains("x<SENTINEL>y"))
	require.True(t, r.Contains("line\nbreak"))
	require.False(t, r.Contains("absent"))
	require.Equal(t, "not json", Request{Body: []byte("not json")}.Text())
}

func TestFillSchema(t *testing.T) {
	t.Parallel()
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"next_speaker": map[string]any{"type": "string", "enum": []any{"user", "model"}},
		"list":         map[string]any{"type": "array"},
		"flag":         map[string]any{"type": "boolean"},
		"n":            map[string]any{"type": []any{"number", "null"}},
	}}
	require.JSONEq(t, `{"next_speaker":"user","list":[],"flag":false,"n":0}`, fillSchema(schema))
	require.Equal(t, "null", fillSchema("not a schema"))
}
