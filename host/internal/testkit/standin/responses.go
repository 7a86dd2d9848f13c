package standin

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// responsesWire speaks the OpenAI Responses API (POST .../responses, streaming) as Codex uses it
// through a [model_providers] entry with wire_api = "responses".
type responsesWire struct{}

var _ wire = responsesWire{}

func (responsesWire) modelCall(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/responses")
}

type responsesTool struct {
	Type  string          `json:"type"`
	Name  string          `json:"name"`
	Tools []responsesTool `json:"tools"`
}

type responsesRequest struct {
	Model  string          `json:"model"`
	Stream bool            `json:"stream"`
	Tools  []responsesTool `json:"tools"`
	Input  json.RawMessage `json:"input"`
	Text   *struct {
		Format *struct {
			Type   string `json:"type"`
			Schema any    `json:"schema"`
		} `json:"format"`
	} `json:"text"`
}

type responsesItem struct {
	Type   string          `json:"type"`
	CallID string          `json:"call_id"`
	Output json.RawMessage `json:"output"`
}

func (responsesWire) parse(_ *http.Request, body []byte) (parsed, error) {
	var req responsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return parsed{}, fmt.Errorf("responses request: %w", err)
	}
	p := parsed{stream: req.Stream, model: req.Model}
	if req.Text != nil && req.Text.Format != nil && req.Text.Format.Type == "json_schema" {
		p.schema = req.Text.Format.Schema
	}
	for _, t := range req.Tools {
		if len(t.Tools) > 0 {
			// A namespace: its tools are called by their own name plus the namespace.
			for _, inner := range t.Tools {
				p.tools = append(p.tools, tool{full: t.Name + "__" + inner.Name, name: inner.Name, namespace: t.Name})
			}
			continue
		}
		if t.Name != "" {
			p.tools = append(p.tools, tool{full: t.Name, name: t.Name})
		}
	}
	var items []responsesItem
	if json.Unmarshal(req.Input, &items) == nil {
		for _, it := range items {
			if it.Type == "function_call_output" || it.Type == "custom_tool_call_output" {
				p.results = append(p.results, ToolResult{CallID: it.CallID, Content: responsesText(it.Output)})
			}
		}
	}
	return p, nil
}

// responsesText flattens a function_call_output: a string, or content items whose text is joined.
func responsesText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return string(raw)
	}
	var out []string
	for _, p := range parts {
		out = append(out, p.Text)
	}
	return strings.Join(out, "\n")
}

func (responsesWire) write(w http.ResponseWriter, p parsed, a answer) {
	text := a.text
	if p.schema != nil && a.call == nil {
		text = fillSchema(p.schema)
	}
	item := map[string]any{"type": "message", "id": "msg_" + a.id, "status": "completed", "role": "assistant",
		"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}
	if a.call != nil {
		item = map[string]any{"type": "function_call", "id": "fc_" + a.id, "call_id": a.call.ID, "name": a.tool.name,
			"arguments": string(a.call.Args), "status": "completed"}
		if a.tool.namespace != "" {
			item["namespace"] = a.tool.namespace
		}
	}
	usage := map[string]any{"input_tokens": 100, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": 10, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 110}
	resp := map[string]any{"id": a.id, "object": "response", "created_at": time.Now().Unix(), "model": p.model,
		"status": "completed", "output": []any{item}, "usage": usage}
	if !p.stream {
		writeJSON(w, http.StatusOK, resp)
		return
	}
	s := startSSE(w)
	seq := 0
	ev := func(name string, fields map[string]any) {
		fields["type"] = name
		fields["sequence_number"] = seq
		seq++
		s.event(name, fields)
	}
	pending := map[string]any{}
	for k, v := range resp {
		pending[k] = v
	}
	pending["status"], pending["output"] = "in_progress", []any{}
	ev("response.created", map[string]any{"response": pending})
	if a.call != nil {
		added := map[string]any{}
		for k, v := range item {
			added[k] = v
		}
		added["status"], added["arguments"] = "in_progress", ""
		ev("response.output_item.added", map[string]any{"output_index": 0, "item": added})
		ev("response.function_call_arguments.delta", map[string]any{"item_id": item["id"], "output_index": 0, "delta": string(a.call.Args)})
		ev("response.function_call_arguments.done", map[string]any{"item_id": item["id"], "output_index": 0, "arguments": string(a.call.Args)})
	} else {
		ev("response.output_item.added", map[string]any{"output_index": 0, "item": map[string]any{
			"type": "message", "id": item["id"], "status": "in_progress", "role": "assistant", "content": []any{}}})
		ev("response.content_part.added", map[string]any{"item_id": item["id"], "output_index": 0, "content_index": 0,
			"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
		ev("response.output_text.delta", map[string]any{"item_id": item["id"], "output_index": 0, "content_index": 0, "delta": text})
		ev("response.output_text.done", map[string]any{"item_id": item["id"], "output_index": 0, "content_index": 0, "text": text})
		ev("response.content_part.done", map[string]any{"item_id": item["id"], "output_index": 0, "content_index": 0,
			"part": map[string]any{"type": "output_text", "text": text, "annotations": []any{}}})
	}
	ev("response.output_item.done", map[string]any{"output_index": 0, "item": item})
	ev("response.completed", map[string]any{"response": resp})
}

func (responsesWire) serveOther(w http.ResponseWriter, r *http.Request, _ []byte) bool {
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") {
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{}, "models": []any{}})
		return true
	}
	return false
}
