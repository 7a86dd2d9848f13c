// Package fakeopenai is a stand-in OpenAI-compatible runtime for the
// plugin's tests: an httptest server that speaks the wire format of
// /v1/chat/completions and /v1/models (choices[].message.content, usage,
// finish_reason, error bodies {"error": {"message", "type", "param",
// "code"}}, Retry-After) and misbehaves in the ways real runtimes do, one Mode at a time.
package fakeopenai

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memhost/memhost/sdk/embedder/embeddertest/openaifake"
)

// Mode is how the fake runtime behaves.
type Mode string

// The modes.
const (
	// JSONSchema supports response_format json_schema and json_object.
	JSONSchema Mode = "json_schema"
	// NoJSONSchema answers 400 to json_schema and supports json_object, as
	// older runtimes do.
	NoJSONSchema Mode = "no_json_schema"
	// NoResponseFormat answers 400 to any response_format.
	NoResponseFormat Mode = "no_response_format"
	// Prose ignores response_format and wraps its JSON in prose.
	Prose Mode = "prose"
	// Fenced ignores response_format and puts its JSON in a ```json fence.
	Fenced Mode = "fenced"
	// RateLimitedOnce answers the first chat request 429 with Retry-After,
	// then behaves as JSONSchema.
	RateLimitedOnce Mode = "rate_limited_once"
	// ServerError answers every chat request 500, quoting the request's
	// Authorization header in its message.
	ServerError Mode = "server_error"
	// Slow never answers a chat request; it waits for the client to leave.
	Slow Mode = "slow"
	// Malformed answers 200 with a body that is not JSON.
	Malformed Mode = "malformed"
	// MaxCompletionTokensOnly refuses max_tokens, as reasoning models do.
	MaxCompletionTokensOnly Mode = "max_completion_tokens_only"
)

// Options configure Start.
type Options struct {
	Mode Mode
	// Key, when set, is the only bearer token accepted; any other gets a
	// 401 whose message quotes the token it got, as some runtimes do.
	Key string
	// RetryAfter is the Retry-After of RateLimitedOnce's 429, "1" when
	// empty.
	RetryAfter string
	// NoModels makes GET /v1/models 404, as runtimes without it answer.
	NoModels bool
}

// Request is what the fake received.
type Request struct {
	Method, Path  string
	Authorization string
	// ResponseFormat is response_format.type, "" when absent.
	ResponseFormat string
	// Schema is response_format.json_schema.schema.
	Schema json.RawMessage
	// Strict is response_format.json_schema.strict.
	Strict              bool
	MaxTokens           int
	MaxCompletionTokens int
	Messages            []Message
	Stream              bool
}

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Server is a running fake runtime.
type Server struct {
	// URL is the API root to configure a client with, ending in /v1.
	URL string

	opts Options
	done chan struct{}

	mu   sync.Mutex
	reqs []Request
	chat int
}

// Start serves a fake runtime until the test ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	if opts.RetryAfter == "" {
		opts.RetryAfter = "1"
	}
	s := &Server{opts: opts, done: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/chat/completions", s.chatCompletions)
	mux.HandleFunc("/v1/models", s.models)
	srv := httptest.NewServer(mux)
	s.URL = srv.URL + "/v1"
	t.Cleanup(func() {
		close(s.done) // releases Slow's handlers, which Close waits for
		srv.Close()
	})
	return s
}

// Requests returns what the fake received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

func (s *Server) record(r Request) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, r)
	if r.Path == "/v1/chat/completions" {
		s.chat++
	}
	return s.chat
}

func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	got := r.Header.Get("Authorization")
	if s.opts.Key == "" || got == "Bearer "+s.opts.Key {
		return true
	}
	openaifake.WriteError(w, http.StatusUnauthorized, fmt.Sprintf("Incorrect API key provided: %q", strings.TrimPrefix(got, "Bearer ")), "invalid_request_error", "", "invalid_api_key")
	return false
}

func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	s.record(Request{Method: r.Method, Path: r.URL.Path, Authorization: r.Header.Get("Authorization")})
	if !s.authorized(w, r) {
		return
	}
	if s.opts.NoModels {
		http.NotFound(w, r)
		return
	}
	openaifake.WriteJSON(w, http.StatusOK, map[string]any{
		"object": "list",
		"data":   []any{map[string]any{"id": "fake-model", "object": "model", "created": 0, "owned_by": "fake"}},
	})
}

// chatRequest is the part of a chat completion request the fake reads.
type chatRequest struct {
	Model               string    `json:"model"`
	Messages            []Message `json:"messages"`
	MaxTokens           int       `json:"max_tokens"`
	MaxCompletionTokens int       `json:"max_completion_tokens"`
	Stream              bool      `json:"stream"`
	ResponseFormat      *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
			Strict bool            `json:"strict"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

func (s *Server) chatCompletions(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		openaifake.WriteError(w, http.StatusMethodNotAllowed, "use POST", "invalid_request_error", "", "")
		return
	}
	var req chatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		openaifake.WriteError(w, http.StatusBadRequest, "request body is not JSON: "+err.Error(), "invalid_request_error", "", "")
		return
	}
	rec := Request{
		Method: r.Method, Path: r.URL.Path, Authorization: r.Header.Get("Authorization"),
		MaxTokens: req.MaxTokens, MaxCompletionTokens: req.MaxCompletionTokens,
		Messages: req.Messages, Stream: req.Stream,
	}
	if rf := req.ResponseFormat; rf != nil {
		rec.ResponseFormat = rf.Type
		if rf.JSONSchema != nil {
			rec.Schema, rec.Strict = rf.JSONSchema.Schema, rf.JSONSchema.Strict
		}
	}
	n := s.record(rec)
	if !s.authorized(w, r) {
		return
	}
	if req.Stream {
		// The plugin never streams; the tests check it never asks to.
		openaifake.WriteError(w, http.StatusBadRequest, "this stand-in does not stream", "invalid_request_error", "stream", "")
		return
	}
	switch mode := s.opts.Mode; {
	case mode == RateLimitedOnce && n == 1:
		w.Header().Set("Retry-After", s.opts.RetryAfter)
		openaifake.WriteError(w, http.StatusTooManyRequests, "Rate limit reached for requests", "requests", "", "rate_limit_exceeded")
		return
	case mode == ServerError:
		// Quoting the request's credentials back, as a debugging proxy
		// might, tests that the plugin scrubs what it repeats.
		openaifake.WriteError(w, http.StatusInternalServerError, "The server had an error while processing your request ("+rec.Authorization+").", "server_error", "", "")
		return
	case mode == Slow:
		select {
		case <-r.Context().Done():
		case <-s.done:
		}
		return
	case mode == Malformed:
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"{\"summ`))
		return
	case mode == NoJSONSchema && rec.ResponseFormat == "json_schema":
		openaifake.WriteError(w, http.StatusBadRequest, "'response_format.type' must be one of 'json_object', 'text'", "invalid_request_error", "response_format", "")
		return
	case mode == NoResponseFormat && rec.ResponseFormat != "":
		openaifake.WriteError(w, http.StatusBadRequest, "Unrecognized request argument supplied: response_format", "invalid_request_error", "", "")
		return
	case mode == MaxCompletionTokensOnly && req.MaxTokens > 0:
		openaifake.WriteError(w, http.StatusBadRequest, "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "invalid_request_error", "max_tokens", "unsupported_parameter")
		return
	}
	s.answer(w, req, rec)
}

// answer replies with the first sentence of the last user message: as
// {"summary": ...} when JSON was asked for (by response_format or in the
// system message), wrapped as the mode says, capped at the request's
// output limit.
func (s *Server) answer(w http.ResponseWriter, req chatRequest, rec Request) {
	var system, input string
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			system = m.Content
		case "user":
			input = m.Content
		}
	}
	content, _, _ := strings.Cut(strings.TrimSpace(input), ". ")
	if rec.ResponseFormat != "" || strings.Contains(system, "JSON") {
		b, _ := json.Marshal(map[string]string{"summary": content})
		content = string(b)
		switch s.opts.Mode {
		case Prose:
			content = "From the notes [1], here is what you asked for: " + content + " Let me know if you need anything else."
		case Fenced:
			content = "Here you go:\n\n```json\n" + content + "\n```\n"
		}
	}
	prompt := 0
	for _, m := range req.Messages {
		prompt += Tokens(m.Content)
	}
	completion, finish := Tokens(content), "stop"
	limit := req.MaxTokens
	if req.MaxCompletionTokens > 0 {
		limit = req.MaxCompletionTokens
	}
	if limit > 0 && completion > limit {
		content, completion, finish = content[:min(len(content), limit*4)], limit, "length"
	}
	model := req.Model
	openaifake.WriteJSON(w, http.StatusOK, map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "created": time.Now().Unix(), "model": model,
		"choices": []any{map[string]any{
			"index": 0, "message": map[string]any{"role": "assistant", "content": content}, "finish_reason": finish,
		}},
		"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
	})
}

// Tokens is the fake's token count: one per four bytes, at least one.
func Tokens(s string) int { return len(s)/4 + 1 }
