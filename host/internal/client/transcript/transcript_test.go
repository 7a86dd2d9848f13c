package transcript_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/client/transcript"
)

var (
	start = time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	end   = start.Add(10 * time.Minute)
	// before is a turn of an earlier spawn accumulated in the same file.
	before = start.Add(-2 * time.Hour)
)

const (
	sessionID = "5f0c1d2e-0000-4000-8000-000000000001"
	otherID   = "5f0c1d2e-0000-4000-8000-000000000002"
	secret    = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
)

type turn struct {
	role, text string
	at         time.Time
}

// layout writes a transcript of one CLI's layout under home and returns its path.
type layout func(t *testing.T, home, id, cwd string, turns []turn) string

func jsonl(t *testing.T, path string, records ...any) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	var b strings.Builder
	for _, r := range records {
		line, err := json.Marshal(r)
		require.NoError(t, err)
		b.Write(line)
		b.WriteByte('\n')
	}
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o600))
	return path
}

func ts(at time.Time) string { return at.Format(time.RFC3339Nano) }

func claude(t *testing.T, home, id, cwd string, turns []turn) string {
	recs := []any{map[string]any{"type": "summary", "summary": "earlier"}}
	for _, tr := range turns {
		content := any(tr.text)
		if tr.role == "assistant" {
			content = []map[string]any{{"type": "text", "text": tr.text}, {"type": "tool_use", "name": "Bash", "input": map[string]any{"command": "ls"}}}
		}
		recs = append(recs, map[string]any{"type": tr.role, "sessionId": id, "cwd": cwd, "timestamp": ts(tr.at),
			"message": map[string]any{"role": tr.role, "content": content}})
	}
	enc := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, cwd)
	return jsonl(t, filepath.Join(home, ".claude", "projects", enc, id+".jsonl"), recs...)
}

func codex(t *testing.T, home, id, cwd string, turns []turn) string {
	recs := []any{
		map[string]any{"timestamp": ts(start), "type": "session_meta", "payload": map[string]any{"id": id, "cwd": cwd}},
		map[string]any{"timestamp": ts(start), "type": "response_item", "payload": map[string]any{"type": "message", "role": "user",
			"content": []map[string]any{{"type": "input_text", "text": "<environment_context>cwd " + cwd + "</environment_context>"}}}},
	}
	for _, tr := range turns {
		kind := "input_text"
		if tr.role == "assistant" {
			kind = "output_text"
		}
		recs = append(recs, map[string]any{"timestamp": ts(tr.at), "type": "response_item", "payload": map[string]any{
			"type": "message", "role": tr.role, "content": []map[string]any{{"type": kind, "text": tr.text}}}})
	}
	return jsonl(t, filepath.Join(home, ".codex", "sessions", "2026", "11", "26", "rollout-2026-11-26T10-00-00-"+id+".jsonl"), recs...)
}

func gemini(t *testing.T, home, id, cwd string, turns []turn) string {
	sum := sha256.Sum256([]byte(cwd))
	var msgs []map[string]any
	for i, tr := range turns {
		typ := "user"
		if tr.role == "assistant" {
			typ = "gemini"
		}
		msgs = append(msgs, map[string]any{"id": fmt.Sprint("m", i), "timestamp": ts(tr.at), "type": typ, "content": []map[string]any{{"text": tr.text}}})
	}
	recs := []any{map[string]any{"sessionId": id, "projectHash": hex.EncodeToString(sum[:]), "startTime": ts(start), "kind": "main"}}
	// The first half arrives as a $set of the whole list, the rest as records, as the CLI writes.
	half := len(msgs) / 2
	recs = append(recs, map[string]any{"$set": map[string]any{"messages": msgs[:half]}})
	for _, m := range msgs[half:] {
		recs = append(recs, m)
	}
	return jsonl(t, filepath.Join(home, ".gemini", "tmp", "proj", "chats", "session-2026-11-26T10-00-"+id[:8]+".jsonl"), recs...)
}

var layouts = map[string]layout{"claude": claude, "codex": codex, "gemini": gemini}

func session(cli, path, id, dir string) transcript.Session {
	return transcript.Session{CLI: cli, Path: path, ID: id, Dir: dir, Start: start, End: end}
}

// read reads s's excerpt through its CLI's provider plugin, a real plugin process.
func read(t *testing.T, s transcript.Session, maxBytes int) (transcript.Excerpt, error) {
	t.Helper()
	turns, err := transcript.Fetch(t.Context(), reader(t, s.CLI), s)
	if err != nil {
		return transcript.Excerpt{}, err
	}
	return turns.Excerpt(maxBytes)
}

// TestReadKeepsOnlyTheSessionsOwnTurns: for each CLI's layout, the session's transcript gives
// the turns inside its window, redacted; a turn of an earlier spawn in the same file is
// dropped; and decoys on disk (another session's file, another project's working directory, a
// session entirely outside the window) are refused as not isolated, none of their text read.
func TestReadKeepsOnlyTheSessionsOwnTurns(t *testing.T) {
	t.Parallel()
	for cli, write := range layouts {
		t.Run(cli, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			dir := filepath.Join(home, "work", "proj")
			own := write(t, home, sessionID, dir, []turn{
				{"user", "EARLIER-SPAWN: an old question", before},
				{"user", "Switch the build to pnpm. Token " + secret, start.Add(time.Minute)},
				{"assistant", "Done: the build uses pnpm 9 now.", start.Add(2 * time.Minute)},
			})
			ex, err := read(t, session(cli, own, sessionID, dir), 0)
			require.NoError(t, err)
			require.Equal(t, 2, ex.Turns)
			require.Contains(t, ex.Text, "user: Switch the build to pnpm.")
			require.Contains(t, ex.Text, "assistant: Done: the build uses pnpm 9 now.")
			require.NotContains(t, ex.Text, "EARLIER-SPAWN")
			require.NotContains(t, ex.Text, secret)
			require.Positive(t, ex.Redactions)
			require.NotContains(t, ex.Text, "environment_context")

			decoyHome := t.TempDir()
			other := write(t, decoyHome, otherID, dir, []turn{{"user", "DECOY-SESSION", start.Add(time.Minute)}})
			elsewhere := write(t, t.TempDir(), sessionID, filepath.Join(home, "work", "other"), []turn{{"user", "DECOY-PROJECT", start.Add(time.Minute)}})
			old := write(t, t.TempDir(), sessionID, dir, []turn{{"user", "DECOY-OLD", before}})
			for name, s := range map[string]transcript.Session{
				"another session's file":              session(cli, other, sessionID, dir),
				"another project's working directory": session(cli, elsewhere, sessionID, dir),
				"outside the time window":             session(cli, old, sessionID, dir),
				"no session id":                       session(cli, own, "", dir),
				"no transcript":                       session(cli, "", sessionID, dir),
				"a missing file":                      session(cli, filepath.Join(home, "gone.jsonl"), sessionID, dir),
			} {
				ex, err := read(t, s, 0)
				require.ErrorIs(t, err, transcript.ErrNotIsolated, name)
				require.Empty(t, ex.Text, name)
				require.NotContains(t, err.Error(), "DECOY", name)
			}
		})
	}
}

// TestReadIsBoundedToTheLatestTurns: an excerpt over its byte bound keeps the latest turns and
// says how many earlier ones it left out; one turn is clipped to MaxTurnBytes.
func TestReadIsBoundedToTheLatestTurns(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	dir := filepath.Join(home, "proj")
	var turns []turn
	for i := range 50 {
		turns = append(turns, turn{"user", fmt.Sprintf("turn %02d %s", i, strings.Repeat("x", 200)), start.Add(time.Duration(i) * time.Second)})
	}
	turns = append(turns, turn{"assistant", strings.Repeat("long ", 2000), start.Add(time.Minute)})
	path := claude(t, home, sessionID, dir, turns)
	ex, err := read(t, session("claude", path, sessionID, dir), 4096)
	require.NoError(t, err)
	require.LessOrEqual(t, len(ex.Text), 4096+64)
	require.Positive(t, ex.Dropped)
	require.Contains(t, ex.Text, fmt.Sprintf("[%d earlier turns left out]", ex.Dropped))
	require.Contains(t, ex.Text, "turn 49")
	require.NotContains(t, ex.Text, "turn 00")
	require.Contains(t, ex.Text, " […]")
	require.Equal(t, 51, ex.Turns+ex.Dropped)
}

// TestAProviderThatReadsNoTranscriptsIsNamed: a provider plugin built before the Transcript
// RPC (or a third party's without it), and no provider at all, leave the session's metadata
// alone, with the reason.
func TestAProviderThatReadsNoTranscriptsIsNamed(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	path := claude(t, home, sessionID, home, []turn{{"user", "hello", start}})
	s := session("aider", path, sessionID, home)
	_, err := transcript.Fetch(t.Context(), oldProvider(t, "aider"), s)
	require.ErrorIs(t, err, transcript.ErrNotIsolated)
	require.Equal(t, "provider aider reads no transcripts", transcript.Reason(err))
	_, err = transcript.Fetch(t.Context(), nil, s)
	require.ErrorIs(t, err, transcript.ErrNotIsolated)
	require.Equal(t, "provider aider is not running, so no one reads its transcript", transcript.Reason(err))
}
