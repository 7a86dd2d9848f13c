package console

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/memhost/memhost/host/internal/api/auth"
)

// cookieName holds the session id; the cookie is Secure, HttpOnly, SameSite=Strict and
// scoped to the console's path.
const cookieName = "memhost_console"

// csrfField is the form field every console form carries its session's form token in.
const csrfField = "csrf"

// secureHeaders are set on every console answer: scripts and styles are the console's own
// (contentSecurityPolicy: no other inline code, so an injected tag runs nothing), no framing,
// no referrer (a sign-in link's code never leaves in one), no sniffing, and pages never cached.
func secureHeaders(h http.Header) {
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
}

// formToken is the per-session token every form carries: derived from the session id, which
// only the browser holding the cookie knows, so another site can neither read nor forge it.
func formToken(session string) string {
	sum := sha256.Sum256([]byte("memhost console form\x00" + session))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// signedIn authenticates the request's session cookie through the front door.
func (c *Console) signedIn(w http.ResponseWriter, r *http.Request) (*call, error) {
	ck, err := r.Cookie(cookieName)
	if err != nil || ck.Value == "" {
		return nil, fmt.Errorf("%w: sign in first: run `memhost console` and open the link it prints", auth.ErrUnauthenticated)
	}
	p, err := c.Door.AuthenticateSession(r.Context(), ck.Value)
	if err != nil {
		return nil, err
	}
	return &call{w: w, r: r, p: p, csrf: formToken(ck.Value)}, nil
}

// errForged is a write refused because it did not come from a console page.
var errForged = fmt.Errorf("%w: this change did not come from a memhost console page (cross-site or forged request); nothing was changed", auth.ErrForbidden)

// checkOrigin refuses a write a browser sent from another origin: the browser's Sec-Fetch-Site
// or Origin must say it came from the console's own origin. A write with neither is refused
// too: every browser that runs the console sends them.
func (c *Console) checkOrigin(r *http.Request) error {
	if r.Header.Get("Sec-Fetch-Site") == "" && r.Header.Get("Origin") == "" {
		return errForged
	}
	if err := c.cop.Check(r); err != nil {
		return errForged
	}
	return nil
}

// checkWrite is every signed-in write's guard: the origin, and the form token of the session.
func (c *Console) checkWrite(r *http.Request, want string) error {
	if err := c.checkOrigin(r); err != nil {
		return err
	}
	got := r.PostFormValue(csrfField)
	if subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
		return errForged
	}
	return nil
}

// guardWrite guards a write made before there is a session (signing in): the origin alone, so
// another site cannot sign a browser into a session of its choosing.
func (c *Console) guardWrite(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := c.checkOrigin(r); err != nil {
			c.fail(w, r, nil, err)
			return
		}
		h(w, r)
	}
}

// setSession gives the browser its session cookie.
func setSession(w http.ResponseWriter, session string) {
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: session, Path: Prefix, Secure: true, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, MaxAge: int(auth.SessionTTL.Seconds())})
}

// clearSession has the browser forget its session cookie.
func clearSession(w http.ResponseWriter, r *http.Request) {
	if _, err := r.Cookie(cookieName); err != nil {
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: Prefix, Secure: true, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, MaxAge: -1})
}

// secureContext reports whether a browser keeps a Secure cookie for this request's origin:
// https (here or at a proxy in front that says so), or a loopback host, which browsers treat
// as potentially trustworthy over plain http.
func secureContext(r *http.Request) bool {
	if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
		return true
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
