package spawn

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/host/internal/plugins/providers"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
)

// writeClaudeTranscript writes a Claude Code transcript of session id in dir's project folder
// under home, one user turn at at.
func writeClaudeTranscript(t *testing.T, home, dir, id, text string, at time.Time) string {
	t.Helper()
	folder := filepath.Join(home, ".claude", "projects", strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, dir))
	require.NoError(t, os.MkdirAll(folder, 0o700))
	line, err := json.Marshal(map[string]any{"type": "user", "sessionId": id, "cwd": dir, "timestamp": at.Format(time.RFC3339Nano),
		"message": map[string]any{"role": "user", "content": text}})
	require.NoError(t, err)
	path := filepath.Join(folder, id+".jsonl")
	require.NoError(t, os.WriteFile(path, append(line, '\n'), 0o600))
	return path
}

// TestTheSessionEndHookJournalsTheSessionWithItsTranscript: a session a SessionEnd hook reports
// is journalled in its project with how long it ran (from the start its session-start hook
// recorded) and its own transcript's excerpt; another session's transcript beside it is never
// read; a session whose start was not recorded journals metadata and why; a session shorter
// than brain.quiet_session journals nothing.
func TestTheSessionEndHookJournalsTheSessionWithItsTranscript(t *testing.T) {
	t.Parallel()
	tokens := &fakeTokens{}
	host := newFakeHost(t, tokens)
	root := t.TempDir()
	home, dir, markers := filepath.Join(root, "home"), filepath.Join(root, "project"), filepath.Join(root, "markers")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	now := time.Now()
	start := now.Add(-5 * time.Minute)
	ctx := context.Background()
	claude := providerOf(t, "claude")

	own := writeClaudeTranscript(t, home, dir, "sess-1", "Pin the Go toolchain to 1.25.", start.Add(time.Minute))
	writeClaudeTranscript(t, home, dir, "sess-decoy", "DECOY of another session", start.Add(time.Minute))
	s := HookSession{CLI: "claude", ID: "sess-1", Transcript: own, Dir: dir, Reason: "prompt_input_exit"}
	require.NoError(t, MarkStart(markers, s, start))
	require.NoError(t, EndSession(ctx, &Host{URL: host.srv.URL}, tokens, claude, markers, 0, s, now))
	calls := host.entries()
	require.Len(t, calls, 1)
	require.Equal(t, dir, calls[0].Project)
	require.Equal(t, JournalEntry{Agent: "claude", Session: "sess-1", Text: "claude session ended after 5m0s (prompt_input_exit).",
		Transcript: "user: Pin the Go toolchain to 1.25."}, calls[0].Entry)
	entries, err := os.ReadDir(markers)
	require.NoError(t, err)
	require.Empty(t, entries, "the start marker is used once")

	// The decoy's path handed to the hook is refused: it is another session's file.
	decoy := HookSession{CLI: "claude", ID: "sess-2", Transcript: filepath.Join(filepath.Dir(own), "sess-decoy.jsonl"), Dir: dir}
	require.NoError(t, MarkStart(markers, decoy, start))
	require.NoError(t, EndSession(ctx, &Host{URL: host.srv.URL}, tokens, claude, markers, 0, decoy, now))
	e := host.entries()[1].Entry
	require.Empty(t, e.Transcript)
	require.Equal(t, "the transcript file is not named for session sess-2", e.TranscriptNote)

	unmarked := HookSession{CLI: "claude", ID: "sess-3", Transcript: own, Dir: dir}
	require.NoError(t, EndSession(ctx, &Host{URL: host.srv.URL}, tokens, claude, markers, 0, unmarked, now))
	e = host.entries()[2].Entry
	require.Equal(t, "claude session ended.", e.Text)
	require.Empty(t, e.Transcript)
	require.Contains(t, e.TranscriptNote, "its start was not recorded")

	quick := HookSession{CLI: "claude", ID: "sess-4", Transcript: filepath.Join(home, "none.jsonl"), Dir: dir}
	require.NoError(t, MarkStart(markers, quick, now.Add(-5*time.Second)))
	require.ErrorIs(t, EndSession(ctx, &Host{URL: host.srv.URL}, tokens, claude, markers, 0, quick, now), ErrNothingToJournal)
	require.Len(t, host.entries(), 3)

	// brain.quiet_session holds for hooked sessions as for memhost run's: a session of a second
	// is not journalled (so not summarised) though its transcript reads; 0s journals it.
	brief := HookSession{CLI: "claude", ID: "sess-6", Transcript: writeClaudeTranscript(t, home, dir, "sess-6", "hi", now.Add(-time.Second)), Dir: dir}
	require.NoError(t, MarkStart(markers, brief, now.Add(-time.Second)))
	require.ErrorIs(t, EndSession(ctx, &Host{URL: host.srv.URL}, tokens, claude, markers, 0, brief, now), ErrNothingToJournal)
	require.NoError(t, MarkStart(markers, brief, now.Add(-time.Second)))
	require.ErrorIs(t, EndSession(ctx, &Host{URL: host.srv.URL}, tokens, claude, markers, 500*time.Millisecond+time.Second, brief, now), ErrNothingToJournal)
	require.Len(t, host.entries(), 3)
	require.NoError(t, MarkStart(markers, brief, now.Add(-time.Second)))
	require.NoError(t, EndSession(ctx, &Host{URL: host.srv.URL}, tokens, claude, markers, time.Nanosecond, brief, now))
	require.Equal(t, "user: hi", host.entries()[3].Entry.Transcript)

	// A marker no end hook took is swept after a week.
	require.NoError(t, MarkStart(markers, HookSession{CLI: "gemini", ID: "orphan"}, now))
	week := now.Add(-8 * 24 * time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(markers, "gemini-orphan"), week, week))
	require.NoError(t, MarkStart(markers, HookSession{CLI: "claude", ID: "sess-5"}, now))
	require.NoFileExists(t, filepath.Join(markers, "gemini-orphan"))
	require.FileExists(t, filepath.Join(markers, "claude-sess-5"))

	// A session id that is not a plain name records nothing.
	require.NoError(t, MarkStart(markers, HookSession{CLI: "claude", ID: "../escape"}, now))
	_, err = os.Stat(filepath.Join(root, "escape"))
	require.True(t, os.IsNotExist(err))
}

// TestHookPromptIsTheUsersWords: Gemini CLI's BeforeAgent prompt opens with the context earlier
// hooks gave (memhost's banner, in <hook_context> tags); the search is for the user's words.
func TestHookPromptIsTheUsersWords(t *testing.T) {
	t.Parallel()
	require.Equal(t, "fix the flaky login test", HookPrompt("<hook_context># memhost project memory\n- [1234abcd] fact: x\n</hook_context>\n\nfix the flaky login test"))
	require.Equal(t, "fix it", HookPrompt("fix it"))
	require.Empty(t, HookPrompt("<hook_context>only context</hook_context>"))
}

// providerOf starts the repository's provider plugin of cli, a real process, for the test.
func providerOf(t *testing.T, cli string) *providers.Handle {
	t.Helper()
	sup := plugins.New(plugins.Config{
		Adapters: []plugins.Adapter{providers.Adapter{}}, HealthInterval: -1,
		Logger: hclog.New(&hclog.LoggerOptions{Output: os.Stderr, Level: hclog.Error}),
	})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, sup.Shutdown(ctx))
	})
	cands, errs := plugins.Discover([]string{testplugins.Providers(t)}, nil)
	require.Empty(t, errs)
	cands = plugins.OfKind(cands, providers.Adapter{}.Kind())
	require.NoError(t, sup.Start(t.Context(), cands))
	h, err := providers.Find(sup, cli)
	require.NoError(t, err)
	return h
}
