package console_test

import (
	"context"
	"html"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
)

// TestProjectScreen: the goal editor sets the goal; a proposal shows beside the current text
// and approving it makes it the goal; a conflict is dismissed from its inbox; the banner tab
// holds exactly the banner the host renders for the same CLI.
func TestProjectScreen(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	agent := memory.Access{Project: projectA, Actor: "agent"}
	c := b.signIn(t, b.token(t, "", auth.ScopeAdmin))
	c.get("/console/project/goal" + q(projectA))
	status, page := c.post("/console/project/goal", url.Values{"project": {projectA}, "text": {"Ship the console.\r\nThen the value figures."}})
	require.Equal(t, 200, status, page)
	d, err := b.brain.Document(ctx, agent, store.KindGoal)
	require.NoError(t, err)
	require.Equal(t, "Ship the console.\nThen the value figures.", d.Text, "a textarea's CRLF is the text's LF")

	p, err := b.brain.Propose(ctx, agent, brainProposal("goal", "Ship the console, then measure it."))
	require.NoError(t, err)
	status, page = c.get("/console/project/proposals/" + p.Proposal.ID.String() + q(projectA))
	require.Equal(t, 200, status)
	require.Contains(t, page, "<ins>")
	status, page = c.post("/console/project/proposals/"+p.Proposal.ID.String()+"/approve", url.Values{"project": {projectA}})
	require.Equal(t, 200, status, page)
	d, err = b.brain.Document(ctx, agent, store.KindGoal)
	require.NoError(t, err)
	require.Equal(t, "Ship the console, then measure it.", d.Text)

	x := b.fact(t, projectA, "We use pnpm.")
	y := b.fact(t, projectA, "We use npm.")
	id := uuid.Must(uuid.NewV7())
	_, err = b.store.FileConflict(ctx, store.Conflict{ID: id, ScopeKey: projectA, MemoryA: x.ID, MemoryB: y.ID, TextA: "We use pnpm.", TextB: "We use npm.",
		Evidence: "two package managers", Severity: "high", CreatedAt: time.Now().UTC()})
	require.NoError(t, err)
	status, page = c.post("/console/project/conflicts/"+id.String()+"/accept", url.Values{"project": {projectA}, "archive": {y.ID.String()}})
	require.Equal(t, 200, status, page)
	v, err := b.brain.Conflict(ctx, agent, id)
	require.NoError(t, err)
	require.Equal(t, "accepted", v.Status)
	yv, err := b.mem.Peek(ctx, agent, y.ID)
	require.NoError(t, err)
	require.NotNil(t, yv.ArchivedAt, "accepting archived the side chosen")

	want, err := b.brain.Banner(ctx, agent, brain.BannerRequest{CLI: "codex"})
	require.NoError(t, err)
	status, page = c.get("/console/project/banner" + q(projectA) + "&cli=codex")
	require.Equal(t, 200, status)
	require.Contains(t, page, html.EscapeString(want.Text), "the preview is the banner, escaped for HTML and nothing else")
	require.Contains(t, page, strconv.Itoa(want.Tokens))
	status, page = c.get("/console/project/banner" + q(projectA) + "&cli=vim")
	require.Equal(t, 400, status)
	require.Contains(t, page, "<code>cli</code>")

	for _, tab := range []string{"plan", "conflicts", "archived", "journal", "map", "proposals"} {
		status, _ := c.get("/console/project/" + tab + q(projectA))
		require.Equal(t, 200, status, tab)
	}
	status, _ = c.get("/console/project/nonsense" + q(projectA))
	require.Equal(t, 404, status)
}

// TestEditForm: the editor saves a memory's new text; an edit of a version changed since the
// page was opened is refused, with what to do, and changes nothing.
func TestEditForm(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	m := b.fact(t, projectA, "Tests need TZ=UTC.")
	c := b.signIn(t, b.token(t, "", auth.ScopeRead, auth.ScopeWrite))
	c.get("/console/memories/" + m.ID.String() + q(projectA))
	version := strconv.FormatInt(m.Memory.UpdatedAt.UnixMicro(), 10)
	status, page := c.post("/console/memories/"+m.ID.String()+"/edit", url.Values{"project": {projectA}, "version": {version},
		"text": {"Tests need TZ=UTC; CI sets it."}, "kind": {"gotcha"}, "importance": {"0.9"}})
	require.Equal(t, 200, status, page)
	v, err := b.mem.Peek(ctx, memory.Access{Project: projectA}, m.ID)
	require.NoError(t, err)
	require.Equal(t, "Tests need TZ=UTC; CI sets it.", v.Text)
	require.Equal(t, store.KindGotcha, v.Kind)

	status, page = c.post("/console/memories/"+m.ID.String()+"/edit", url.Values{"project": {projectA}, "version": {version}, "text": {"Something else."}})
	require.Equal(t, 409, status)
	require.Contains(t, page, "changed since you opened it")
	status, page = c.post("/console/memories/"+m.ID.String()+"/edit", url.Values{"project": {projectA}, "importance": {"lots"}})
	require.Equal(t, 400, status)
	require.Contains(t, page, "<code>importance</code>")
	v, err = b.mem.Peek(ctx, memory.Access{Project: projectA}, m.ID)
	require.NoError(t, err)
	require.Equal(t, "Tests need TZ=UTC; CI sets it.", v.Text, "refused edits change nothing")
}

// TestPlots: the plots draw the project's daily activity and its facts by use from the host's
// figures, as SVG with their figures in a table.
func TestPlots(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, s := range []string{"We use pnpm.", "Tests need TZ=UTC.", "Deploys go through ArgoCD."} {
		b.fact(t, projectA, s)
	}
	c := b.signIn(t, b.token(t, "", auth.ScopeAdmin))
	status, page := c.get("/console/plots" + q(projectA))
	require.Equal(t, 200, status)
	require.Contains(t, page, `<svg class="chart"`)
	require.Contains(t, page, "Facts added, folded, merged and archived per day")
	require.Contains(t, page, "<td>"+time.Now().UTC().Format("2006-01-02")+"</td><td>3</td>", "three facts added today, as the ledger counts them")
	require.Contains(t, page, "LLM worker calls per day")
}
