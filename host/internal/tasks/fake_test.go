package tasks_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// fakeOpenAI is an OpenAI-compatible runtime as the openaicompat worker meets it: GET
// {base}/models for health, POST {base}/chat/completions for a task. Model "good" answers
// with content, model "gone" does not exist (404, as ollama answers for an unknown model). A
// request without "Authorization: Bearer <key>" is refused with 401.
type fakeOpenAI struct {
	*httptest.Server
	key     string
	content string
	chats   atomic.Int32
}

func newFakeOpenAI(t *testing.T, key, content string) *fakeOpenAI {
	t.Helper()
	f := &fakeOpenAI{key: key, content: content}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"good","object":"model"}]}`))
	})
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		f.chats.Add(1)
		if r.Header.Get("Authorization") != "Bearer "+f.key {
			http.Error(w, `{"error":{"message":"invalid api key"}}`, http.StatusUnauthorized)
			return
		}
		var req struct {
			Model string `json:"model"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
			return
		}
		if req.Model != "good" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":{"message":"model '` + req.Model + `' not found"}}`))
			return
		}
		resp := map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "model": "good",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": f.content}}},
			"usage": map[string]any{"prompt_tokens": 120, "completion_tokens": 9, "total_tokens": 129},
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
	})
	f.Server = httptest.NewServer(mux)
	t.Cleanup(f.Close)
	return f
}

// fakeClaude writes an executable `claude` into a new folder and returns the folder. Like
// `claude -p --output-format=json` it reads its stdin to the end and prints one result object
// with the structured output; it also saves its environment in $dir/env.
func fakeClaude(t *testing.T, structured string) string {
	t.Helper()
	dir := t.TempDir()
	script := `#!/bin/sh
cat > /dev/null
env > "` + dir + `/env"
cat <<'JSON'
{"type":"result","subtype":"success","is_error":false,"result":"","structured_output":` + structured + `,"usage":{"input_tokens":40,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":12},"modelUsage":{"claude-fake-1":{}}}
JSON
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "claude"), []byte(script), 0o755))
	return dir
}
