package transcript

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// claudeTurns reads a Claude Code transcript: the file is named for the session, every entry
// names its session, and the first entry carrying a cwd is the canary.
func claudeTurns(l *lines, s Session) ([]Turn, error) {
	if filepath.Base(s.Path) != s.ID+".jsonl" {
		return nil, fmt.Errorf("%w: the transcript file is not named for session %s", ErrNotIsolated, s.ID)
	}
	var turns []Turn
	cwdSeen := false
	// Claude Code writes one model call's blocks as several entries, each repeating the call's
	// usage: it is counted once per message id.
	counted := map[string]bool{}
	for line, ok := l.next(); ok; line, ok = l.next() {
		var e struct {
			Type      string `json:"type"`
			SessionID string `json:"sessionId"`
			Cwd       string `json:"cwd"`
			Timestamp string `json:"timestamp"`
			Sidechain bool   `json:"isSidechain"`
			Message   struct {
				ID      string          `json:"id"`
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
				Usage   *struct {
					Input         int64 `json:"input_tokens"`
					CacheCreation int64 `json:"cache_creation_input_tokens"`
					CacheRead     int64 `json:"cache_read_input_tokens"`
					Output        int64 `json:"output_tokens"`
				} `json:"usage"`
			} `json:"message"`
		}
		if json.Unmarshal(line, &e) != nil {
			continue
		}
		if e.SessionID != "" && e.SessionID != s.ID {
			return nil, fmt.Errorf("%w: the transcript holds entries of another session", ErrNotIsolated)
		}
		if e.Cwd != "" && !cwdSeen {
			if e.Cwd != s.Dir {
				return nil, fmt.Errorf("%w: the transcript's working directory is not the project's", ErrNotIsolated)
			}
			cwdSeen = true
		}
		if (e.Type != "user" && e.Type != "assistant") || e.Sidechain || e.SessionID == "" {
			continue
		}
		tr := Turn{Role: e.Type, Text: contentText(e.Message.Content), At: parseTime(e.Timestamp)}
		tr.Calls, tr.Results = claudeTools(e.Message.Content)
		if u := e.Message.Usage; u != nil && e.Type == "assistant" && !counted[e.Message.ID] {
			counted[e.Message.ID] = e.Message.ID != ""
			tr.Tokens = u.Input + u.CacheCreation + u.CacheRead + u.Output
		}
		if tr.Text != "" || len(tr.Calls) > 0 || len(tr.Results) > 0 || tr.Tokens > 0 {
			turns = append(turns, tr)
		}
	}
	if !cwdSeen {
		return nil, fmt.Errorf("%w: the transcript names no working directory", ErrNotIsolated)
	}
	return turns, nil
}

// claudeTools reads a message's tool_use and tool_result blocks.
func claudeTools(raw json.RawMessage) ([]ToolCall, []ToolResult) {
	var blocks []struct {
		Type      string          `json:"type"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		ToolUseID string          `json:"tool_use_id"`
		Content   json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return nil, nil
	}
	var calls []ToolCall
	var results []ToolResult
	for _, b := range blocks {
		switch b.Type {
		case "tool_use":
			calls = append(calls, ToolCall{ID: b.ID, Name: b.Name})
		case "tool_result":
			results = append(results, ToolResult{CallID: b.ToolUseID, Text: contentText(b.Content)})
		}
	}
	return calls, results
}

// contentText is a message's text: a string, or the text blocks of a block list (tool calls
// and results are left out: they are large and the model's prose says what they did).
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		switch b.Type {
		case "text", "input_text", "output_text", "":
			if strings.TrimSpace(b.Text) != "" {
				parts = append(parts, b.Text)
			}
		}
	}
	return strings.Join(parts, "\n")
}

// codexTurns reads a Codex rollout: its first line, session_meta, names the session and the
// working directory.
func codexTurns(l *lines, s Session) ([]Turn, error) {
	first, ok := l.next()
	var meta struct {
		Type    string `json:"type"`
		Payload struct {
			ID  string `json:"id"`
			Cwd string `json:"cwd"`
		} `json:"payload"`
	}
	if !ok || json.Unmarshal(first, &meta) != nil || meta.Type != "session_meta" {
		return nil, fmt.Errorf("%w: the rollout does not begin with its session_meta", ErrNotIsolated)
	}
	if meta.Payload.ID != s.ID {
		return nil, fmt.Errorf("%w: the rollout is another session's", ErrNotIsolated)
	}
	if meta.Payload.Cwd != s.Dir {
		return nil, fmt.Errorf("%w: the rollout's working directory is not the project's", ErrNotIsolated)
	}
	var turns []Turn
	for line, ok := l.next(); ok; line, ok = l.next() {
		var e struct {
			Timestamp string `json:"timestamp"`
			Type      string `json:"type"`
			Payload   struct {
				Type      string          `json:"type"`
				Role      string          `json:"role"`
				Cwd       string          `json:"cwd"`
				Content   json.RawMessage `json:"content"`
				Name      string          `json:"name"`
				Namespace string          `json:"namespace"`
				CallID    string          `json:"call_id"`
				Output    json.RawMessage `json:"output"`
				Usage     *struct {
					Total int64 `json:"total_tokens"`
				} `json:"usage"`
			} `json:"payload"`
		}
		if json.Unmarshal(line, &e) != nil {
			continue
		}
		if e.Type == "turn_context" && e.Payload.Cwd != "" && e.Payload.Cwd != s.Dir {
			return nil, fmt.Errorf("%w: the rollout moved to another working directory", ErrNotIsolated)
		}
		at := parseTime(e.Timestamp)
		switch {
		case e.Type == "token_usage_record":
			// One model call's cost, written right after the items of its response (before a
			// tool's output): it belongs to the turn just read.
			u := e.Payload.Usage
			switch last := len(turns) - 1; {
			case u == nil || u.Total <= 0:
			case last >= 0 && turns[last].Role == "assistant" && turns[last].Tokens == 0:
				turns[last].Tokens = u.Total
			default:
				turns = append(turns, Turn{Role: "assistant", At: at, Tokens: u.Total})
			}
			continue
		case e.Type != "response_item":
			continue
		case e.Payload.Type == "function_call":
			name := e.Payload.Name
			if e.Payload.Namespace != "" {
				name = e.Payload.Namespace + "__" + name
			}
			turns = append(turns, Turn{Role: "assistant", At: at, Calls: []ToolCall{{ID: e.Payload.CallID, Name: name}}})
			continue
		case e.Payload.Type == "function_call_output":
			turns = append(turns, Turn{Role: "user", At: at, Results: []ToolResult{{CallID: e.Payload.CallID, Text: contentText(e.Payload.Output)}}})
			continue
		case e.Payload.Type != "message" || (e.Payload.Role != "user" && e.Payload.Role != "assistant"):
			continue
		}
		text := contentText(e.Payload.Content)
		// Codex records the instructions it sends as user messages; they are memhost's own
		// banner and the user's AGENTS.md, not what the session did.
		if text == "" || e.Payload.Role == "user" && injected(text) {
			continue
		}
		turns = append(turns, Turn{Role: e.Payload.Role, Text: text, At: at})
	}
	return turns, nil
}

// injected says whether a user message is context a CLI sent on its own.
func injected(text string) bool {
	t := strings.TrimSpace(text)
	for _, p := range []string{"<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<session_context>"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// geminiMessage is one message of a Gemini CLI chat: a model message carries its tool calls
// with their results, and what its model call cost.
type geminiMessage struct {
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	Tokens    *struct {
		Total int64 `json:"total"`
	} `json:"tokens"`
	ToolCalls []struct {
		ID     string `json:"id"`
		Name   string `json:"name"`
		Result []struct {
			FunctionResponse struct {
				Response struct {
					Output string `json:"output"`
				} `json:"response"`
			} `json:"functionResponse"`
		} `json:"result"`
	} `json:"toolCalls"`
}

// geminiTurns reads a Gemini CLI chat: its first line names the session and the project's
// hash (sha256 of the working directory); messages follow as records or as $set updates of
// the whole list.
func geminiTurns(l *lines, s Session) ([]Turn, error) {
	first, ok := l.next()
	var head struct {
		SessionID   string `json:"sessionId"`
		ProjectHash string `json:"projectHash"`
	}
	if !ok || json.Unmarshal(first, &head) != nil || head.SessionID == "" {
		return nil, fmt.Errorf("%w: the chat does not begin with its session header", ErrNotIsolated)
	}
	if head.SessionID != s.ID {
		return nil, fmt.Errorf("%w: the chat is another session's", ErrNotIsolated)
	}
	sum := sha256.Sum256([]byte(s.Dir))
	if head.ProjectHash != hex.EncodeToString(sum[:]) {
		return nil, fmt.Errorf("%w: the chat's working directory is not the project's", ErrNotIsolated)
	}
	var (
		order []string
		byID  = map[string]geminiMessage{}
	)
	put := func(m geminiMessage) {
		if _, seen := byID[m.ID]; !seen {
			order = append(order, m.ID)
		}
		byID[m.ID] = m
	}
	for line, ok := l.next(); ok; line, ok = l.next() {
		var rec struct {
			Set *struct {
				Messages *[]geminiMessage `json:"messages"`
			} `json:"$set"`
			geminiMessage
		}
		if json.Unmarshal(line, &rec) != nil {
			continue
		}
		switch {
		case rec.Set != nil && rec.Set.Messages != nil:
			order, byID = nil, map[string]geminiMessage{}
			for _, m := range *rec.Set.Messages {
				put(m)
			}
		case rec.ID != "" && rec.Type != "":
			put(rec.geminiMessage)
		}
	}
	var turns []Turn
	for _, id := range order {
		m := byID[id]
		role := map[string]string{"user": "user", "gemini": "assistant"}[m.Type]
		text := contentText(m.Content)
		if role == "" || role == "user" && injected(text) {
			continue
		}
		tr := Turn{Role: role, Text: text, At: parseTime(m.Timestamp)}
		if role == "assistant" {
			if m.Tokens != nil {
				tr.Tokens = m.Tokens.Total
			}
			for _, c := range m.ToolCalls {
				call := ToolCall{ID: c.ID, Name: c.Name}
				for _, r := range c.Result {
					call.Result += r.FunctionResponse.Response.Output
				}
				tr.Calls = append(tr.Calls, call)
			}
		}
		if tr.Text != "" || len(tr.Calls) > 0 || tr.Tokens > 0 {
			turns = append(turns, tr)
		}
	}
	return turns, nil
}
