package claude_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/plugins/provider-claude/claude"
	"github.com/memhost/memhost/sdk/provider"
	"github.com/memhost/memhost/sdk/provider/providertest"
)

// writeTranscript writes a transcript as Claude Code does: a summary line, then one entry per
// turn naming the session and its cwd, an assistant's content as blocks with a tool call.
func writeTranscript(home, id, dir string, turns []provider.Turn) (string, error) {
	recs := []any{map[string]any{"type": "summary", "summary": "earlier"}}
	for _, t := range turns {
		content := any(t.Text)
		if t.Role == "assistant" {
			content = []map[string]any{{"type": "text", "text": t.Text}, {"type": "tool_use", "id": "tu1", "name": "Bash", "input": map[string]any{"command": "ls"}}}
		}
		recs = append(recs, map[string]any{"type": t.Role, "sessionId": id, "cwd": dir, "timestamp": t.At.Format(time.RFC3339Nano),
			"message": map[string]any{"role": t.Role, "content": content}})
	}
	return providertest.WriteJSONL(filepath.Join(home, ".claude", "projects", "p", id+".jsonl"), recs...)
}

const theSession = "5f0c1d2e-0000-4000-8000-000000000001"

var start = time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)

// TestTranscriptConformance: the kit reads transcripts of Claude Code's layout in process and
// over the wire: the session's turns, another session's file and another directory's refused.
func TestTranscriptConformance(t *testing.T) {
	t.Parallel()
	providertest.Exercise(t, claude.New(), providertest.WithTranscript(writeTranscript))
	providertest.Exercise(t, providertest.Serve(t, claude.New()), providertest.WithTranscript(writeTranscript))
}

// TestTranscriptReadsToolsAndCost: tool_use and tool_result blocks come back as calls and
// results; a model call's usage, repeated on each entry of its blocks, counts once (input,
// cache creation, cache reads and output); sidechain entries are not the session's.
func TestTranscriptReadsToolsAndCost(t *testing.T) {
	t.Parallel()
	dir := "/work/p"
	at := start.Add(time.Minute)
	usage := map[string]any{"input_tokens": 900, "cache_creation_input_tokens": 10, "cache_read_input_tokens": 50, "output_tokens": 40}
	assistant := func(content any) map[string]any {
		return map[string]any{"type": "assistant", "sessionId": theSession, "cwd": dir, "timestamp": at.Format(time.RFC3339Nano),
			"message": map[string]any{"id": "m1", "role": "assistant", "usage": usage, "content": content}}
	}
	path, err := providertest.WriteJSONL(filepath.Join(t.TempDir(), theSession+".jsonl"),
		assistant([]map[string]any{{"type": "text", "text": "Let me look."}}),
		assistant([]map[string]any{{"type": "tool_use", "id": "c1", "name": "mcp__memhost__memory_search", "input": map[string]any{}}}),
		map[string]any{"type": "user", "sessionId": theSession, "cwd": dir, "timestamp": at.Format(time.RFC3339Nano),
			"message": map[string]any{"role": "user", "content": []map[string]any{{"type": "tool_result", "tool_use_id": "c1",
				"content": []map[string]any{{"type": "text", "text": "(id 3f2a9c1e, score 0.82)"}}}}}},
		map[string]any{"type": "user", "isSidechain": true, "sessionId": theSession, "cwd": dir, "timestamp": at.Format(time.RFC3339Nano),
			"message": map[string]any{"role": "user", "content": "SIDECHAIN"}},
	)
	require.NoError(t, err)
	got, err := claude.New().Transcript(t.Context(), provider.TranscriptRequest{SessionID: theSession, Path: path, Dir: dir, Start: start, End: start.Add(time.Hour)})
	require.NoError(t, err)
	require.Equal(t, provider.Transcript{Turns: []provider.Turn{
		{Role: "assistant", Text: "Let me look.", At: at, Tokens: 1000},
		{Role: "assistant", At: at, Calls: []provider.ToolCall{{ID: "c1", Name: "mcp__memhost__memory_search"}}},
		{Role: "user", At: at, Results: []provider.ToolResult{{CallID: "c1", Text: "(id 3f2a9c1e, score 0.82)"}}},
	}}, got)
}

// TestTranscriptRefusesWhatIsNotTheSessions: a file not named for the session, one holding
// another session's entries, one of another directory or naming none is refused with the
// reason.
func TestTranscriptRefusesWhatIsNotTheSessions(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), "/work/p"
	line := func(id, cwd string) map[string]any {
		return map[string]any{"type": "user", "sessionId": id, "cwd": cwd, "timestamp": start.Add(time.Minute).Format(time.RFC3339Nano),
			"message": map[string]any{"role": "user", "content": "DECOY"}}
	}
	for reason, recs := range map[string][]any{
		"the transcript holds entries of another session":         {line(theSession, dir), line("5f0c1d2e-0000-4000-8000-000000000002", dir)},
		"the transcript's working directory is not the project's": {line(theSession, "/work/other")},
		"the transcript names no working directory":               {line(theSession, "")},
	} {
		path, err := providertest.WriteJSONL(filepath.Join(home, strings.ReplaceAll(reason, " ", "-"), theSession+".jsonl"), recs...)
		require.NoError(t, err)
		got, err := claude.New().Transcript(t.Context(), provider.TranscriptRequest{SessionID: theSession, Path: path, Dir: dir, Start: start, End: start.Add(time.Hour)})
		require.NoError(t, err)
		require.Equal(t, provider.Transcript{NotIsolated: reason}, got)
	}
	path, err := providertest.WriteJSONL(filepath.Join(home, "renamed.jsonl"), line(theSession, dir))
	require.NoError(t, err)
	got, err := claude.New().Transcript(t.Context(), provider.TranscriptRequest{SessionID: theSession, Path: path, Dir: dir, Start: start, End: start.Add(time.Hour)})
	require.NoError(t, err)
	require.Equal(t, provider.Transcript{NotIsolated: "the transcript file is not named for session " + theSession}, got)
}
