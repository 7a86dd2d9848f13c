package console

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/memhost/memhost/host/internal/api/access"
	"github.com/memhost/memhost/host/internal/api/auth"
)

// SigninLink is POST /console/signin-code's answer: the one-time link `memhost console` prints.
type SigninLink struct {
	// URL is the link as the host saw itself addressed; Path is the same without scheme and
	// host, for a client that knows a better address.
	URL       string    `json:"url"`
	Path      string    `json:"path"`
	ExpiresAt time.Time `json:"expires_at"`
	// Token is the token's name the session will act as.
	Token string `json:"token"`
}

// signinCode mints a one-time sign-in link for the bearer token of the request: the token
// authenticates through the front door as on REST and never travels in the link, which holds
// only a single-use code that expires within minutes.
func (c *Console) signinCode(w http.ResponseWriter, r *http.Request) {
	fail := func(err error) {
		p := access.Classify(err)
		if p.Internal {
			p.Ref = access.NewRef()
			c.Logger.Error("console sign-in code", "ref", p.Ref, "err", err)
		}
		p.WriteHTTP(w)
	}
	p, err := c.Door.AuthenticateRequest(r)
	if err != nil {
		fail(err)
		return
	}
	if err := access.Limit(c.Limits.Writes, p); err != nil {
		fail(err)
		return
	}
	code, expires, err := c.Signin.SigninCode(r.Context(), p)
	if err != nil {
		fail(err)
		return
	}
	path := Prefix + "signin?" + url.Values{"code": {code}}.Encode()
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_ = json.NewEncoder(w).Encode(SigninLink{URL: scheme + "://" + r.Host + path, Path: path, ExpiresAt: expires, Token: p.Name})
}

// signinView is the sign-in page's data.
type signinView struct {
	Code string
}

// signinPage shows the button that spends a sign-in link's code. Opening the link changes
// nothing: the code is spent by a POST from this page, which a cross-site page cannot send
// (checkOrigin), so another site cannot sign the browser into a session of its choosing.
func (c *Console) signinPage(w http.ResponseWriter, r *http.Request) {
	c.render(w, r, nil, http.StatusOK, "signin", signinView{Code: r.URL.Query().Get("code")})
}

// signin spends the code and opens the session.
func (c *Console) signin(w http.ResponseWriter, r *http.Request) {
	if !secureContext(r) {
		c.fail(w, r, nil, errField("address", "the console signs in over https or on a loopback address (127.0.0.1, localhost) only: a browser keeps its Secure session cookie nowhere else; open the link on the host's machine, or put a TLS proxy in front"))
		return
	}
	code := r.PostFormValue("code")
	if code == "" {
		c.fail(w, r, nil, errField("code", "is missing: open the link `memhost console` printed"))
		return
	}
	session, _, err := c.Signin.Redeem(r.Context(), code)
	if err != nil {
		c.fail(w, r, nil, err)
		return
	}
	setSession(w, session)
	http.Redirect(w, r, Prefix, http.StatusSeeOther)
}

// signout ends this browser's session.
func (c *Console) signout(cl *call) error {
	ck, err := cl.r.Cookie(cookieName)
	if err != nil {
		return fmt.Errorf("%w: not signed in", auth.ErrUnauthenticated)
	}
	if err := c.Signin.EndSession(cl.r.Context(), ck.Value); err != nil {
		return err
	}
	clearSession(cl.w, cl.r)
	http.Redirect(cl.w, cl.r, Prefix+"signin?signed_out=1", http.StatusSeeOther)
	return nil
}
