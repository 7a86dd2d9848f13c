//go:build e2econsole

package e2econsole

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestDecisionsReachAgents: what an operator decides in the browser is what an agent sees
// through MCP: an approved proposal is the goal, a dismissed conflict leaves the inbox, an
// unmerged memory is back, a restored one is live and found, an edit is the memory's text,
// a bulk archive archives the memories selected. Each confirmation dialog is answered.
func TestDecisionsReachAgents(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	b := w.signIn(t, w.admin)

	// Approve the agent's proposal for the goal.
	b.open(w.page("project/proposals/" + w.proposal))
	require.Contains(t, b.text(".diff .after"), "value figures", "the proposed text beside the current one")
	require.Equal(t, 200, b.clickAndWait(`form[action$="/approve"] button`))
	require.Contains(t, b.text(".note"), "approved")
	goal := call[struct {
		Text string `json:"text"`
	}](t, w.agent, "project_goal_get", map[string]any{"project": project})
	require.Equal(t, "Ship the console and the value figures.", goal.Text)
	require.NotEmpty(t, b.dialogs, "approving asked for confirmation")

	// Dismiss the open conflict.
	b.open(w.page("project/conflicts"))
	require.Equal(t, 200, b.clickAndWait(`form[action$="/dismiss"] button`))
	require.Contains(t, b.text(".note"), "dismissed")
	conflicts := call[struct {
		Conflicts []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"conflicts"`
	}](t, w.agent, "memory_conflicts", map[string]any{"project": project})
	for _, c := range conflicts.Conflicts {
		require.NotEqual(t, w.conflict.String(), c.ID, "the dismissed conflict left the open inbox")
	}

	// Unmerge what consolidation merged into "deploy".
	require.NotNil(t, w.get(t, "argo").ArchivedAt)
	b.open(w.page("memories/" + w.facts["deploy"].String()))
	require.Equal(t, 200, b.clickAndWait(`form[action$="/unmerge"] button`))
	require.Contains(t, b.text(".note"), "Unmerged")
	require.Nil(t, w.get(t, "argo").ArchivedAt, "the absorbed memory is back")

	// Restore the archived memory from the Archived tab.
	b.open(w.page("project/archived", "reason", "stale"))
	require.Contains(t, b.text("main"), "Currently debugging")
	require.Equal(t, 200, b.clickAndWait(`form[action$="/restore"] button`))
	require.Nil(t, w.get(t, "stale").ArchivedAt, "restored")
	found := call[struct {
		Hits []struct {
			ID string `json:"id"`
		} `json:"hits"`
	}](t, w.agent, "memory_search", map[string]any{"query": "debugging session.ended event delivery", "project": project})
	require.NotEmpty(t, found.Hits)
	require.Equal(t, w.facts["stale"].String(), found.Hits[0].ID)

	// Edit a memory's text.
	b.open(w.page("memories/" + w.facts["tz"].String()))
	b.do(chromedp.Click(chromedp.CSS("details.editor summary")),
		chromedp.SetValue(chromedp.CSS("#edit-text"), "Tests need TZ=UTC; CI sets it in the workflow."))
	require.Equal(t, 200, b.clickAndWait(`details.editor button[type=submit]`))
	require.Equal(t, "Tests need TZ=UTC; CI sets it in the workflow.", w.get(t, "tz").Text)
	require.Contains(t, b.text("ol.history"), "update", "the edit is in the history")

	// Archive two memories selected on the Memories screen.
	b.open(w.page("memories"))
	b.do(chromedp.Click(chromedp.CSS(`input[value="`+w.facts["svc0"].String()+`"]`)),
		chromedp.Click(chromedp.CSS(`input[value="`+w.facts["svc1"].String()+`"]`)),
		chromedp.SetValue(chromedp.CSS("#bulk-reason"), "services retired"))
	require.Equal(t, 200, b.clickAndWait(`fieldset.bulk-actions button`))
	require.Contains(t, b.text(".note"), "Archived 2 memories")
	require.NotNil(t, w.get(t, "svc0").ArchivedAt)
	require.NotNil(t, w.get(t, "svc1").ArchivedAt)
	require.Nil(t, w.get(t, "svc2").ArchivedAt, "only what was selected")
	require.Empty(t, b.takeProblems())
}
