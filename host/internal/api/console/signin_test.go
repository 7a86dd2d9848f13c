package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
)

// TestSignin: a token mints a one-time link; spending it sets a Secure, HttpOnly,
// SameSite=Strict session cookie scoped to the console and signs the browser in; the link
// works once; opening it changes nothing until the page's button is pressed; a sign-in on a
// plain-http address that is not loopback is refused (the browser would drop the cookie);
// signing out ends the session; a page without a session asks to sign in, naming no internal.
func TestSignin(t *testing.T) {
	t.Parallel()
	b := setup(t)
	admin := b.token(t, "", auth.ScopeAdmin)

	req, _ := http.NewRequest("POST", b.srv.URL+"/console/signin-code", nil)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 401, resp.StatusCode, "a sign-in link needs a token")

	c := b.signIn(t, admin)
	var session *http.Cookie
	for _, ck := range c.http.Jar.Cookies(mustURL(t, b.srv.URL+"/console/")) {
		session = ck
	}
	require.NotNil(t, session)
	status, page := c.get("/console/")
	require.Equal(t, 200, status)
	require.Contains(t, page, "Token <strong>tester</strong>")

	// The raw Set-Cookie: its flags.
	code := mintCode(t, b, admin)
	form := url.Values{"code": {code}}
	req, _ = http.NewRequest("POST", b.srv.URL+"/console/signin", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", b.srv.URL)
	resp, err = http.DefaultTransport.RoundTrip(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 303, resp.StatusCode)
	set := resp.Header.Get("Set-Cookie")
	for _, want := range []string{"memhost_console=mhs_", "Path=/console/", "HttpOnly", "Secure", "SameSite=Strict"} {
		require.Contains(t, set, want)
	}
	// The same code again: spent.
	resp, err = http.DefaultTransport.RoundTrip(mustPost(t, b.srv.URL+"/console/signin", form, b.srv.URL))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 401, resp.StatusCode, "a link works once")

	// Opening a link spends nothing: the page has a button.
	code = mintCode(t, b, admin)
	resp, err = http.Get(b.srv.URL + "/console/signin?code=" + code)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	fresh := &client{t: t, b: b, http: &http.Client{Jar: newJar()}}
	status, _ = fresh.post("/console/signin", url.Values{"code": {code}})
	require.Equal(t, 200, status, "the code was still good after the link was opened")

	// Plain http on an address browsers do not trust: refused with why.
	code = mintCode(t, b, admin)
	req = mustPost(t, b.srv.URL+"/console/signin", url.Values{"code": {code}}, "http://memhost.example:7420")
	req.Host = "memhost.example:7420"
	resp, err = http.DefaultTransport.RoundTrip(req)
	require.NoError(t, err)
	body := readAll(t, resp)
	require.Equal(t, 400, resp.StatusCode)
	require.Contains(t, body, "loopback address")

	// Sign out ends the session on the host, not just in this browser.
	status, _ = c.post("/console/signout", url.Values{})
	require.Equal(t, 200, status)
	replay := &client{t: t, b: b, http: &http.Client{Jar: newJar()}}
	replay.http.Jar.SetCookies(mustURL(t, b.srv.URL+"/console/"), []*http.Cookie{session})
	status, page = replay.get("/console/memories" + q(projectA))
	require.Equal(t, 401, status, "a signed-out session's cookie opens nothing")
	require.Contains(t, page, "memhost console")
	require.NotContains(t, page, "mhs_")
}

// TestPagesNeedASession: every page and the live feed answer 401 without a session, and a
// write without one changes nothing.
func TestPagesNeedASession(t *testing.T) {
	t.Parallel()
	b := setup(t)
	m := b.fact(t, projectA, "We use pnpm, never npm.")
	anon := &client{t: t, b: b, http: &http.Client{Jar: newJar()}}
	for _, p := range []string{"/console/", "/console/memories" + q(projectA), "/console/memories/" + m.ID.String() + q(projectA),
		"/console/project/goal" + q(projectA), "/console/health", "/console/plots", "/console/live", "/console/feed"} {
		status, _ := anon.get(p)
		require.Equal(t, 401, status, p)
	}
	status, _ := anon.post("/console/memories/"+m.ID.String()+"/archive", url.Values{"project": {projectA}})
	require.Equal(t, 401, status)
}
