package hostclient_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/brain/banner"
	"github.com/memhost/memhost/host/internal/client/hostclient"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/wire"
)

// TestClientReadsTheHostsAnswers: a JSON answer is decoded, a text answer copied into a buffer,
// and the banner and journal helpers reach their routes.
func TestClientReadsTheHostsAnswers(t *testing.T) {
	t.Parallel()
	h := startHost(t)
	ctx := context.Background()
	_, err := h.core.Brain.SetDocument(ctx, operator(projectA), store.KindGoal, brain.SetRequest{Text: "Ship the client's tests."})
	require.NoError(t, err)
	c := h.client()
	tok := h.token(t, projectA, auth.ScopeRead, auth.ScopeWrite)

	var goal brain.DocumentView
	require.NoError(t, c.Do(ctx, http.MethodGet, hostclient.ProjectPath(projectA, "goal"), tok, nil, &goal))
	require.Equal(t, "Ship the client's tests.", goal.Text)
	require.Equal(t, projectA, goal.Project, "the key's slashes travel as one escaped path segment")

	var text bytes.Buffer
	require.NoError(t, c.Do(ctx, http.MethodGet, hostclient.ProjectPath(projectA, "banner")+"?format=text", tok, nil, &text))
	require.Contains(t, text.String(), "Ship the client's tests.")
	banner, err := c.Banner(ctx, tok, projectA, wire.BannerRequest{CLI: "codex"})
	require.NoError(t, err)
	require.Contains(t, banner, "Ship the client's tests.")
	require.Contains(t, banner, "mcp__memhost__memory_store", "the banner names the tools as the CLI shows them")

	require.NoError(t, c.Journal(ctx, tok, projectA, hostclient.JournalEntry{Text: "Wrote the client's tests.", Agent: "codex", Session: "s-1"}))
	page, err := h.core.Brain.Journal(ctx, operator(projectA), brain.JournalQuery{})
	require.NoError(t, err)
	require.Len(t, page.Entries, 1)
	require.Equal(t, "codex", page.Entries[0].Agent)
	require.NoError(t, c.Do(ctx, http.MethodGet, hostclient.ProjectPath(projectA, "goal"), tok, nil, nil), "a nil out ignores the answer")
}

// TestClientMapsTheHostsRefusals: a refusal comes back as the host's own message (wire's error
// body), never its JSON; a refused token is ErrRefused; Call hands back any status as it came.
func TestClientMapsTheHostsRefusals(t *testing.T) {
	t.Parallel()
	h := startHost(t)
	ctx := context.Background()
	c := h.client()
	reader := h.token(t, projectA, auth.ScopeRead)

	err := c.Do(ctx, http.MethodGet, hostclient.ProjectPath(projectA, "banner")+"?budget=5", reader, nil, nil)
	require.EqualError(t, err, fmt.Sprintf("host refused: budget: 5 is out of range %d..%d tokens", banner.MinBudget, banner.MaxBudget))
	require.False(t, errors.Is(err, hostclient.ErrRefused))

	err = c.Do(ctx, http.MethodPut, hostclient.ProjectPath(projectA, "goal"), reader, []byte(`{"text":"x"}`), nil)
	require.ErrorContains(t, err, "host refused: ")
	require.ErrorContains(t, err, "admin")

	err = c.Do(ctx, http.MethodGet, hostclient.ProjectPath(projectA, "goal"), "mh_"+"not-a-token", nil, nil)
	require.ErrorIs(t, err, hostclient.ErrRefused)
	require.ErrorContains(t, err, "invalid, expired or revoked token")

	_, err = c.Banner(ctx, reader, "github.com/acme/other", wire.BannerRequest{CLI: "claude"})
	require.ErrorContains(t, err, "fetch the banner: host refused: ", "a bound token reaches its own project only")

	status, body, err := c.Call(ctx, http.MethodGet, "/api/v1/status", "", nil)
	require.NoError(t, err, "Call reports a refusal as a status, not an error")
	require.Equal(t, http.StatusUnauthorized, status)
	require.Contains(t, string(body), `"error"`)

	// Answers that carry no error body still say what happened.
	require.Equal(t, hostclient.ErrRefused, hostclient.AnswerError(http.StatusUnauthorized, nil))
	require.EqualError(t, hostclient.AnswerError(http.StatusBadGateway, []byte("<html>bad gateway</html>")), "host answered 502 Bad Gateway")
	require.EqualError(t, hostclient.AnswerError(http.StatusConflict, []byte(`{"error":{"code":"conflict","message":"proposal already approved"}}`)),
		"host refused: proposal already approved")
}

// TestClientTellsNoHostFromASlowOne: only a refused dial is ErrUnreachable (the caller may fall
// back); a host that does not answer within Timeout is an error to report, and the call returns
// at the deadline.
func TestClientTellsNoHostFromASlowOne(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	none := &hostclient.Client{URL: closedURL(t)}
	err := none.Do(ctx, http.MethodGet, "/healthz", "", nil, nil)
	require.ErrorIs(t, err, hostclient.ErrUnreachable)
	require.ErrorContains(t, err, none.URL)

	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(func() { close(release); slow.Close() })
	c := &hostclient.Client{URL: slow.URL, Timeout: 200 * time.Millisecond}
	start := time.Now()
	err = c.Do(ctx, http.MethodGet, "/api/v1/status", "", nil, nil)
	took := time.Since(start)
	require.Error(t, err)
	require.False(t, errors.Is(err, hostclient.ErrUnreachable), "a slow host is not a missing one: %v", err)
	require.True(t, strings.HasPrefix(err.Error(), "call the host at "+slow.URL), err.Error())
	require.Less(t, took, 5*time.Second, "the call ends at its timeout")

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	err = (&hostclient.Client{URL: slow.URL}).Do(cctx, http.MethodGet, "/api/v1/status", "", nil, nil)
	require.Error(t, err, "a cancelled context ends the call")
}
