package claude

import (
	"context"
	"encoding/json"
	"path/filepath"

	"github.com/memhost/memhost/sdk/provider"
)

var _ provider.TranscriptReader = (*Provider)(nil)

// Transcript reads a Claude Code transcript, <config dir>/projects/<encoded cwd>/<session
// id>.jsonl: the file must be named for the session, every entry naming a session must name
// it, and the first entry carrying a working directory (the canary) must carry the project's.
// User and assistant entries outside sidechains are the session's turns; an assistant
// message's usage is what its model call cost.
func (*Provider) Transcript(ctx context.Context, r provider.TranscriptRequest) (provider.Transcript, error) {
	if filepath.Base(r.Path) != r.SessionID+".jsonl" {
		return provider.Refused("the transcript file is not named for session " + r.SessionID), nil
	}
	return provider.ReadJSONL(ctx, r.Path, func(l *provider.JSONL) provider.Transcript {
		var turns []provider.Turn
		cwdSeen := false
		// Claude Code writes one model call's blocks as several entries, each repeating the call's
		// usage: it is counted once per message id.
		counted := map[string]bool{}
		for line, ok := l.Next(); ok; line, ok = l.Next() {
			var e entry
			if json.Unmarshal(line, &e) != nil {
				continue
			}
			if e.SessionID != "" && e.SessionID != r.SessionID {
				return provider.Refused("the transcript holds entries of another session")
			}
			if e.Cwd != "" && !cwdSeen {
				if e.Cwd != r.Dir {
					return provider.Refused("the transcript's working directory is not the project's")
				}
				cwdSeen = true
			}
			if (e.Type != "user" && e.Type != "assistant") || e.Sidechain || e.SessionID == "" {
				continue
			}
			tr := provider.Turn{Role: e.Type, Text: provider.ContentText(e.Message.Content), At: provider.ParseTime(e.Timestamp)}
			tr.Calls, tr.Results = tools(e.Message.Content)
			if u := e.Message.Usage; u != nil && e.Type == "assistant" && !counted[e.Message.ID] {
				counted[e.Message.ID] = e.Message.ID != ""
				tr.Tokens = u.Input + u.CacheCreation + u.CacheRead + u.Output
			}
			if tr.Text != "" || len(tr.Calls) > 0 || len(tr.Results) > 0 || tr.Tokens > 0 {
				turns = append(turns, tr)
			}
		}
		if !cwdSeen {
			return provider.Refused("the transcript names no working directory")
		}
		return provider.Transcript{Turns: turns}
	})
}

// entry is one line of a Claude Code transcript.
type entry struct {
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

// tools reads a message's tool_use and tool_result blocks.
func tools(raw json.RawMessage) ([]provider.ToolCall, []provider.ToolResult) {
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
	var calls []provider.ToolCall
	var results []provider.ToolResult
	for _, b := range blocks {
		switch b.Type {
		case "tool_use":
			calls = append(calls, provider.ToolCall{ID: b.ID, Name: b.Name})
		case "tool_result":
			results = append(results, provider.ToolResult{CallID: b.ToolUseID, Text: provider.ContentText(b.Content)})
		}
	}
	return calls, results
}
