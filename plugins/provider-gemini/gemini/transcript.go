package gemini

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/memhost/memhost/sdk/provider"
)

var _ provider.TranscriptReader = (*Provider)(nil)

// Transcript reads a Gemini CLI chat, <home>/.gemini/tmp/<project>/chats/session-<time>-<id
// prefix>.jsonl: its first line must name the session and the project's hash (sha256 of the
// working directory); messages follow as records or as {"$set": {"messages": [...]}} updates
// of the whole list. A model message carries its tool calls with their results, and what its
// model call cost.
func (*Provider) Transcript(ctx context.Context, r provider.TranscriptRequest) (provider.Transcript, error) {
	return provider.ReadJSONL(ctx, r.Path, func(l *provider.JSONL) provider.Transcript {
		first, ok := l.Next()
		var head struct {
			SessionID   string `json:"sessionId"`
			ProjectHash string `json:"projectHash"`
		}
		if !ok || json.Unmarshal(first, &head) != nil || head.SessionID == "" {
			return provider.Refused("the chat does not begin with its session header")
		}
		if head.SessionID != r.SessionID {
			return provider.Refused("the chat is another session's")
		}
		sum := sha256.Sum256([]byte(r.Dir))
		if head.ProjectHash != hex.EncodeToString(sum[:]) {
			return provider.Refused("the chat's working directory is not the project's")
		}
		var (
			order []string
			byID  = map[string]message{}
		)
		put := func(m message) {
			if _, seen := byID[m.ID]; !seen {
				order = append(order, m.ID)
			}
			byID[m.ID] = m
		}
		for line, ok := l.Next(); ok; line, ok = l.Next() {
			var rec struct {
				Set *struct {
					Messages *[]message `json:"messages"`
				} `json:"$set"`
				message
			}
			if json.Unmarshal(line, &rec) != nil {
				continue
			}
			switch {
			case rec.Set != nil && rec.Set.Messages != nil:
				order, byID = nil, map[string]message{}
				for _, m := range *rec.Set.Messages {
					put(m)
				}
			case rec.ID != "" && rec.Type != "":
				put(rec.message)
			}
		}
		var t provider.Transcript
		for _, id := range order {
			if tr, ok := byID[id].turn(); ok {
				t.Turns = append(t.Turns, tr)
			}
		}
		return t
	})
}

// message is one message of a Gemini CLI chat.
type message struct {
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

// turn is m as a turn of the session; false for what is none (an info message, the context
// Gemini CLI sends as the user's, an empty one).
func (m message) turn() (provider.Turn, bool) {
	role := map[string]string{"user": "user", "gemini": "assistant"}[m.Type]
	text := provider.ContentText(m.Content)
	if role == "" || role == "user" && injected(text) {
		return provider.Turn{}, false
	}
	tr := provider.Turn{Role: role, Text: text, At: provider.ParseTime(m.Timestamp)}
	if role == "assistant" {
		if m.Tokens != nil {
			tr.Tokens = m.Tokens.Total
		}
		for _, c := range m.ToolCalls {
			call := provider.ToolCall{ID: c.ID, Name: c.Name}
			for _, r := range c.Result {
				call.Result += r.FunctionResponse.Response.Output
			}
			tr.Calls = append(tr.Calls, call)
		}
	}
	return tr, tr.Text != "" || len(tr.Calls) > 0 || tr.Tokens > 0
}

// injected says whether a user message is context Gemini CLI sent on its own (the session's
// environment), not the user's words.
func injected(text string) bool {
	return strings.HasPrefix(strings.TrimSpace(text), "<session_context>")
}
