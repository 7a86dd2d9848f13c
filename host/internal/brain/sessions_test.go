package brain_test

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/rules"
	"github.com/memhost/memhost/host/internal/core/shortid"
	"github.com/memhost/memhost/host/internal/core/store"
)

func ptr[T any](v T) *T { return &v }

// TestSessionValueEndToEnd: one session finds a fact after spending tokens and stores it; a
// later session is given it in its banner and cites it. The records say what each was given,
// retrieved, stored and cited; the value report counts it, and estimates the saving as the
// discovery cost less what reading the fact cost the later session.
func TestSessionValueEndToEnd(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	start := b.now.Add(-time.Hour)

	// Session 1 explores, then stores the fact: its transcript says what finding it cost.
	first := brain.SessionRef{Key: "run-first", CLI: "claude", Origin: "run"}
	stored := b.fact(t, agentA, needle).Memory.ID
	end1, err := b.brain.EndSession(ctx, agentA, brain.SessionEnd{Session: first, CLISession: "c1", StartedAt: start, EndedAt: start.Add(10 * time.Minute),
		Tokens: ptr(int64(52000)), Turns: ptr(14),
		Stored: []brain.StoredFact{{ID: shortid.Of(stored), Tokens: ptr(int64(48000)), Seconds: ptr(420.0), Turns: 12}}})
	require.NoError(t, err)
	require.Equal(t, 1, end1.Recorded["stored"])
	require.Zero(t, end1.Saved, "a session saves nothing on what it found itself")

	// Session 2 is given it by its banner and cites it; a hex word it never saw is no citation.
	second := brain.SessionRef{Key: "run-second", CLI: "codex", Origin: "run"}
	v, err := b.brain.Banner(ctx, agentA, brain.BannerRequest{CLI: "codex", Session: second})
	require.NoError(t, err)
	require.Len(t, v.Given, 1)
	readCost := v.Given[0].Tokens
	require.Positive(t, readCost)
	other := b.fact(t, agentA, "Release notes are written in docs/changes, one file per pull request.").Memory.ID
	end2, err := b.brain.EndSession(ctx, agentA, brain.SessionEnd{Session: second, StartedAt: b.now.Add(-5 * time.Minute),
		Cited: []string{shortid.Of(stored), shortid.Of(other), "deadbeef"}})
	require.NoError(t, err)
	require.Equal(t, 1, end2.Recorded["cited"], "only what it was given counts")
	require.Equal(t, 1, end2.Used)
	require.Equal(t, int64(48000-readCost), end2.Saved)
	require.Equal(t, 1, end2.SavedFacts)

	r, err := b.brain.Value(ctx, agentA, brain.ValueRequest{})
	require.NoError(t, err)
	require.Equal(t, keyA, r.Project)
	require.Equal(t, 2, r.Totals.Sessions)
	require.Equal(t, 1, r.Totals.Injected)
	require.Equal(t, 1, r.Totals.Cited)
	require.Equal(t, 1, r.Totals.Stored)
	require.Equal(t, 1, r.Totals.DistinctInjected)
	require.Equal(t, 1, r.Totals.InjectedEverUsed)
	require.InDelta(t, 1.0, r.Totals.UsedShare, 1e-9)
	require.Equal(t, int64(48000-readCost), r.Totals.Saved)
	require.Equal(t, 1, r.Totals.Discovered)
	require.Equal(t, int64(48000), r.Totals.DiscoveryTokens)
	require.Equal(t, brain.SavedEstimate, r.Estimate)
	require.Len(t, r.Sessions, 2)
	require.Equal(t, "run-second", r.Sessions[0].Key, "newest first")
	require.Equal(t, int64(52000), *r.Sessions[1].Tokens)

	log, err := b.brain.MemoryAccess(ctx, agentA, shortid.Of(stored))
	require.NoError(t, err)
	require.Equal(t, map[string]int{"stored": 1, "given": 1, "cited": 1}, log.Counts)

	// Project B sees none of it.
	rb, err := b.brain.Value(ctx, agentB, brain.ValueRequest{})
	require.NoError(t, err)
	require.Zero(t, rb.Totals.Sessions)
	_, err = b.brain.Session(ctx, agentB, "run-first")
	require.ErrorIs(t, err, rules.ErrNotFound)
}

// TestRecordKeepsToTheProject: a use of another project's memory is never recorded, whatever
// the caller says.
func TestRecordKeepsToTheProject(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	mine := b.fact(t, agentA, needle).Memory.ID
	theirs := b.fact(t, agentB, "Project B deploys on Fridays only after the freeze review.").Memory.ID
	ref := brain.SessionRef{Key: "tied", CLI: "claude", Origin: "run"}
	require.NoError(t, b.brain.Record(ctx, agentA, ref, []brain.Use{
		{ID: mine, Event: store.EventRetrieved, Channel: "search", Tokens: 30},
		{ID: theirs, Event: store.EventRetrieved, Channel: "search", Tokens: 30},
	}))
	d, err := b.brain.Session(ctx, agentA, "tied")
	require.NoError(t, err)
	require.Len(t, d.Memories, 1)
	require.Equal(t, mine, d.Memories[0].ID)

	// Cited through the transcript: B's short id resolves to nothing in A.
	res, err := b.brain.EndSession(ctx, agentA, brain.SessionEnd{Session: ref, StartedAt: b.now.Add(-time.Minute),
		Retrieved: []string{shortid.Of(theirs)}, Cited: []string{shortid.Of(theirs), shortid.Of(mine)}})
	require.NoError(t, err)
	require.Equal(t, map[string]int{"cited": 1}, res.Recorded)
}

// TestValueListsMemoriesNeverUsed: a fact given in five ended sessions and used in none is a
// candidate to bury; one given as often and cited once is not; a session that never ended does
// not count.
func TestValueListsMemoriesNeverUsed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	idle := b.fact(t, agentA, "The staging cluster is named blue-harbor and lives in eu-west-3.").Memory.ID
	used := b.fact(t, agentA, needle).Memory.ID
	for i := range 5 {
		ref := brain.SessionRef{Key: "s" + string(rune('a'+i)), CLI: "gemini"}
		_, err := b.brain.Banner(ctx, agentA, brain.BannerRequest{Session: ref})
		require.NoError(t, err)
		end := brain.SessionEnd{Session: ref, StartedAt: b.now.Add(-time.Minute)}
		if i == 2 {
			end.Cited = []string{"[" + shortid.Of(used) + "]"}
		}
		_, err = b.brain.EndSession(ctx, agentA, end)
		require.NoError(t, err)
	}
	_, err := b.brain.Banner(ctx, agentA, brain.BannerRequest{Session: brain.SessionRef{Key: "open", CLI: "gemini"}})
	require.NoError(t, err)

	r, err := b.brain.Value(ctx, agentA, brain.ValueRequest{})
	require.NoError(t, err)
	require.Len(t, r.Unused, 1)
	require.Equal(t, idle, r.Unused[0].ID)
	require.Equal(t, 5, r.Unused[0].Given, "the open session is not counted")
	require.Equal(t, 6, r.Totals.Sessions)
	require.Equal(t, 2, r.Totals.DistinctInjected)
	require.Equal(t, 1, r.Totals.InjectedEverUsed)
	require.InDelta(t, 0.5, r.Totals.UsedShare, 1e-9)

	six, err := b.brain.Value(ctx, agentA, brain.ValueRequest{UnusedAfter: 6})
	require.NoError(t, err)
	require.Empty(t, six.Unused)
}

// TestSessionEndRefusesBadInput: each bad field is named with its limit, and nothing is
// recorded.
func TestSessionEndRefusesBadInput(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	ref := brain.SessionRef{Key: "k1", CLI: "claude"}
	ok := brain.SessionEnd{Session: ref, StartedAt: b.now.Add(-time.Minute)}
	for _, tc := range []struct {
		mod   func(*brain.SessionEnd)
		field string
	}{
		{func(e *brain.SessionEnd) { e.Session = brain.SessionRef{} }, "session"},
		{func(e *brain.SessionEnd) { e.StartedAt = time.Time{} }, "started_at"},
		{func(e *brain.SessionEnd) { e.StartedAt = b.now.Add(time.Hour) }, "started_at"},
		{func(e *brain.SessionEnd) { e.EndedAt = e.StartedAt.Add(-time.Second) }, "ended_at"},
		{func(e *brain.SessionEnd) { e.Tokens = ptr(int64(-1)) }, "tokens"},
		{func(e *brain.SessionEnd) { e.Cited = []string{"not-hex!"} }, "ids"},
		{func(e *brain.SessionEnd) { e.Retrieved = make([]string, 1001) }, "retrieved"},
		{func(e *brain.SessionEnd) { e.Stored = []brain.StoredFact{{ID: "0123abcd", Seconds: ptr(-1.0)}} }, "stored"},
		{func(e *brain.SessionEnd) { e.CLISession = "a b" }, "cli_session"},
	} {
		e := ok
		tc.mod(&e)
		_, err := b.brain.EndSession(ctx, agentA, e)
		var fe *rules.FieldError
		require.ErrorAs(t, err, &fe, tc.field)
		require.Equal(t, tc.field, fe.Field)
	}
	for _, req := range []brain.ValueRequest{{Since: -time.Hour}, {UnusedAfter: -1}, {Sessions: 501}} {
		_, err := b.brain.Value(ctx, agentA, req)
		var fe *rules.FieldError
		require.ErrorAs(t, err, &fe)
	}
	page, err := b.brain.Sessions(ctx, agentA, brain.SessionsRequest{})
	require.NoError(t, err)
	require.Empty(t, page.Sessions)
}

// TestSessionsPage: sessions page newest first with a cursor, each with its counts.
func TestSessionsPage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.fact(t, agentA, needle)
	for i := range 3 {
		b.now = b.now.Add(time.Minute)
		_, err := b.brain.Banner(ctx, agentA, brain.BannerRequest{Session: brain.SessionRef{Key: "p" + string(rune('0'+i)), CLI: "claude"}})
		require.NoError(t, err)
	}
	page, err := b.brain.Sessions(ctx, agentA, brain.SessionsRequest{Limit: 2})
	require.NoError(t, err)
	require.Len(t, page.Sessions, 2)
	require.Equal(t, "p2", page.Sessions[0].Key)
	require.Equal(t, 1, page.Sessions[0].Given)
	require.NotEmpty(t, page.NextCursor)
	rest, err := b.brain.Sessions(ctx, agentA, brain.SessionsRequest{Limit: 2, Cursor: page.NextCursor})
	require.NoError(t, err)
	require.Len(t, rest.Sessions, 1)
	require.Equal(t, "p0", rest.Sessions[0].Key)
	require.Empty(t, rest.NextCursor)
}

// TestSessionMetricsCount: the value figures as Prometheus counters: memories recorded per
// event, sessions ended per origin, injected memories used, tokens saved and discovery tokens.
func TestSessionMetricsCount(t *testing.T) {
	t.Parallel()
	b := setup(t)
	reg := prometheus.NewRegistry()
	br := brain.New(b.store, b.mem, brain.DefaultConfig(), brain.WithMetrics(brain.NewMetrics(reg)), brain.WithClock(func() time.Time { return b.now }))
	ctx := context.Background()
	id := b.fact(t, agentA, needle).Memory.ID
	first := brain.SessionRef{Key: "m1", CLI: "claude", Origin: "run"}
	_, err := br.EndSession(ctx, agentA, brain.SessionEnd{Session: first, StartedAt: b.now.Add(-time.Hour),
		Stored: []brain.StoredFact{{ID: shortid.Of(id), Tokens: ptr(int64(9000)), Seconds: ptr(60.0)}}})
	require.NoError(t, err)
	second := brain.SessionRef{Key: "m2", CLI: "codex", Origin: "connected"}
	v, err := br.Banner(ctx, agentA, brain.BannerRequest{Session: second})
	require.NoError(t, err)
	_, err = br.EndSession(ctx, agentA, brain.SessionEnd{Session: second, StartedAt: b.now.Add(-time.Minute), Cited: []string{shortid.Of(id)}})
	require.NoError(t, err)

	families, err := reg.Gather()
	require.NoError(t, err)
	got := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			name := f.GetName()
			for _, l := range m.GetLabel() {
				name += "{" + l.GetValue() + "}"
			}
			got[name] = m.GetCounter().GetValue()
		}
	}
	require.Equal(t, 1.0, got["memhost_session_memories_total{stored}"])
	require.Equal(t, 1.0, got["memhost_session_memories_total{given}"])
	require.Equal(t, 1.0, got["memhost_session_memories_total{cited}"])
	require.Equal(t, 1.0, got["memhost_sessions_ended_total{run}"])
	require.Equal(t, 1.0, got["memhost_sessions_ended_total{connected}"])
	require.Equal(t, 1.0, got["memhost_session_injected_used_total"])
	require.Equal(t, float64(9000-v.Given[0].Tokens), got["memhost_session_saved_tokens_total"])
	require.Equal(t, 9000.0, got["memhost_session_discovery_tokens_total"])
}
