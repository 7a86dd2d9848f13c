package console

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/api/access"
	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/rules"
)

// call is one signed-in request: who is asking (the session's token) and its form token.
type call struct {
	w    http.ResponseWriter
	r    *http.Request
	p    auth.Principal
	csrf string
}

// maxFormBytes bounds a form: a goal or plan document (memory.max_text_bytes) or a bulk
// selection, with room to spare.
const maxFormBytes = 1 << 20

// handler serves one console page for a signed-in caller.
type handler func(c *call) error

// page wraps h: the session must be signed in and hold scope; every request takes one read
// (GET) or write (POST) from its token's rate limit, as on REST; writes must come from a
// console page (guardWrite); an error is shown as an error page.
func (c *Console) page(scope auth.Scope, h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
		if err := r.ParseForm(); err != nil {
			c.fail(w, r, nil, errField("form", "could not be read (at most %d bytes)", maxFormBytes))
			return
		}
		cl, err := c.signedIn(w, r)
		if err != nil {
			c.fail(w, r, nil, err)
			return
		}
		limit := c.Limits.Reads
		if r.Method != http.MethodGet {
			limit = c.Limits.Writes
			if err := c.checkWrite(r, cl.csrf); err != nil {
				c.fail(w, r, cl, err)
				return
			}
		}
		if err := access.Limit(limit, cl.p); err != nil {
			c.fail(w, r, cl, err)
			return
		}
		if !cl.p.Has(scope) {
			c.fail(w, r, cl, fmt.Errorf("%w: this page needs a token with the %s scope; the console signed in with token %q, which lacks it", auth.ErrForbidden, scope, cl.p.Name))
			return
		}
		if err := h(cl); err != nil {
			c.fail(w, r, cl, err)
		}
	}
}

// fail shows err as an error page with its status, through the front door's one mapping: no
// SQL, path or Go type reaches the page; an internal error is logged under a reference shown
// with it.
func (c *Console) fail(w http.ResponseWriter, r *http.Request, cl *call, err error) {
	p := access.Classify(err)
	if p.Internal {
		p.Ref = access.NewRef()
		c.Logger.Error("console request failed", "method", r.Method, "path", r.URL.Path, "ref", p.Ref, "err", err)
	}
	if p.Status == 499 { // the browser went away
		return
	}
	if p.Status == http.StatusUnauthorized {
		clearSession(w, r)
	}
	c.render(w, r, cl, p.Status, "error", errorPage{Problem: p, SignedIn: cl != nil, Heading: heading(p.Status)})
}

// errorPage is the error template's data.
type errorPage struct {
	Problem  access.Problem
	SignedIn bool
	Heading  string
}

// heading names an error page by its status.
func heading(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return "Not signed in"
	case http.StatusForbidden:
		return "Not allowed"
	case http.StatusNotFound:
		return "Not found"
	case http.StatusBadRequest:
		return "Check the form"
	case http.StatusConflict:
		return "Changed meanwhile"
	case http.StatusTooManyRequests:
		return "Too many requests"
	case http.StatusServiceUnavailable:
		return "Unavailable"
	}
	return "Something went wrong"
}

// notFound answers a console path that names no page.
func (c *Console) notFound(cl *call) error {
	return &pageNotFound{path: cl.r.URL.Path}
}

type pageNotFound struct{ path string }

func (e *pageNotFound) Error() string { return "not found: the console has no page " + e.path }

// Is makes a missing page a not-found through the front door's mapping.
func (e *pageNotFound) Is(target error) bool { return target == rules.ErrNotFound }

// SafeMessage is shown instead of the generic not-found message.
func (e *pageNotFound) SafeMessage() string {
	return "not found: the console has no such page; start again from the console's home"
}

// resolve decides the project of a page through the front door: the token's binding, else the
// project query parameter (or form field).
func (cl *call) resolve() (memory.Access, error) {
	return access.Resolve(cl.p, access.Target{Project: cl.r.FormValue("project")})
}

// idResolver turns a reference in a path (a whole id or a short one) into an id of the
// project: memory.Service.Lookup, brain.Service.ProposalID, brain.Service.ConflictID.
type idResolver func(ctx context.Context, a memory.Access, ref string) (uuid.UUID, error)

// target resolves the page's project and the id its path names.
func (cl *call) target(resolve idResolver) (memory.Access, uuid.UUID, error) {
	acc, err := cl.resolve()
	if err != nil {
		return acc, uuid.Nil, err
	}
	id, err := resolve(cl.r.Context(), acc, cl.r.PathValue("id"))
	return acc, id, err
}

// redirect answers a form with a redirect to a console page (Post/Redirect/Get), with a short
// note the page shows once.
func (cl *call) redirect(to, note string) error {
	if note != "" {
		sep := "?"
		if strings.Contains(to, "?") {
			sep = "&"
		}
		to += sep + "note=" + url.QueryEscape(note)
	}
	http.Redirect(cl.w, cl.r, to, http.StatusSeeOther)
	return nil
}

// back is where a form asks to return to: its "return" field when that is a console page,
// else fallback. Only paths under Prefix are followed, so a form cannot send the browser
// elsewhere.
func (cl *call) back(fallback string) string {
	ret := cl.r.FormValue("return")
	if strings.HasPrefix(ret, Prefix) && !strings.HasPrefix(ret, "//") && !strings.ContainsAny(ret, "\\\r\n") {
		if u, err := url.Parse(ret); err == nil && u.Host == "" && u.Scheme == "" {
			return ret
		}
	}
	return fallback
}

// pageURL is a console page's URL with query parameters (empty values left out).
func pageURL(path string, kv ...string) string {
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			q.Set(kv[i], kv[i+1])
		}
	}
	if len(q) == 0 {
		return Prefix + path
	}
	return Prefix + path + "?" + q.Encode()
}

// errField is a bad form field, shown with the field's name.
func errField(field, format string, args ...any) error {
	return &rules.FieldError{Field: field, Message: fmt.Sprintf(format, args...)}
}

// isNotFound reports whether err means "no such thing here".
func isNotFound(err error) bool { return errors.Is(err, rules.ErrNotFound) }

// problemText is err as the front door would show it.
func problemText(err error) string { return access.Classify(err).Message }
