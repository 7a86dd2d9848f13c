package console_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/shortid"
)

// sessionWorld records two sessions in projectA as the host records them: the first stores a
// fact after spending tokens finding it (and writes under its own session id), the second is
// given it in its banner, searches and reads another fact, and cites the first.
func sessionWorld(t *testing.T, b *bundle) (stored, read memory.StoreResult) {
	t.Helper()
	ctx := context.Background()
	agent := memory.Access{Project: projectA, Actor: "agent"}
	start := time.Now().UTC().Add(-time.Hour)
	var err error
	stored, err = b.mem.Store(ctx, agent, memory.StoreRequest{Text: "The payments service retries webhooks five times, then parks them in the dead-letter table.",
		Source: "mcp", Agent: "claude-code", Session: "cli-one"})
	require.NoError(t, err)
	tokens, found := int64(52000), int64(48000)
	_, err = b.brain.EndSession(ctx, agent, brain.SessionEnd{Session: brain.SessionRef{Key: "run-one", CLI: "claude", Origin: "run"}, CLISession: "cli-one",
		StartedAt: start, EndedAt: start.Add(10 * time.Minute), Tokens: &tokens,
		Stored: []brain.StoredFact{{ID: shortid.Of(stored.ID), Tokens: &found}}})
	require.NoError(t, err)

	second := brain.SessionRef{Key: "run-two", CLI: "codex", Origin: "run"}
	_, err = b.brain.Banner(ctx, agent, brain.BannerRequest{CLI: "codex", Session: second})
	require.NoError(t, err)
	read = b.fact(t, projectA, "Feature flags live in config/flags.yaml and are read at start.")
	require.NoError(t, b.brain.Record(ctx, agent, second, []brain.Use{{ID: read.ID, Event: "retrieved", Channel: "search", Tokens: 17}}))
	_, err = b.brain.EndSession(ctx, agent, brain.SessionEnd{Session: second, StartedAt: time.Now().UTC().Add(-5 * time.Minute),
		Cited: []string{shortid.Of(stored.ID)}})
	require.NoError(t, err)
	return stored, read
}

// TestSessionsScreen: the Sessions screen lists the project's sessions with the host's counts
// and its value figures (brain.Value's own numbers); a session's page shows what it was given,
// searched and read, stored and cited; its link lists what it wrote; a bad window names the
// field.
func TestSessionsScreen(t *testing.T) {
	t.Parallel()
	b := setup(t)
	stored, read := sessionWorld(t, b)
	c := b.signIn(t, b.token(t, "", auth.ScopeRead))

	status, page := c.get("/console/sessions" + q(projectA))
	require.Equal(t, 200, status, page)
	require.Contains(t, page, "run-one")
	require.Contains(t, page, "run-two")
	val, err := b.brain.Value(context.Background(), memory.Access{Project: projectA}, brain.ValueRequest{})
	require.NoError(t, err)
	require.Equal(t, 2, val.Totals.Sessions)
	require.Positive(t, val.Totals.Saved)
	require.Contains(t, page, fmt.Sprintf("<dt>Tokens saved (estimate)</dt><dd>%s over %d uses</dd>", thousands(val.Totals.Saved), val.Totals.SavedFacts), "the host's saving, as it computed it")
	require.Contains(t, page, fmt.Sprintf("%d of %d (%.0f%%)", val.Totals.InjectedEverUsed, val.Totals.DistinctInjected, 100*val.Totals.UsedShare))

	status, page = c.get("/console/sessions/run-two" + q(projectA))
	require.Equal(t, 200, status, page)
	given, retrieved, cited := section(t, page, "ev-given"), section(t, page, "ev-retrieved"), section(t, page, "ev-cited")
	require.Contains(t, given, shortid.Of(stored.ID), "its banner gave it the stored fact")
	require.Contains(t, retrieved, shortid.Of(read.ID))
	require.Contains(t, retrieved, ">search<")
	require.Contains(t, cited, shortid.Of(stored.ID))
	require.NotContains(t, section(t, page, "ev-stored"), "<code>", "it stored nothing")

	status, page = c.get("/console/sessions/run-one" + q(projectA))
	require.Equal(t, 200, status, page)
	require.Contains(t, section(t, page, "ev-stored"), shortid.Of(stored.ID))
	require.Contains(t, page, "52,000")
	// What it wrote: the Memories screen filtered to its session id.
	status, page = c.get("/console/memories" + q(projectA) + "&session=cli-one&state=all")
	require.Equal(t, 200, status, page)
	require.Contains(t, page, shortid.Of(stored.ID))
	require.NotContains(t, page, shortid.Of(read.ID), "another session's write is not listed")

	status, page = c.get("/console/sessions" + q(projectA) + "&since=forever")
	require.Equal(t, 400, status)
	require.Contains(t, page, "<code>since</code>")
	status, _ = c.get("/console/sessions/no-such-session" + q(projectA))
	require.Equal(t, 404, status)
}

// TestMemoryAccessLog: a memory's page shows its access log as brain.MemoryAccess reads it:
// the session that stored it, the one given it by its banner and that cited it, each linked.
func TestMemoryAccessLog(t *testing.T) {
	t.Parallel()
	b := setup(t)
	stored, _ := sessionWorld(t, b)
	c := b.signIn(t, b.token(t, "", auth.ScopeRead))
	status, page := c.get("/console/memories/" + stored.ID.String() + q(projectA))
	require.Equal(t, 200, status, page)
	log := section(t, page, "access-h")
	require.Contains(t, log, "1 given, 0 retrieved, 1 stored, 1 cited")
	require.Contains(t, log, ">banner<")
	require.Contains(t, log, "cli-one")
	entries, err := b.brain.MemoryAccess(context.Background(), memory.Access{Project: projectA}, stored.ID.String())
	require.NoError(t, err)
	require.Len(t, entries.Entries, 3)
	for _, e := range entries.Entries {
		require.Contains(t, log, "/console/sessions/"+e.Session.String(), "each entry links its session")
	}
	// A memory no session met has an empty log, said so.
	other := b.fact(t, projectA, "Nobody has asked about the CSS build yet.")
	_, page = c.get("/console/memories/" + other.ID.String() + q(projectA))
	require.Contains(t, section(t, page, "access-h"), "No session of this project")
}

// TestValuePlot: the Plots screen draws each session's given and used memories from
// brain.Value, with the figures in its table.
func TestValuePlot(t *testing.T) {
	t.Parallel()
	b := setup(t)
	sessionWorld(t, b)
	c := b.signIn(t, b.token(t, "", auth.ScopeRead))
	status, page := c.get("/console/plots" + q(projectA))
	require.Equal(t, 200, status, page)
	require.Contains(t, page, "What each session was given and used")
	require.Contains(t, page, `id="value-t"`)
	val, err := b.brain.Value(context.Background(), memory.Access{Project: projectA}, brain.ValueRequest{Since: 30 * 24 * time.Hour})
	require.NoError(t, err)
	require.Contains(t, page, fmt.Sprintf("<td>all %d sessions</td>", val.Totals.Sessions))
	require.Contains(t, page, fmt.Sprintf("%d of %d distinct given ever used", val.Totals.InjectedEverUsed, val.Totals.DistinctInjected))
}

// TestSessionsStayInTheirProject: a token bound to another project is refused this project's
// Sessions screen, and its own has no such session.
func TestSessionsStayInTheirProject(t *testing.T) {
	t.Parallel()
	b := setup(t)
	sessionWorld(t, b)
	c := b.signIn(t, b.token(t, projectB, auth.ScopeRead))
	status, _ := c.get("/console/sessions" + q(projectA))
	require.Equal(t, 403, status)
	status, _ = c.get("/console/sessions/run-one" + q(projectA))
	require.Equal(t, 403, status)
	status, _ = c.get("/console/sessions/run-one")
	require.Equal(t, 404, status)
	status, page := c.get("/console/sessions")
	require.Equal(t, 200, status)
	require.NotContains(t, page, "run-one")
}

// section is the part of page from the element with id to the end of its section.
func section(t *testing.T, page, id string) string {
	t.Helper()
	i := strings.Index(page, `id="`+id+`"`)
	require.GreaterOrEqual(t, i, 0, "no element %s", id)
	rest := page[i:]
	if j := strings.Index(rest, "</section>"); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// thousands writes n with thousands separators, as the console shows integers.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
