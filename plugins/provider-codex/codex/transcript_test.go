package codex_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/plugins/provider-codex/codex"
	"github.com/memhost/memhost/sdk/provider"
	"github.com/memhost/memhost/sdk/provider/providertest"
)

// writeRollout writes a rollout as Codex does: session_meta, the environment context Codex
// sends as a user message, then the turns as response items.
func writeRollout(home, id, dir string, turns []provider.Turn) (string, error) {
	stamp := func(at time.Time) string { return at.Format(time.RFC3339Nano) }
	first := time.Now()
	if len(turns) > 0 {
		first = turns[0].At
	}
	recs := []any{
		map[string]any{"timestamp": stamp(first), "type": "session_meta", "payload": map[string]any{"id": id, "cwd": dir, "base_instructions": "You are Codex."}},
		map[string]any{"timestamp": stamp(first), "type": "turn_context", "payload": map[string]any{"cwd": dir}},
		map[string]any{"timestamp": stamp(first), "type": "response_item", "payload": map[string]any{"type": "message", "role": "user",
			"content": []map[string]any{{"type": "input_text", "text": "<environment_context>cwd " + dir + "</environment_context>"}}}},
	}
	for _, t := range turns {
		kind := "input_text"
		if t.Role == "assistant" {
			kind = "output_text"
		}
		recs = append(recs, map[string]any{"timestamp": stamp(t.At), "type": "response_item", "payload": map[string]any{
			"type": "message", "role": t.Role, "content": []map[string]any{{"type": kind, "text": t.Text}}}})
	}
	return providertest.WriteJSONL(filepath.Join(home, ".codex", "sessions", "2026", "11", "26", "rollout-2026-11-26T10-00-00-"+id+".jsonl"), recs...)
}

const sessionID = "01a205eb-2231-7221-a310-cc63f52e2003"

var start = time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)

// TestTranscriptConformance: the kit reads rollouts of Codex's layout in process and over the
// wire: the session's turns, another session's rollout and another directory's refused.
func TestTranscriptConformance(t *testing.T) {
	t.Parallel()
	providertest.Exercise(t, codex.New(), providertest.WithTranscript(writeRollout))
	providertest.Exercise(t, providertest.Serve(t, codex.New()), providertest.WithTranscript(writeRollout))
}

// TestTranscriptReadsToolsAndCost: a rollout's function calls (named namespace__name, as Codex
// shows MCP tools to the model), their outputs and each response's token_usage_record come
// back as neutral turns; the instructions Codex sends as user messages do not.
func TestTranscriptReadsToolsAndCost(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), "/work/p"
	at := func(m int) string { return start.Add(time.Duration(m) * time.Minute).Format(time.RFC3339Nano) }
	path, err := providertest.WriteJSONL(filepath.Join(home, "rollout.jsonl"),
		map[string]any{"timestamp": at(0), "type": "session_meta", "payload": map[string]any{"id": sessionID, "cwd": dir}},
		map[string]any{"timestamp": at(0), "type": "response_item", "payload": map[string]any{"type": "message", "role": "user",
			"content": []map[string]any{{"type": "input_text", "text": "# AGENTS.md instructions for /work/p"}}}},
		map[string]any{"timestamp": at(1), "type": "response_item", "payload": map[string]any{"type": "function_call", "name": "memory_search", "namespace": "mcp__memhost", "call_id": "c1"}},
		map[string]any{"timestamp": at(1), "type": "token_usage_record", "payload": map[string]any{"usage": map[string]any{"total_tokens": 1000}}},
		map[string]any{"timestamp": at(1), "type": "response_item", "payload": map[string]any{"type": "function_call_output", "call_id": "c1",
			"output": []map[string]any{{"type": "input_text", "text": "1. [fact] Use pnpm. (id 3f2a9c1e, score 0.82)"}}}},
		map[string]any{"timestamp": at(2), "type": "response_item", "payload": map[string]any{"type": "message", "role": "assistant",
			"content": []map[string]any{{"type": "output_text", "text": "Done. Memory used: [3f2a9c1e]"}}}},
		map[string]any{"timestamp": at(2), "type": "token_usage_record", "payload": map[string]any{"usage": map[string]any{"total_tokens": 500}}},
	)
	require.NoError(t, err)
	r := provider.TranscriptRequest{SessionID: sessionID, Path: path, Dir: dir, Start: start, End: start.Add(10 * time.Minute)}
	got, err := codex.New().Transcript(t.Context(), r)
	require.NoError(t, err)
	require.Equal(t, provider.Transcript{Turns: []provider.Turn{
		{Role: "assistant", At: start.Add(time.Minute), Calls: []provider.ToolCall{{ID: "c1", Name: "mcp__memhost__memory_search"}}, Tokens: 1000},
		{Role: "user", At: start.Add(time.Minute), Results: []provider.ToolResult{{CallID: "c1", Text: "1. [fact] Use pnpm. (id 3f2a9c1e, score 0.82)"}}},
		{Role: "assistant", Text: "Done. Memory used: [3f2a9c1e]", At: start.Add(2 * time.Minute), Tokens: 500},
	}}, got)
}

// TestTranscriptRefusesWhatIsNotTheSessions: a rollout that does not begin with session_meta,
// names another session or directory, or moves to another directory mid-session, is refused
// with the reason and none of its text.
func TestTranscriptRefusesWhatIsNotTheSessions(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), "/work/p"
	r := provider.TranscriptRequest{SessionID: sessionID, Dir: dir, Start: start, End: start.Add(10 * time.Minute)}
	turn := map[string]any{"timestamp": start.Add(time.Minute).Format(time.RFC3339Nano), "type": "response_item", "payload": map[string]any{
		"type": "message", "role": "user", "content": "DECOY"}}
	meta := func(id, cwd string) map[string]any {
		return map[string]any{"type": "session_meta", "payload": map[string]any{"id": id, "cwd": cwd}}
	}
	for reason, recs := range map[string][]any{
		"the rollout does not begin with its session_meta":     {turn, meta(sessionID, dir)},
		"the rollout is another session's":                     {meta("01a205eb-0000-7221-a310-cc63f52e2003", dir), turn},
		"the rollout's working directory is not the project's": {meta(sessionID, "/work/other"), turn},
		"the rollout moved to another working directory":       {meta(sessionID, dir), turn, map[string]any{"type": "turn_context", "payload": map[string]any{"cwd": "/work/other"}}},
	} {
		path, err := providertest.WriteJSONL(filepath.Join(home, strings.ReplaceAll(reason, " ", "-")+".jsonl"), recs...)
		require.NoError(t, err)
		r.Path = path
		got, err := codex.New().Transcript(t.Context(), r)
		require.NoError(t, err)
		require.Equal(t, provider.Transcript{NotIsolated: reason}, got)
	}
}
