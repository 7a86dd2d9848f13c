//go:build e2econsole

package e2econsole

import (
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// memoryView is what memory_get answers, in part.
type memoryView struct {
	ID         string     `json:"id"`
	Text       string     `json:"text"`
	Kind       string     `json:"kind"`
	ArchivedAt *time.Time `json:"archived_at"`
	Pinned     bool       `json:"pinned"`
}

// get reads a memory through MCP, as an agent would.
func (w *world) get(t *testing.T, name string) memoryView {
	t.Helper()
	return call[memoryView](t, w.agent, "memory_get", map[string]any{"id": w.facts[name].String(), "project": project})
}

// TestForgedCrossSiteWriteIsRefused: a page on another origin (127.0.0.1 on another port:
// same site, so the Strict cookie goes along) that posts a console form is refused by the
// origin check, even with the session's own form token; a post from the console's origin
// without the form token is refused by the token check. Nothing changes either way.
func TestForgedCrossSiteWriteIsRefused(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	b := w.signIn(t, w.admin)
	target := w.h.url + "/console/memories/" + w.facts["pnpm"].String() + "/archive"
	b.open(w.page("memories/" + w.facts["pnpm"].String()))
	token := get(b, chromedp.Evaluate[string](`document.querySelector("input[name=csrf]").value`))
	require.NotEmpty(t, token)

	for _, csrf := range []string{"forged", token} {
		evil := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) {
			fmt.Fprintf(rw, `<!doctype html><html><body><form id="f" method="post" action="%s">
<input type="hidden" name="project" value="%s"><input type="hidden" name="csrf" value="%s"><input type="hidden" name="reason" value="pwned"></form>
<script>document.getElementById("f").submit()</script></body></html>`, html.EscapeString(target), html.EscapeString(project), html.EscapeString(csrf))
		}))
		b.expect(403)
		status := b.landOn(evil.URL, target)
		evil.Close()
		require.Equal(t, 403, status, "a write from another origin is refused")
		require.Contains(t, b.text("main"), "did not come from a memhost console page")
		require.Nil(t, w.get(t, "pnpm").ArchivedAt, "nothing was archived")
	}

	// From the console's own origin, a form whose token is missing is refused.
	b.open(w.page("memories/" + w.facts["pnpm"].String()))
	b.expect(403)
	b.do(chromedp.Evaluate[chromedp.Void](`document.querySelectorAll("input[name=csrf]").forEach(i => i.value = "")`))
	status := b.clickAndWait(`form[action$="/archive"] button`)
	require.Equal(t, 403, status)
	require.Nil(t, w.get(t, "pnpm").ArchivedAt)
	b.takeProblems()
}

// TestBoundAndReadOnlySessions: a session of a token bound to one project opens that project
// and is refused another (a page naming it, a memory of it by id, its live feed events); a
// session of a read-only token sees pages without their controls and is refused a change it
// forges from the console's own origin with its own form token. The host-wide parts of health
// are not shown to either.
func TestBoundAndReadOnlySessions(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	bound := w.h.token("--scopes", "memory:read,memory:write,admin", "--project", project, "--name", "bound-operator")
	b := w.signIn(t, bound)
	require.Contains(t, b.location(), "/console/memories?project="+url.QueryEscape(project), "a bound session lands on its project")
	b.check("bound-home")

	b.expect(403)
	b.open(w.h.url + "/console/memories?project=" + url.QueryEscape(other))
	require.Equal(t, 403, b.lastStatus())
	require.Contains(t, b.text("main"), "bound to project")
	b.takeProblems()
	otherID := call[storedMemory](t, w.agent, "memory_store", map[string]any{"text": "The elsewhere project deploys on Fridays.", "project": other})
	b.expect(404)
	b.open(w.page("memories/" + otherID.ID))
	require.Equal(t, 404, b.lastStatus(), "another project's memory is not found, even by its id")
	b.takeProblems()
	b.expect()
	b.open(w.page("health"))
	require.NotContains(t, b.text("main"), "memhost-embedder-bm25", "no plugin internals")
	b.check("bound-health")

	reader := w.h.token("--scopes", "memory:read", "--name", "read-only")
	r := w.signIn(t, reader)
	r.check("read-only-home")
	r.open(w.page("memories/" + w.facts["tz"].String()))
	r.check("read-only-memory")
	require.NotContains(t, r.text("main"), "Change it", "no controls for a token that cannot change")
	r.expect(403)
	status := r.eval(`fetch(location.pathname + "/archive", {method: "POST", headers: {"Content-Type": "application/x-www-form-urlencoded"},
		body: new URLSearchParams({project: "` + project + `", csrf: document.querySelector("input[name=csrf]").value})}).then(r => String(r.status))`)
	require.Equal(t, "403", status, "read-only: the change is refused")
	require.Nil(t, w.get(t, "tz").ArchivedAt)
	r.takeProblems()
}
