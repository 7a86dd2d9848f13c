package bench

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
)

// chatFake stands in for an OpenAI-compatible chat model behind memhost-worker-openaicompat
// during the maintenance round: it answers each task from its input alone, deterministically
// and at once, so the round measures memhost's work around the model, not a model. Its
// answers are shaped by the task's schema: a merge keeps the longest of the statements (the
// one most likely to keep every specific), a conflict scan finds nothing.
type chatFake struct {
	srv   *httptest.Server
	calls atomic.Int64
}

func newChatFake() *chatFake {
	f := &chatFake{}
	f.srv = httptest.NewServer(http.HandlerFunc(f.complete))
	return f
}

func (f *chatFake) url() string { return f.srv.URL + "/v1" }
func (f *chatFake) close()      { f.srv.Close() }

type chatRequest struct {
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	ResponseFormat *struct {
		JSONSchema *struct {
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

func (f *chatFake) complete(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r)
		return
	}
	var req chatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	f.calls.Add(1)
	var prompt strings.Builder
	input := ""
	for _, m := range req.Messages {
		prompt.WriteString(m.Content)
		if m.Role == "user" {
			input = m.Content
		}
	}
	schema := ""
	if rf := req.ResponseFormat; rf != nil && rf.JSONSchema != nil {
		schema = string(rf.JSONSchema.Schema)
	}
	if schema == "" {
		// Without a schema in the request the worker asked for plain JSON: the schema is in
		// the instructions.
		schema = prompt.String()
	}
	answer := `{}`
	switch {
	case strings.Contains(schema, `"same"`):
		longest := ""
		for _, line := range strings.Split(input, "\n") {
			if _, text, ok := strings.Cut(line, ". "); ok && len(text) > len(longest) {
				longest = text
			}
		}
		b, _ := json.Marshal(map[string]any{"same": longest != "", "text": longest})
		answer = string(b)
	case strings.Contains(schema, `"pairs"`):
		answer = `{"pairs":[]}`
	}
	resp := map[string]any{
		"id": "chatcmpl-bench", "object": "chat.completion", "model": "bench-fake",
		"choices": []map[string]any{{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": answer}}},
		// About four bytes a token, as tokenizers of English prose give.
		"usage": map[string]int{"prompt_tokens": prompt.Len() / 4, "completion_tokens": len(answer) / 4, "total_tokens": prompt.Len()/4 + len(answer)/4},
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}
