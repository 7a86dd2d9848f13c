package console_test

import (
	"context"
	"fmt"
	"html"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/core/memory"
)

// TestSearchShowsTheRankersTerms: the Memories screen's search shows each hit's score and its
// terms as the memory service computed them (the same numbers, to the digits shown), and
// neither the search nor a memory's page counts as a use or a retrieval: an operator looking
// must not change a rank or keep a memory from the staleness job.
func TestSearchShowsTheRankersTerms(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	m := b.fact(t, projectA, "We use pnpm, never npm, in this repository.")
	b.fact(t, projectA, "Tests need TZ=UTC or the date helpers fail.")
	c := b.signIn(t, b.token(t, "", auth.ScopeRead))
	status, page := c.get("/console/memories" + q(projectA) + "&q=" + url.QueryEscape("which package manager, pnpm or npm?"))
	require.Equal(t, 200, status)

	res, err := b.mem.Search(ctx, memory.Access{Project: projectA}, memory.SearchRequest{Query: "which package manager, pnpm or npm?", Explain: true, Unrecorded: true})
	require.NoError(t, err)
	require.NotEmpty(t, res.Hits)
	h := res.Hits[0]
	require.Equal(t, m.ID, h.ID)
	require.Contains(t, page, fmt.Sprintf("<summary>%.3f</summary>", h.Score))
	for name, v := range map[string]float64{"lexical (BM25)": h.Terms.Lexical, "vector": h.Terms.Vector, "confidence": h.Terms.Confidence, "recency": h.Terms.Recency} {
		require.Contains(t, page, fmt.Sprintf("%s</th><td>%.4f</td>", name, v), name)
	}
	require.InDelta(t, h.Score, h.Terms.Sum(), 1e-12)

	status, _ = c.get("/console/memories/" + m.ID.String() + q(projectA))
	require.Equal(t, 200, status)
	b.mem.Retrieved(nil)
	v, err := b.store.Get(ctx, m.ID)
	require.NoError(t, err)
	require.Zero(t, v.HitCount, "a page view is no use")
	var retrieved bool
	require.NoError(t, b.poolQuery(t, `SELECT last_retrieved_at IS NOT NULL FROM memories WHERE id = $1`, m.ID).Scan(&retrieved))
	require.False(t, retrieved, "an operator's search retrieves nothing for the staleness job")
}

// TestFilters: the Memories screen's filters narrow the listing (origin, kind, state, pinned),
// a search alike, and a bad value is refused naming its field.
func TestFilters(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	agent := b.fact(t, projectA, "Deploys go through ArgoCD.")
	extracted, err := b.mem.Store(ctx, memory.Access{Project: projectA, Actor: "maintenance"}, memory.StoreRequest{Text: "The staging cluster runs on k3s.", Source: "extracted"})
	require.NoError(t, err)
	pinned := b.fact(t, projectA, "Never force-push to main.")
	_, err = b.mem.SetPinned(ctx, memory.Access{Project: projectA, Actor: "op"}, pinned.ID, true)
	require.NoError(t, err)
	gone := b.fact(t, projectA, "The old CI ran on Travis.")
	_, err = b.mem.Archive(ctx, memory.Access{Project: projectA, Actor: "op"}, gone.ID, "obsolete")
	require.NoError(t, err)

	c := b.signIn(t, b.token(t, "", auth.ScopeRead))
	listed := func(query string) []string {
		status, page := c.get("/console/memories" + q(projectA) + query)
		require.Equal(t, 200, status, query)
		var ids []string
		for _, id := range []uuid.UUID{agent.ID, extracted.ID, pinned.ID, gone.ID} {
			if strings.Contains(page, `value="`+id.String()+`"`) || strings.Contains(page, "/console/memories/"+id.String()+"?") {
				ids = append(ids, id.String())
			}
		}
		return ids
	}
	require.ElementsMatch(t, []string{agent.ID.String(), extracted.ID.String(), pinned.ID.String()}, listed(""))
	require.Equal(t, []string{extracted.ID.String()}, listed("&origin=extracted"))
	require.Equal(t, []string{pinned.ID.String()}, listed("&pinned=1"))
	require.Equal(t, []string{gone.ID.String()}, listed("&state=archived"))
	require.Equal(t, []string{gone.ID.String()}, listed("&reason=obsolete"))
	require.Equal(t, []string{extracted.ID.String()}, listed("&origin=extracted&q="+url.QueryEscape("staging cluster k3s")))
	for query, field := range map[string]string{"&origin=rumour": "origin", "&kind=rumour": "kind", "&state=deleted": "state", "&pinned=perhaps": "pinned"} {
		status, page := c.get("/console/memories" + q(projectA) + query)
		require.Equal(t, 400, status, query)
		require.Contains(t, page, "<code>"+field+"</code>", query)
	}
}

// TestBulkArchive: the selected memories are archived with one reason; a bad reason, an
// unknown id or more than the limit changes nothing; the confirmation page lists what a
// filter matches.
func TestBulkArchive(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	var ids []string
	for i := range 4 {
		ids = append(ids, b.fact(t, projectA, fmt.Sprintf("Service s%d retries %d times.", i, i+2)).ID.String())
	}
	c := b.signIn(t, b.token(t, "", auth.ScopeRead, auth.ScopeWrite))
	status, page := c.get("/console/memories/archive" + q(projectA) + "&q=" + url.QueryEscape("service retries"))
	require.Equal(t, 200, status)
	require.Contains(t, page, "Archive 4 memories")

	for name, form := range map[string]url.Values{
		"bad reason": {"id": ids[:2], "reason": {"line one\nline two"}},
		"unknown id": {"id": {uuid.NewString(), ids[0]}},
		"not an id":  {"id": {"nonsense"}},
		"nothing":    {},
		"over limit": {"id": repeat(ids[0], 201)},
	} {
		form.Set("project", projectA)
		status, _ := c.post("/console/memories/archive", form)
		require.GreaterOrEqual(t, status, 400, name)
		for _, id := range ids {
			v, err := b.mem.Peek(ctx, memory.Access{Project: projectA}, uuid.MustParse(id))
			require.NoError(t, err)
			require.Nil(t, v.ArchivedAt, "%s changed nothing", name)
		}
	}
	status, page = c.post("/console/memories/archive", url.Values{"project": {projectA}, "id": ids[1:3], "reason": {"retired"}})
	require.Equal(t, 200, status)
	require.Contains(t, html.UnescapeString(page), "Archived 2 memories")
	for i, id := range ids {
		v, err := b.mem.Peek(ctx, memory.Access{Project: projectA}, uuid.MustParse(id))
		require.NoError(t, err)
		require.Equal(t, i == 1 || i == 2, v.ArchivedAt != nil, id)
	}
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}
