package standin

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
)

// Request is one request a CLI sent to the stand-in, as received.
type Request struct {
	// Method and Path (with its query) as sent.
	Method, Path string
	// Header is a copy of the request's headers.
	Header http.Header
	// Body is the raw request body.
	Body []byte
	// Tools are the full names of the tools the request offers, namespaced as the CLI
	// namespaces them (Codex: "mcp__memhost__memory_store" for tool memory_store in namespace
	// mcp__memhost).
	Tools []string
	// ToolResults are the tool results the request carries (its whole history, in order).
	ToolResults []ToolResult
	// Turn is the index of the scripted turn this request consumed, or -1 (auxiliary requests,
	// deferred-tool loads, endpoints that are not a model turn).
	Turn int
	// Auxiliary is true for a model call that offered no tools (titles, classifiers, probes).
	Auxiliary bool
}

// ToolResult is a tool's result as the CLI sent it back to the model.
type ToolResult struct {
	// CallID is the id of the call this result answers (Gemini has none: its name).
	CallID string
	// Name is the tool's name when the protocol carries it (Gemini) or the stand-in issued it.
	Name string
	// Content is the result as text (text blocks joined; JSON as sent when not text).
	Content string
	// IsError is true when the CLI marked the result as an error.
	IsError bool
}

// Text returns every string in the JSON body joined by newlines, unescaped, so a search does
// not depend on how a CLI escapes JSON; a body that is not JSON is returned as is.
func (r Request) Text() string {
	var v any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		return string(r.Body)
	}
	var b strings.Builder
	collectStrings(v, &b)
	return b.String()
}

// Contains reports whether s occurs in the body, raw or unescaped.
func (r Request) Contains(s string) bool {
	return bytes.Contains(r.Body, []byte(s)) || strings.Contains(r.Text(), s)
}

// FindTool returns the full name of the offered tool called name, or else ending in a
// separator and name: FindTool("memory_store") is "mcp__memhost__memory_store" in Claude Code's
// and Codex's requests and "mcp_memhost_memory_store" in Gemini CLI's.
func (r Request) FindTool(name string) (string, bool) {
	return matchTool(r.Tools, name)
}

func collectStrings(v any, b *strings.Builder) {
	switch x := v.(type) {
	case string:
		b.WriteString(x)
		b.WriteByte('\n')
	case []any:
		for _, e := range x {
			collectStrings(e, b)
		}
	case map[string]any:
		for _, e := range x {
			collectStrings(e, b)
		}
	}
}

// matchTool finds name among tools exactly, or else as the one suffix that follows a
// separator ('_', '.', '/', ':' or '-').
func matchTool(tools []string, name string) (string, bool) {
	for _, t := range tools {
		if t == name {
			return t, true
		}
	}
	for _, t := range tools {
		if len(t) > len(name) && strings.HasSuffix(t, name) && strings.ContainsRune("_./:-", rune(t[len(t)-len(name)-1])) {
			return t, true
		}
	}
	return "", false
}
