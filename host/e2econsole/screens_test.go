//go:build e2econsole

package e2econsole

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/stretchr/testify/require"
)

// TestEveryScreen signs in with the operator's token and opens every screen: each loads with
// no console error and no failed request, and passes axe-core with no serious or critical
// violation. The session cookie is Secure, HttpOnly and SameSite=Strict, and Chromium keeps it
// on http://127.0.0.1 (loopback is a potentially trustworthy origin).
func TestEveryScreen(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	b := w.signIn(t, w.admin)
	b.check("home")
	b.shot("home")
	cookies := b.cookies(w.h.url + "/console/")
	require.Len(t, cookies, 1, "the session cookie")
	c := cookies[0]
	require.Equal(t, "memhost_console", c.Name)
	require.True(t, c.Secure, "Secure")
	require.True(t, c.HTTPOnly, "HttpOnly")
	require.Equal(t, "Strict", c.SameSite.String())
	require.Contains(t, b.text("main"), project)

	screens := []struct{ name, url string }{
		{"memories", w.page("memories")},
		{"memories-search", w.page("memories", "q", "which package manager do we use")},
		{"memories-filtered", w.page("memories", "origin", "agent", "kind", "fact")},
		{"memory", w.page("memories/" + w.facts["deploy"].String())},
		{"memory-archived", w.page("memories/" + w.facts["stale"].String())},
		{"bulk-archive", w.page("memories/archive", "q", "service queue")},
		{"live", w.page("live")},
		{"project-goal", w.page("project/goal")},
		{"project-plan", w.page("project/plan")},
		{"project-proposals", w.page("project/proposals")},
		{"proposal", w.page("project/proposals/" + w.proposal)},
		{"project-conflicts", w.page("project/conflicts")},
		{"project-archived", w.page("project/archived")},
		{"project-journal", w.page("project/journal")},
		{"project-map", w.page("project/map")},
		{"project-banner", w.page("project/banner")},
		{"health", w.page("health")},
		{"plots", w.page("plots")},
	}
	for _, s := range screens {
		b.open(s.url)
		if s.name == "memories-search" {
			// Show a score taken apart, as an operator opens it.
			b.do(chromedp.Click(chromedp.CSS("details.terms summary")))
		}
		b.check(s.name)
		b.shot(s.name)
	}
}
