package standin

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// anthropicWire speaks the Anthropic Messages API (POST /v1/messages, streaming or not) and
// the endpoints Claude Code calls beside it.
type anthropicWire struct{}

var _ wire = anthropicWire{}

func (anthropicWire) modelCall(r *http.Request) bool {
	return r.Method == http.MethodPost && r.URL.Path == "/v1/messages"
}

type anthropicRequest struct {
	Model  string `json:"model"`
	Stream bool   `json:"stream"`
	Tools  []struct {
		Name string `json:"name"`
	} `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	OutputFormat *struct {
		Schema any `json:"schema"`
	} `json:"output_format"`
}

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

func (anthropicWire) parse(_ *http.Request, body []byte) (parsed, error) {
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return parsed{}, fmt.Errorf("messages request: %w", err)
	}
	p := parsed{stream: req.Stream, model: req.Model}
	if req.OutputFormat != nil {
		p.schema = req.OutputFormat.Schema
	}
	for _, t := range req.Tools {
		if t.Name != "" {
			p.tools = append(p.tools, tool{full: t.Name, name: t.Name})
		}
	}
	for _, m := range req.Messages {
		var blocks []anthropicBlock
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue // a plain string: no tool result
		}
		for _, b := range blocks {
			if b.Type == "tool_result" {
				p.results = append(p.results, ToolResult{CallID: b.ToolUseID, Content: anthropicText(b.Content), IsError: b.IsError})
			}
		}
	}
	return p, nil
}

// anthropicText flattens a tool_result's content: a string, or blocks whose text is joined.
func anthropicText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []json.RawMessage
	if json.Unmarshal(raw, &blocks) != nil {
		return string(raw)
	}
	var parts []string
	for _, rb := range blocks {
		var b anthropicBlock
		if json.Unmarshal(rb, &b) == nil && b.Type == "text" {
			parts = append(parts, b.Text)
		} else {
			parts = append(parts, string(rb)) // tool_reference, image: kept as sent
		}
	}
	return strings.Join(parts, "\n")
}

func (anthropicWire) write(w http.ResponseWriter, p parsed, a answer) {
	text := a.text
	if p.schema != nil && a.call == nil {
		text = fillSchema(p.schema)
	}
	block := map[string]any{"type": "text", "text": text}
	stop := "end_turn"
	if a.call != nil {
		block = map[string]any{"type": "tool_use", "id": a.call.ID, "name": a.tool.name, "input": json.RawMessage(a.call.Args)}
		stop = "tool_use"
	}
	usage := map[string]any{"input_tokens": 100, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !p.stream {
		writeJSON(w, http.StatusOK, map[string]any{
			"id": a.id, "type": "message", "role": "assistant", "model": p.model,
			"content": []any{block}, "stop_reason": stop, "stop_sequence": nil, "usage": usage,
		})
		return
	}
	s := startSSE(w)
	s.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": a.id, "type": "message", "role": "assistant", "model": p.model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage,
	}})
	if a.call != nil {
		s.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": a.call.ID, "name": a.tool.name, "input": map[string]any{}}})
		s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(a.call.Args)}})
	} else {
		s.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": text}})
	}
	s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	s.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	s.event("message_stop", map[string]any{"type": "message_stop"})
}

func (anthropicWire) serveOther(w http.ResponseWriter, r *http.Request, _ []byte) bool {
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		writeJSON(w, http.StatusOK, map[string]any{"input_tokens": 100})
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		writeJSON(w, http.StatusOK, map[string]any{"data": []any{}, "has_more": false, "first_id": nil, "last_id": nil})
	case r.Method == http.MethodHead && (r.URL.Path == "/" || r.URL.Path == "/api/hello"):
		w.WriteHeader(http.StatusOK)
	default:
		return false
	}
	return true
}
