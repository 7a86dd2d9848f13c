package testplugins

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

var (
	workersOnce sync.Once
	workersDir  string
	workersErr  error
)

// Workers builds the real worker plugins (memhost-worker-openaicompat, memhost-worker-agentcli)
// once per test process into a folder of their own and returns it.
func Workers(tb testing.TB) string {
	tb.Helper()
	workersOnce.Do(func() {
		workersDir, workersErr = processDir("memhost-test-workers-")
		if workersErr != nil {
			return
		}
		for name, pkg := range map[string]string{
			"memhost-worker-openaicompat": "plugins/worker-openaicompat",
			"memhost-worker-agentcli":     "plugins/worker-agentcli",
		} {
			if workersErr = Build(filepath.Join(workersDir, name), pkg); workersErr != nil {
				return
			}
		}
	})
	if workersErr != nil {
		tb.Fatalf("testplugins: build worker plugins: %v", workersErr)
	}
	return workersDir
}

// OpenAI is an OpenAI-compatible runtime as the openaicompat worker meets it: GET
// {URL}/v1/models for health, POST {URL}/v1/chat/completions for a task. Model "good" answers
// Content with usage 120 prompt + 9 completion tokens; any other model does not exist (404, as
// ollama answers). With a Key set, a request without "Authorization: Bearer <Key>" is refused
// with 401.
type OpenAI struct {
	*httptest.Server
	Key, Content string
	// Chats counts chat completion requests.
	Chats atomic.Int32
}

// NewOpenAI starts the fake; it stops when the test ends.
func NewOpenAI(tb testing.TB, key, content string) *OpenAI {
	tb.Helper()
	f := &OpenAI{Key: key, Content: content}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"good","object":"model"}]}`))
	})
	mux.HandleFunc("POST /v1/chat/completions", f.chat)
	f.Server = httptest.NewServer(mux)
	tb.Cleanup(f.Close)
	return f
}

func (f *OpenAI) chat(w http.ResponseWriter, r *http.Request) {
	f.Chats.Add(1)
	w.Header().Set("Content-Type", "application/json")
	if f.Key != "" && r.Header.Get("Authorization") != "Bearer "+f.Key {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":{"message":"invalid api key"}}`))
		return
	}
	var req struct {
		Model string `json:"model"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":{"message":"bad json"}}`))
		return
	}
	if req.Model != "good" {
		w.WriteHeader(http.StatusNotFound)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": "model '" + req.Model + "' not found"}})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "model": "good",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": f.Content}}},
		"usage": map[string]any{"prompt_tokens": 120, "completion_tokens": 9, "total_tokens": 129},
	})
}
