package provider_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/provider"
	"github.com/memhost/memhost/sdk/provider/providertest"
)

// reading is a toy whose CLI writes one JSON line per turn, each naming its session and cwd.
type reading struct{ toy }

type toyLine struct {
	Session string          `json:"session"`
	Cwd     string          `json:"cwd"`
	At      string          `json:"at"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	Tokens  int64           `json:"tokens"`
}

func (reading) Transcript(ctx context.Context, r provider.TranscriptRequest) (provider.Transcript, error) {
	if err := ctx.Err(); err != nil {
		return provider.Transcript{}, err
	}
	l, err := provider.OpenJSONL(r.Path)
	if err != nil {
		return provider.Transcript{NotIsolated: err.Error()}, nil
	}
	defer func() { _ = l.Close() }()
	var t provider.Transcript
	for line, ok := l.Next(); ok; line, ok = l.Next() {
		var e toyLine
		if json.Unmarshal(line, &e) != nil || e.Session == "" {
			continue
		}
		switch {
		case e.Session != r.SessionID:
			return provider.Transcript{NotIsolated: "the transcript is another session's"}, nil
		case e.Cwd != r.Dir:
			return provider.Transcript{NotIsolated: "the transcript's working directory is not the project's"}, nil
		}
		t.Turns = append(t.Turns, provider.Turn{Role: e.Role, Text: provider.ContentText(e.Content), At: provider.ParseTime(e.At), Tokens: e.Tokens})
	}
	if len(t.Turns) == 0 {
		return provider.Transcript{NotIsolated: "the transcript holds no turn"}, nil
	}
	return t, nil
}

func writeToy(home, id, dir string, turns []provider.Turn) (string, error) {
	var b strings.Builder
	for _, t := range turns {
		content, _ := json.Marshal([]map[string]string{{"type": "text", "text": t.Text}})
		line, err := json.Marshal(toyLine{Session: id, Cwd: dir, At: t.At.Format(time.RFC3339Nano), Role: t.Role, Content: content, Tokens: t.Tokens})
		if err != nil {
			return "", err
		}
		b.Write(append(line, '\n'))
	}
	path := filepath.Join(home, ".toy", id+".jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	return path, os.WriteFile(path, []byte(b.String()), 0o600)
}

// TestTranscriptCrossesTheWireWithinItsWindowAndBounds: the Transcript RPC carries the turns a
// provider read, only those inside the session's window (30 s of slack either side), each text
// clipped and the whole within MaxTranscriptBytes, the oldest turns' texts given up first; a
// request without a session is refused before the plugin reads anything; a plugin built
// without the RPC answers ErrUnimplemented. The kit passes the toy over the wire and in
// process.
func TestTranscriptCrossesTheWireWithinItsWindowAndBounds(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	start := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	long := strings.Repeat("é", provider.MaxTranscriptText)
	var turns []provider.Turn
	turns = append(turns, provider.Turn{Role: "user", Text: "before the window", At: start.Add(-time.Minute)})
	for i := range 60 {
		turns = append(turns, provider.Turn{Role: "assistant", Text: long, At: start.Add(time.Duration(i) * time.Second), Tokens: 10})
	}
	turns = append(turns, provider.Turn{Role: "user", Text: "just after the end", At: start.Add(10*time.Minute + 20*time.Second)})
	path, err := writeToy(home, "s1", "/work/p", turns)
	require.NoError(t, err)

	p := providertest.Serve(t, reading{})
	r := provider.TranscriptRequest{SessionID: "s1", Path: path, Dir: "/work/p", Start: start, End: start.Add(10 * time.Minute)}
	got, err := p.(provider.TranscriptReader).Transcript(t.Context(), r)
	require.NoError(t, err)
	require.Empty(t, got.NotIsolated)
	require.Len(t, got.Turns, 61, "the turn before the window is dropped; the one within the slack kept")
	require.Equal(t, "just after the end", got.Turns[60].Text)
	size := 0
	for _, tr := range got.Turns {
		require.LessOrEqual(t, len(tr.Text), provider.MaxTranscriptText)
		if tr.Role == "assistant" {
			require.Equal(t, int64(10), tr.Tokens, "costs are kept when texts go")
		}
		size += len(tr.Text)
	}
	require.LessOrEqual(t, size, provider.MaxTranscriptBytes)
	require.Empty(t, got.Turns[0].Text, "the oldest texts go first")
	require.NotEmpty(t, got.Turns[59].Text, "the latest texts stay")

	r.SessionID = ""
	_, err = p.(provider.TranscriptReader).Transcript(t.Context(), r)
	require.ErrorIs(t, err, provider.ErrInvalidInput)
	require.ErrorContains(t, err, "session id is empty")

	_, err = providertest.Serve(t, toy{}).(provider.TranscriptReader).Transcript(t.Context(), provider.TranscriptRequest{SessionID: "s1", Path: path, Dir: "/work/p", Start: start, End: start})
	require.ErrorIs(t, err, provider.ErrUnimplemented)

	providertest.Exercise(t, reading{}, providertest.WithTranscript(writeToy))
	providertest.Exercise(t, p, providertest.WithTranscript(writeToy))
}

// TestReadJSONLFramesAReader: the frame answers an ended context with its error, a file it
// cannot read with a refusal that names neither its path nor its content, and otherwise what
// the reader made of the file's lines.
func TestReadJSONLFramesAReader(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(path, []byte("{\"n\":1}\n{\"n\":2}\n"), 0o600))
	count := func(l *provider.JSONL) provider.Transcript {
		var tr provider.Transcript
		for line, ok := l.Next(); ok; line, ok = l.Next() {
			tr.Turns = append(tr.Turns, provider.Turn{Role: "user", Text: string(line)})
		}
		return tr
	}
	got, err := provider.ReadJSONL(context.Background(), path, count)
	require.NoError(t, err)
	require.Len(t, got.Turns, 2)
	require.Empty(t, got.NotIsolated)

	got, err = provider.ReadJSONL(context.Background(), filepath.Join(filepath.Dir(path), "gone.jsonl"), count)
	require.NoError(t, err)
	require.Empty(t, got.Turns)
	require.Contains(t, got.NotIsolated, "cannot be read")
	require.NotContains(t, got.NotIsolated, "gone.jsonl")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = provider.ReadJSONL(ctx, path, count)
	require.ErrorIs(t, err, context.Canceled)
}
