package console_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/brain"
)

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	require.NoError(t, err)
	return u
}

func newJar() http.CookieJar {
	j, _ := cookiejar.New(nil)
	return j
}

// mintCode asks for a sign-in code with token and returns it.
func mintCode(t *testing.T, b *bundle, token string) string {
	t.Helper()
	req, _ := http.NewRequest("POST", b.srv.URL+"/console/signin-code", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body := readAll(t, resp)
	require.Equal(t, 200, resp.StatusCode, body)
	return regexp.MustCompile(`mhc_[A-Za-z0-9_-]{43}`).FindString(body)
}

// mustPost is a form POST with an Origin header.
func mustPost(t *testing.T, target string, form url.Values, origin string) *http.Request {
	t.Helper()
	req, err := http.NewRequest("POST", target, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", origin)
	return req
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

// brainProposal is an agent's proposal.
func brainProposal(layer, text string) brain.ProposeRequest {
	return brain.ProposeRequest{Layer: layer, Text: text, Agent: "codex"}
}
