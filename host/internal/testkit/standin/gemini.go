package standin

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// geminiWire speaks the Gemini API's generateContent and streamGenerateContent (?alt=sse) as
// Gemini CLI calls them under GOOGLE_GEMINI_BASE_URL, plus countTokens.
type geminiWire struct{}

var _ wire = geminiWire{}

// geminiMethod returns the method after the colon in /v1beta/models/MODEL:METHOD.
func geminiMethod(path string) (model, method string) {
	i := strings.LastIndex(path, "/models/")
	if i < 0 {
		return "", ""
	}
	model, method, _ = strings.Cut(path[i+len("/models/"):], ":")
	return model, method
}

func (geminiWire) modelCall(r *http.Request) bool {
	_, m := geminiMethod(r.URL.Path)
	return r.Method == http.MethodPost && (m == "generateContent" || m == "streamGenerateContent")
}

type geminiPart struct {
	Text             string `json:"text"`
	FunctionResponse *struct {
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
}

type geminiRequest struct {
	Contents []struct {
		Role  string       `json:"role"`
		Parts []geminiPart `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig *struct {
		ResponseMimeType   string `json:"responseMimeType"`
		ResponseSchema     any    `json:"responseSchema"`
		ResponseJSONSchema any    `json:"responseJsonSchema"`
	} `json:"generationConfig"`
}

func (geminiWire) parse(r *http.Request, body []byte) (parsed, error) {
	var req geminiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return parsed{}, fmt.Errorf("generateContent request: %w", err)
	}
	model, method := geminiMethod(r.URL.Path)
	p := parsed{stream: method == "streamGenerateContent", model: model}
	if gc := req.GenerationConfig; gc != nil && gc.ResponseMimeType == "application/json" {
		p.schema = gc.ResponseJSONSchema
		if p.schema == nil {
			p.schema = gc.ResponseSchema
		}
		if p.schema == nil {
			p.schema = map[string]any{"type": "object"}
		}
	}
	for _, t := range req.Tools {
		for _, d := range t.FunctionDeclarations {
			p.tools = append(p.tools, tool{full: d.Name, name: d.Name})
		}
	}
	for _, c := range req.Contents {
		for _, part := range c.Parts {
			if fr := part.FunctionResponse; fr != nil {
				text, isErr := geminiText(fr.Response)
				p.results = append(p.results, ToolResult{CallID: fr.ID, Name: fr.Name, Content: text, IsError: isErr})
			}
		}
	}
	return p, nil
}

// geminiText flattens a functionResponse: its "output" or "error" string if it has one, else
// the JSON. Gemini CLI reports a failed call as {"error": "..."}.
func geminiText(raw json.RawMessage) (text string, isError bool) {
	var v struct {
		Output string `json:"output"`
		Error  string `json:"error"`
	}
	if json.Unmarshal(raw, &v) == nil {
		switch {
		case v.Error != "":
			return v.Error, true
		case v.Output != "":
			return v.Output, false
		}
	}
	return string(raw), false
}

func (geminiWire) write(w http.ResponseWriter, p parsed, a answer) {
	part := map[string]any{"text": a.text}
	if p.schema != nil && a.call == nil {
		part["text"] = fillSchema(p.schema)
	}
	if a.call != nil {
		part = map[string]any{"functionCall": map[string]any{"id": a.call.ID, "name": a.tool.name, "args": json.RawMessage(a.call.Args)}}
	}
	resp := map[string]any{
		"candidates": []any{map[string]any{
			"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110},
		"modelVersion":  p.model,
		"responseId":    a.id,
	}
	if !p.stream {
		writeJSON(w, http.StatusOK, resp)
		return
	}
	startSSE(w).event("", resp)
}

func (geminiWire) serveOther(w http.ResponseWriter, r *http.Request, _ []byte) bool {
	_, m := geminiMethod(r.URL.Path)
	if r.Method == http.MethodPost && m == "countTokens" {
		writeJSON(w, http.StatusOK, map[string]any{"totalTokens": 100})
		return true
	}
	return false
}
