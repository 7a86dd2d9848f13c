package restapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
)

// TestJournalTakesTheSessionsTranscriptOrWhyNot: a journal entry carries the reason its session
// has no transcript; a transcript sent to a host that does not summarise is not kept and the
// entry says so; a transcript over its limit, or one sent with a note, is refused naming the
// field and the limit, storing nothing.
func TestJournalTakesTheSessionsTranscriptOrWhyNot(t *testing.T) {
	t.Parallel()
	b, count := setupProjects(t)
	agent := b.token(t, projA, auth.ScopeRead, auth.ScopeWrite)
	body := func(fields map[string]string) string {
		out, err := json.Marshal(fields)
		require.NoError(t, err)
		return string(out)
	}

	r := b.do(t, agent, "POST", at(projA, "journal"), body(map[string]string{"text": "claude session ended after 3m with exit code 0.",
		"transcript_note": "the transcript's working directory is not the project's"}))
	require.Equal(t, http.StatusCreated, r.status, r.body)
	require.Equal(t, "claude session ended after 3m with exit code 0.\nNot summarised: the transcript's working directory is not the project's",
		r.body["entry"].(map[string]any)["text"])

	r = b.do(t, agent, "POST", at(projA, "journal"), body(map[string]string{"text": "codex session ended after 5m with exit code 0.",
		"transcript": "user: hi\nassistant: hello"}))
	require.Equal(t, http.StatusCreated, r.status, r.body)
	require.Equal(t, "codex session ended after 5m with exit code 0.\nNot summarised: this host does not summarise sessions",
		r.body["entry"].(map[string]any)["text"])
	require.Zero(t, count(`SELECT count(*) FROM session_transcripts`))

	for name, c := range map[string]struct {
		fields       map[string]string
		field, limit string
	}{
		"transcript too long": {map[string]string{"text": "s", "transcript": strings.Repeat("x", 64<<10+1)}, "transcript", "the limit is 65536 bytes"},
		"both":                {map[string]string{"text": "s", "transcript": "user: hi", "transcript_note": "why"}, "transcript_note", "send one or the other"},
		"note too long":       {map[string]string{"text": "s", "transcript_note": strings.Repeat("n", 501)}, "transcript_note", "the limit is 500 bytes"},
	} {
		r := b.do(t, agent, "POST", at(projA, "journal"), body(c.fields))
		require.Equal(t, http.StatusBadRequest, r.status, name)
		_, field, msg := errField(r)
		require.Equal(t, c.field, field, name)
		require.Contains(t, msg, c.limit, name)
	}
	require.Equal(t, 2, count(`SELECT count(*) FROM memories WHERE kind = 'journal'`))
}
