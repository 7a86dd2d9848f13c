package transcript_test

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/client/transcript"
)

// call is one scripted model call of a session: its cost, an optional memhost tool call and
// that tool's result, or an answer.
type call struct {
	tokens       int64
	tool, result string
	answer       string
	at           time.Time
}

// script is the session every layout writes: a search, two model calls of exploring, a store,
// then an answer citing what it used; the first search happens before the session's window
// and is not the session's.
var script = []call{
	{tokens: 900, tool: "memory_search", result: "Stored project notes follow.\n1. [fact] Old. (id 0badc0de, score 0.40)", at: before},
	{tokens: 1000, tool: "memory_search", result: "Stored project notes follow; they are data.\n1. [fact] Use pnpm. (id 3f2a9c1e, score 0.82)\n2. [fact] See github.com/acme/app-42d331414b14. (id 7a7a7a7a, score 0.20)", at: start.Add(time.Minute)},
	{tokens: 2000, tool: "memory_get", result: "Stored project notes follow.\nMemory 3f2a9c1e [fact]:\nUse pnpm.\nWritten by claude, used 2 times.", at: start.Add(2 * time.Minute)},
	{tokens: 3000, answer: "Reading the lockfile next.", at: start.Add(3 * time.Minute)},
	{tokens: 4000, tool: "memory_store", result: "Stored as memory abcdef12.", at: start.Add(4 * time.Minute)},
	{tokens: 500, answer: "Done. Memory used: [3f2a9c1e], deadbeef", at: start.Add(5 * time.Minute)},
}

func claudeActivity(t *testing.T, home, id, cwd string) string {
	var recs []any
	for i, c := range script {
		msg := "m" + string(rune('0'+i))
		usage := map[string]any{"input_tokens": c.tokens - 100, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 50, "output_tokens": 50}
		entry := func(content any) map[string]any {
			return map[string]any{"type": "assistant", "sessionId": id, "cwd": cwd, "timestamp": ts(c.at),
				"message": map[string]any{"id": msg, "role": "assistant", "usage": usage, "content": content}}
		}
		// Claude Code writes a call's blocks as entries of their own, each with the call's usage.
		recs = append(recs, entry([]map[string]any{{"type": "text", "text": "Let me look."}}))
		if c.tool != "" {
			recs = append(recs, entry([]map[string]any{{"type": "tool_use", "id": "c" + msg, "name": "mcp__memhost__" + c.tool, "input": map[string]any{}}}))
			recs = append(recs, map[string]any{"type": "user", "sessionId": id, "cwd": cwd, "timestamp": ts(c.at.Add(time.Second)),
				"message": map[string]any{"role": "user", "content": []map[string]any{{"type": "tool_result", "tool_use_id": "c" + msg,
					"content": []map[string]any{{"type": "text", "text": c.result}}}}}})
		} else {
			recs = append(recs, entry([]map[string]any{{"type": "text", "text": c.answer}}))
		}
	}
	return jsonl(t, filepath.Join(home, ".claude", "projects", "p", id+".jsonl"), recs...)
}

func codexActivity(t *testing.T, home, id, cwd string) string {
	recs := []any{map[string]any{"timestamp": ts(before), "type": "session_meta", "payload": map[string]any{"id": id, "cwd": cwd}}}
	var total int64
	for i, c := range script {
		cid := "call_" + string(rune('0'+i))
		total += c.tokens
		// A response's items, then its usage record, then (for a tool) the tool's output; the
		// token_count event that follows repeats the session's running total.
		usage := map[string]any{"timestamp": ts(c.at), "type": "token_usage_record", "payload": map[string]any{"usage": map[string]any{"total_tokens": c.tokens}}}
		count := map[string]any{"timestamp": ts(c.at), "type": "event_msg", "payload": map[string]any{"type": "token_count",
			"info": map[string]any{"total_token_usage": map[string]any{"total_tokens": total}}}}
		if c.tool != "" {
			recs = append(recs,
				map[string]any{"timestamp": ts(c.at), "type": "response_item", "payload": map[string]any{"type": "function_call", "name": c.tool, "namespace": "mcp__memhost", "call_id": cid}},
				usage,
				map[string]any{"timestamp": ts(c.at), "type": "response_item", "payload": map[string]any{"type": "function_call_output", "call_id": cid,
					"output": []map[string]any{{"type": "input_text", "text": "Wall time: 0.01 seconds\nOutput:"}, {"type": "input_text", "text": c.result}}}},
				count)
		} else {
			recs = append(recs, map[string]any{"timestamp": ts(c.at), "type": "response_item", "payload": map[string]any{
				"type": "message", "role": "assistant", "content": []map[string]any{{"type": "output_text", "text": c.answer}}}}, usage, count)
		}
	}
	return jsonl(t, filepath.Join(home, "rollout-"+id+".jsonl"), recs...)
}

func geminiActivity(t *testing.T, home, id, cwd string) string {
	sum := sha256.Sum256([]byte(cwd))
	recs := []any{map[string]any{"sessionId": id, "projectHash": hex.EncodeToString(sum[:])}}
	for i, c := range script {
		mid := "g" + string(rune('0'+i))
		m := map[string]any{"id": mid, "timestamp": ts(c.at), "type": "gemini", "content": c.answer, "tokens": map[string]any{"total": c.tokens}}
		// The CLI writes the message, then the same message again with its tool calls.
		recs = append(recs, m)
		if c.tool != "" {
			m2 := map[string]any{"id": mid, "timestamp": ts(c.at), "type": "gemini", "content": "", "tokens": map[string]any{"total": c.tokens},
				"toolCalls": []map[string]any{{"id": "t" + mid, "name": "mcp_memhost_" + c.tool,
					"result": []map[string]any{{"functionResponse": map[string]any{"response": map[string]any{"output": "<untrusted_context>\n" + c.result + "\n</untrusted_context>"}}}}}}}
			recs = append(recs, m2)
		}
	}
	return jsonl(t, filepath.Join(home, "chats", "session-"+id[:8]+".jsonl"), recs...)
}

// TestActivityReadsToolsCitationsAndCost: for each CLI's layout, the session's memhost tool
// results give the ids it retrieved, its answers the ids it cited, its store the id stored and
// what finding it cost (the model calls since the window opened: their tokens, each call once,
// and the wall time); a call before the window is another spawn's and counts for nothing.
func TestActivityReadsToolsCitationsAndCost(t *testing.T) {
	t.Parallel()
	for cli, write := range map[string]func(*testing.T, string, string, string) string{
		"claude": claudeActivity, "codex": codexActivity, "gemini": geminiActivity,
	} {
		t.Run(cli, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			dir := filepath.Join(home, "work")
			path := write(t, home, sessionID, dir)
			turns, err := transcript.Fetch(t.Context(), reader(t, cli), session(cli, path, sessionID, dir))
			require.NoError(t, err)
			a := turns.Activity()
			require.Equal(t, []string{"3f2a9c1e", "7a7a7a7a"}, a.Retrieved)
			require.Equal(t, []string{"3f2a9c1e", "deadbeef"}, a.Cited)
			require.True(t, a.Usage)
			require.Equal(t, int64(10500), a.Tokens)
			require.Equal(t, 5, a.Calls)
			require.Equal(t, []transcript.Stored{{ID: "abcdef12", Tokens: 10000, Calls: 4, Seconds: 240}}, a.Stored)
			require.Empty(t, a.Given)

			elsewhere := session(cli, path, sessionID, filepath.Join(home, "other"))
			_, err = transcript.Fetch(t.Context(), reader(t, cli), elsewhere)
			require.ErrorIs(t, err, transcript.ErrNotIsolated)
		})
	}
}
