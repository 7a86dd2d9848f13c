package providertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memhost/memhost/sdk/internal/plugintest"
	"github.com/memhost/memhost/sdk/provider"
)

// TranscriptWriter writes, under home, the transcript a session of the provider's CLI would
// leave in the CLI's own layout: session id, working directory dir, and turns (user and
// assistant prose, each stamped), and returns its absolute path.
type TranscriptWriter func(home, id, dir string, turns []provider.Turn) (path string, err error)

// WriteJSONL writes recs to path, one JSON value a line (the layout of every CLI's transcript),
// making its folders, and returns path: the building block of a TranscriptWriter.
func WriteJSONL(path string, recs ...any) (string, error) {
	var b strings.Builder
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			return "", fmt.Errorf("providertest: encode a transcript line: %w", err)
		}
		b.Write(append(line, '\n'))
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("providertest: %w", err)
	}
	return path, os.WriteFile(path, []byte(b.String()), 0o600)
}

// WithTranscript lets the kit check a provider.TranscriptReader against transcripts of its own
// layout: write makes them.
func WithTranscript(write TranscriptWriter) Option {
	return Option{apply: func(k *kit) { k.transcript = write }}
}

// checkTranscript: a provider that reads its CLI's transcripts (provider.TranscriptReader)
// answers a file that is missing, or is not a transcript at all, with a reason and no turns,
// never an error and never the file's path. Given WithTranscript, it also gives the session's
// own turns inside the window, in order, and refuses (a reason, no turns) another session's file
// and a session of another working directory. A plugin without the RPC (ErrUnimplemented over
// the wire) passes: memhost then journals metadata alone.
func checkTranscript(t testing.TB, k *kit) {
	tr, ok := k.p.(provider.TranscriptReader)
	if !ok {
		return
	}
	w := k.newWorld(t, nil, false)
	start := time.Now().Add(-10 * time.Minute).UTC().Truncate(time.Millisecond)
	r := provider.TranscriptRequest{SessionID: "5f0c1d2e-0000-4000-8000-" + fmt.Sprintf("%012d", time.Now().UnixNano()%1e12),
		Path: filepath.Join(w.home, "missing.jsonl"), Dir: w.dir, Start: start, End: start.Add(5 * time.Minute)}
	got, err := k.readTranscript(t, tr, r)
	if errors.Is(err, provider.ErrUnimplemented) {
		return
	}
	requireRefused(t, "a missing file", r, got, err)
	r.Path = filepath.Join(w.home, "garbage.jsonl")
	if err := os.WriteFile(r.Path, []byte("not a transcript\n{\"x\": 1}\n"), 0o600); err != nil {
		t.Fatalf("write a file: %v", err)
	}
	got, err = k.readTranscript(t, tr, r)
	requireRefused(t, "a file that is no transcript", r, got, err)
	if k.transcript == nil {
		return
	}
	turns := []provider.Turn{
		{Role: "user", Text: "EARLIER-SPAWN: an old question", At: start.Add(-2 * time.Hour)},
		{Role: "user", Text: "Switch the build to pnpm.", At: start.Add(time.Minute)},
		{Role: "assistant", Text: "Done: the build uses pnpm 9 now.", At: start.Add(2 * time.Minute)},
	}
	write := func(home, id, dir string) string {
		path, err := k.transcript(home, id, dir, turns)
		if err != nil {
			t.Fatalf("WithTranscript: %v", err)
		}
		return path
	}
	r.Path = write(w.home, r.SessionID, w.dir)
	got, err = k.readTranscript(t, tr, r)
	if err != nil || got.NotIsolated != "" {
		t.Fatalf("Transcript of the session's own file: %v %s", err, quote(got.NotIsolated))
	}
	var prose []string
	for _, turn := range got.Turns {
		if turn.Text != "" && r.Within(turn.At) {
			prose = append(prose, turn.Role+": "+turn.Text)
		}
	}
	if want := []string{"user: " + turns[1].Text, "assistant: " + turns[2].Text}; strings.Join(prose, "\n") != strings.Join(want, "\n") {
		t.Fatalf("Transcript of the session's own file gave %s; want %s", quote(strings.Join(prose, " | ")), quote(strings.Join(want, " | ")))
	}
	other := r
	other.Path = write(filepath.Join(w.home, "other"), "5f0c1d2e-0000-4000-8000-00000000ffff", w.dir)
	got, err = k.readTranscript(t, tr, other)
	requireRefused(t, "another session's file", other, got, err)
	elsewhere := r
	elsewhere.Dir = filepath.Join(filepath.Dir(w.dir), "elsewhere")
	got, err = k.readTranscript(t, tr, elsewhere)
	requireRefused(t, "a session of another working directory", elsewhere, got, err)
}

// requireRefused requires a reason, no turns and no error, and the reason free of the path.
func requireRefused(t testing.TB, what string, r provider.TranscriptRequest, got provider.Transcript, err error) {
	t.Helper()
	switch {
	case err != nil:
		t.Fatalf("Transcript of %s: an error (%s); want a not-isolated reason", what, plugintest.Short(err.Error()))
	case got.NotIsolated == "" || len(got.Turns) > 0:
		t.Fatalf("Transcript of %s: %d turns and reason %s; want a reason and no turns", what, len(got.Turns), quote(got.NotIsolated))
	case strings.Contains(got.NotIsolated, r.Path) || strings.Contains(got.NotIsolated, "\n"):
		t.Fatalf("Transcript of %s: the reason %s must be one line without the file's path", what, quote(got.NotIsolated))
	}
}

// readTranscript calls Transcript within the call limit.
func (k *kit) readTranscript(t testing.TB, tr provider.TranscriptReader, r provider.TranscriptRequest) (provider.Transcript, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), k.limits.Call)
	defer cancel()
	var got provider.Transcript
	call := plugintest.GoErr(func() (err error) {
		got, err = tr.Transcript(ctx, r)
		return err
	})
	return got, call.Err(t, "Transcript", k.limits.Call+k.limits.Cancel)
}
