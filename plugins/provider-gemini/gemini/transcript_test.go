package gemini_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/plugins/provider-gemini/gemini"
	"github.com/memhost/memhost/sdk/provider"
	"github.com/memhost/memhost/sdk/provider/providertest"
)

func projectHash(dir string) string {
	sum := sha256.Sum256([]byte(dir))
	return hex.EncodeToString(sum[:])
}

// writeChat writes a chat as Gemini CLI does: the session header, the first half of the
// messages as a $set of the whole list, the rest as records.
func writeChat(home, id, dir string, turns []provider.Turn) (string, error) {
	var msgs []map[string]any
	for i, t := range turns {
		typ := map[string]string{"user": "user", "assistant": "gemini"}[t.Role]
		msgs = append(msgs, map[string]any{"id": fmt.Sprint("m", i), "timestamp": t.At.Format(time.RFC3339Nano), "type": typ, "content": []map[string]any{{"text": t.Text}}})
	}
	recs := []any{map[string]any{"sessionId": id, "projectHash": projectHash(dir), "kind": "main"}}
	half := len(msgs) / 2
	recs = append(recs, map[string]any{"$set": map[string]any{"messages": msgs[:half]}})
	for _, m := range msgs[half:] {
		recs = append(recs, m)
	}
	return providertest.WriteJSONL(filepath.Join(home, ".gemini", "tmp", "proj", "chats", "session-2026-11-26T10-00-"+id[:8]+".jsonl"), recs...)
}

const theSession = "5f0c1d2e-0000-4000-8000-000000000001"

var start = time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)

// TestTranscriptConformance: the kit reads chats of Gemini CLI's layout in process and over
// the wire: the session's turns, another session's chat and another directory's refused.
func TestTranscriptConformance(t *testing.T) {
	t.Parallel()
	providertest.Exercise(t, gemini.New(), providertest.WithTranscript(writeChat))
	providertest.Exercise(t, providertest.Serve(t, gemini.New()), providertest.WithTranscript(writeChat))
}

// TestTranscriptReadsToolsAndCost: a model message rewritten with its tool calls is read once,
// its calls carrying their results and its cost; the session context Gemini CLI sends as the
// user's message is not a turn.
func TestTranscriptReadsToolsAndCost(t *testing.T) {
	t.Parallel()
	dir := "/work/p"
	at := start.Add(time.Minute).Format(time.RFC3339Nano)
	m := map[string]any{"id": "g1", "timestamp": at, "type": "gemini", "content": "", "tokens": map[string]any{"total": 1000}}
	withCalls := map[string]any{"id": "g1", "timestamp": at, "type": "gemini", "content": "", "tokens": map[string]any{"total": 1000},
		"toolCalls": []map[string]any{{"id": "t1", "name": "mcp_memhost_memory_search",
			"result": []map[string]any{{"functionResponse": map[string]any{"response": map[string]any{"output": "(id 3f2a9c1e, score 0.82)"}}}}}}}
	path, err := providertest.WriteJSONL(filepath.Join(t.TempDir(), "session.jsonl"),
		map[string]any{"sessionId": theSession, "projectHash": projectHash(dir)},
		map[string]any{"id": "u0", "timestamp": at, "type": "user", "content": []map[string]any{{"text": "<session_context>cwd</session_context>"}}},
		m, withCalls)
	require.NoError(t, err)
	got, err := gemini.New().Transcript(t.Context(), provider.TranscriptRequest{SessionID: theSession, Path: path, Dir: dir, Start: start, End: start.Add(time.Hour)})
	require.NoError(t, err)
	require.Equal(t, provider.Transcript{Turns: []provider.Turn{
		{Role: "assistant", At: start.Add(time.Minute), Tokens: 1000, Calls: []provider.ToolCall{{ID: "t1", Name: "mcp_memhost_memory_search", Result: "(id 3f2a9c1e, score 0.82)"}}},
	}}, got)
}

// TestTranscriptRefusesWhatIsNotTheSessions: a chat without its header, another session's, or
// of another directory's project hash is refused with the reason.
func TestTranscriptRefusesWhatIsNotTheSessions(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), "/work/p"
	msg := map[string]any{"id": "u1", "timestamp": start.Add(time.Minute).Format(time.RFC3339Nano), "type": "user", "content": "DECOY"}
	for reason, recs := range map[string][]any{
		"the chat does not begin with its session header":   {msg},
		"the chat is another session's":                     {map[string]any{"sessionId": "5f0c1d2e-0000-4000-8000-000000000002", "projectHash": projectHash(dir)}, msg},
		"the chat's working directory is not the project's": {map[string]any{"sessionId": theSession, "projectHash": projectHash("/work/other")}, msg},
	} {
		path, err := providertest.WriteJSONL(filepath.Join(home, strings.ReplaceAll(reason, " ", "-")+".jsonl"), recs...)
		require.NoError(t, err)
		got, err := gemini.New().Transcript(t.Context(), provider.TranscriptRequest{SessionID: theSession, Path: path, Dir: dir, Start: start, End: start.Add(time.Hour)})
		require.NoError(t, err)
		require.Equal(t, provider.Transcript{NotIsolated: reason}, got)
	}
}
