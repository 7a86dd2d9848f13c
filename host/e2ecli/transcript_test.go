//go:build e2ecli

package e2ecli

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/client/transcript"
	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/host/internal/plugins/providers"
	"github.com/memhost/memhost/host/internal/testkit/standin"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
)

// firstLine decodes the first line of a JSONL file into v.
func firstLine(t *testing.T, path string, v any) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	require.True(t, sc.Scan(), path)
	require.NoError(t, json.Unmarshal(sc.Bytes(), v), path)
}

// one returns the one file pattern matches.
func one(t *testing.T, pattern string) string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	require.NoError(t, err)
	require.Len(t, m, 1, pattern)
	return m[0]
}

// requireTranscriptReads: the transcript the real CLI wrote under memhost run passes the
// isolation checks of the CLI's provider plugin and of host/internal/client/transcript and gives the session's prompt and answer; the
// same file outside the session's time window, or for another directory, is refused.
func requireTranscriptReads(t *testing.T, cli, path, id, dir string, start, end time.Time) {
	t.Helper()
	s := transcript.Session{CLI: cli, Path: path, ID: id, Dir: dir, Start: start, End: end}
	r := providerOf(t, cli)
	read := func(s transcript.Session) (transcript.Excerpt, error) {
		turns, err := transcript.Fetch(t.Context(), r, s)
		if err != nil {
			return transcript.Excerpt{}, err
		}
		return turns.Excerpt(0)
	}
	ex, err := read(s)
	require.NoError(t, err, "%s transcript %s", cli, path)
	require.Contains(t, ex.Text, "user: "+prompt)
	require.Contains(t, ex.Text, "assistant: "+doneText)
	before := s
	before.Start, before.End = start.Add(-time.Hour), start.Add(-time.Hour+time.Minute)
	_, err = read(before)
	require.ErrorIs(t, err, transcript.ErrNotIsolated)
	elsewhere := s
	elsewhere.Dir = filepath.Join(dir, "elsewhere")
	_, err = read(elsewhere)
	require.ErrorIs(t, err, transcript.ErrNotIsolated)
}

// TestRealTranscriptsReadForTheSummary: each real CLI run by memhost run writes its transcript
// in the layout its provider plugin reads, with the session id and working directory its
// isolation checks compare.
func TestRealTranscriptsReadForTheSummary(t *testing.T) {
	t.Parallel()
	t.Run("claude", func(t *testing.T) {
		t.Parallel()
		b := setup(t, standin.Anthropic)
		w := newSpawnWorld(t, b)
		start := time.Now()
		requireClaudeResult(t, w.run(t, claudeCode, claudeEnv(t, b), "-p", prompt, "--output-format", "json"))
		path := one(t, filepath.Join(b.home, ".claude", "projects", "*", "*.jsonl"))
		requireTranscriptReads(t, "claude", path, strings.TrimSuffix(filepath.Base(path), ".jsonl"), b.work, start, time.Now())
	})
	t.Run("codex", func(t *testing.T) {
		t.Parallel()
		b := setup(t, standin.Responses)
		w := newSpawnWorld(t, b)
		b.model = newModel(t, standin.Responses, standin.Say(doneText))
		home := codexUserHome(t, b, b.model.URL())
		start := time.Now()
		answer, _ := codexEvents(t, w.run(t, codex, codexEnv(t, b, home), "exec", "--json", "--skip-git-repo-check", prompt))
		require.Equal(t, doneText, answer)
		path := one(t, filepath.Join(home, "sessions", "*", "*", "*", "rollout-*.jsonl"))
		var meta struct {
			Payload struct {
				ID string `json:"id"`
			} `json:"payload"`
		}
		firstLine(t, path, &meta)
		requireTranscriptReads(t, "codex", path, meta.Payload.ID, b.work, start, time.Now())
	})
	t.Run("gemini", func(t *testing.T) {
		t.Parallel()
		b := setup(t, standin.Gemini, standin.Say(doneText))
		w := newSpawnWorld(t, b)
		geminiSettings(t, b, nil)
		start := time.Now()
		geminiResult(t, w.run(t, geminiCLI, geminiRunEnv(t, b, b.model), "-p", prompt, "-o", "json"))
		path := one(t, filepath.Join(b.home, ".gemini", "tmp", "*", "chats", "session-*.jsonl"))
		var head struct {
			SessionID string `json:"sessionId"`
		}
		firstLine(t, path, &head)
		requireTranscriptReads(t, "gemini", path, head.SessionID, b.work, start, time.Now())
	})
}

// journal returns the project's journal entries, newest first, through the host's REST API.
func (w *spawnWorld) journal(t *testing.T, key string) []map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, w.b.host.url+"/api/v1/projects/"+url.PathEscape(key)+"/journal", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+w.admin)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var page struct {
		Entries []map[string]any `json:"entries"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&page))
	return page.Entries
}

// requireHookJournalled requires that the connected CLI's SessionEnd hook journalled one
// session in the project, its real transcript isolated and sent for the summary (the entry
// would say "Not summarised: ..." otherwise).
func requireHookJournalled(t *testing.T, w *spawnWorld, key, cli string) {
	t.Helper()
	var entries []map[string]any
	require.Eventually(t, func() bool { entries = w.journal(t, key); return len(entries) > 0 }, 15*time.Second, 100*time.Millisecond)
	require.Len(t, entries, 1)
	text, _ := entries[0]["text"].(string)
	require.True(t, strings.HasPrefix(text, cli+" session ended after "), text)
	require.NotContains(t, text, "Not summarised", "the hook read the session's own transcript")
	require.NotEmpty(t, entries[0]["session"])
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
	require.NoError(t, sup.Start(t.Context(), plugins.OfKind(cands, providers.Adapter{}.Kind())))
	h, err := providers.Find(sup, cli)
	require.NoError(t, err)
	return h
}
