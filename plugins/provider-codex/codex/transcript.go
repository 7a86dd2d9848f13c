package codex

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/memhost/memhost/sdk/provider"
)

var _ provider.TranscriptReader = (*Provider)(nil)

// Transcript reads a Codex rollout: its session_meta must name the session and the project's
// working directory, and no turn_context may move it to another; then its response items are
// the session's messages, tool calls and tool outputs, and its token_usage_record entries what
// each model call cost.
func (*Provider) Transcript(ctx context.Context, r provider.TranscriptRequest) (provider.Transcript, error) {
	return provider.ReadJSONL(ctx, r.Path, func(l *provider.JSONL) provider.Transcript {
		meta, ok := firstMeta(l)
		switch {
		case !ok:
			return provider.Refused("the rollout does not begin with its session_meta")
		case meta.ID != r.SessionID:
			return provider.Refused("the rollout is another session's")
		case meta.Cwd != r.Dir:
			return provider.Refused("the rollout's working directory is not the project's")
		}
		var turns []provider.Turn
		for line, ok := l.Next(); ok; line, ok = l.Next() {
			var e rolloutLine
			if json.Unmarshal(line, &e) != nil {
				continue
			}
			if e.Type == "turn_context" && e.Payload.Cwd != "" && e.Payload.Cwd != r.Dir {
				return provider.Refused("the rollout moved to another working directory")
			}
			turns = e.appendTo(turns)
		}
		return provider.Transcript{Turns: turns}
	})
}

// rolloutLine is one line of a rollout after its session_meta.
type rolloutLine struct {
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

// appendTo adds what e says of the session to turns.
func (e rolloutLine) appendTo(turns []provider.Turn) []provider.Turn {
	at := provider.ParseTime(e.Timestamp)
	p := e.Payload
	switch {
	case e.Type == "token_usage_record":
		// One model call's cost, written right after the items of its response (before a
		// tool's output): it belongs to the turn just read.
		switch last := len(turns) - 1; {
		case p.Usage == nil || p.Usage.Total <= 0:
		case last >= 0 && turns[last].Role == "assistant" && turns[last].Tokens == 0:
			turns[last].Tokens = p.Usage.Total
		default:
			turns = append(turns, provider.Turn{Role: "assistant", At: at, Tokens: p.Usage.Total})
		}
		return turns
	case e.Type != "response_item":
		return turns
	case p.Type == "function_call":
		name := p.Name
		if p.Namespace != "" {
			name = p.Namespace + "__" + name
		}
		return append(turns, provider.Turn{Role: "assistant", At: at, Calls: []provider.ToolCall{{ID: p.CallID, Name: name}}})
	case p.Type == "function_call_output":
		return append(turns, provider.Turn{Role: "user", At: at, Results: []provider.ToolResult{{CallID: p.CallID, Text: provider.ContentText(p.Output)}}})
	case p.Type != "message" || (p.Role != "user" && p.Role != "assistant"):
		return turns
	}
	text := provider.ContentText(p.Content)
	// Codex records the instructions it sends as user messages; they are memhost's own
	// banner and the user's AGENTS.md, not what the session did.
	if text == "" || p.Role == "user" && injected(text) {
		return turns
	}
	return append(turns, provider.Turn{Role: p.Role, Text: text, At: at})
}

// injected says whether a user message is context Codex sent on its own: the environment,
// the user's instructions, AGENTS.md.
func injected(text string) bool {
	t := strings.TrimSpace(text)
	for _, p := range []string{"<environment_context>", "<user_instructions>", "# AGENTS.md instructions"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}
