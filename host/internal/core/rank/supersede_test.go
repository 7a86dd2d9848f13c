package rank_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/rank"
)

// flatIDF weighs every term alike, so overlap is the plain share of shared terms.
func flatIDF(string) float64 { return 1 }

func statements(now time.Time, texts ...string) []rank.Statement {
	out := make([]rank.Statement, len(texts))
	for i, t := range texts {
		// Texts are given oldest first unless a test changes Written.
		out[i] = rank.Statement{Text: t, Written: now.Add(time.Duration(i-len(texts)) * 24 * time.Hour)}
	}
	return out
}

func TestDemoteSupersededPutsTheCurrentStatementFirst(t *testing.T) {
	t.Parallel()
	now := time.Now()
	st := statements(now,
		"Frontend dependencies are managed with npm (package.json and package-lock.json).",
		"Maintainers must use 2FA.",
		"The frontend switched from npm to pnpm (pnpm-lock.yaml); install with make deps-frontend.",
		"Run make lint before pushing.",
	)
	require.Equal(t, []int{1, 2, 0, 3}, rank.DemoteSuperseded(st, flatIDF),
		"the replaced statement ranks directly below the one that replaced it and stays in the results")
}

func TestDemoteSupersededNeedsANewerChangeOnTheSameSubject(t *testing.T) {
	t.Parallel()
	now := time.Now()
	keep := []int{0, 1}
	cases := map[string][]rank.Statement{
		"no change cue": statements(now,
			"Frontend dependencies are managed with npm.",
			"Frontend dependencies are pinned with npm shrinkwrap."),
		"a different subject": statements(now,
			"Frontend dependencies are managed with npm.",
			"CI moved to GitHub Actions."),
		"the changed statement is older": {
			{Text: "Frontend dependencies are managed with npm.", Written: now},
			{Text: "The frontend switched from npm to pnpm.", Written: now.Add(-time.Hour)}},
		"the noun 'changes' is not a change": statements(now,
			"Frontend dependencies are managed with npm.",
			"Frontend changes need npm run lint."),
	}
	for name, st := range cases {
		require.Equal(t, keep, rank.DemoteSuperseded(st, flatIDF), name)
	}
	require.Equal(t, []int{1, 0}, rank.DemoteSuperseded(statements(now,
		"Frontend dependencies are managed with npm.",
		"Frontend dependencies are no longer managed with npm."), flatIDF), `"no longer" is a change`)
}

func TestDemoteSupersededWeighsSharedTermsByIDF(t *testing.T) {
	t.Parallel()
	st := statements(time.Now(),
		"Black formats code in tests/data too.",
		"Running Black now requires Python 3.9 to format code.")
	require.Equal(t, []int{1, 0}, rank.DemoteSuperseded(st, flatIDF), "half the terms shared")
	common := func(term string) float64 {
		if term == "black" || term == "format" || term == "code" {
			return 0.05 // in nearly every memory of the project: says nothing about the subject
		}
		return 2
	}
	require.Equal(t, []int{0, 1}, rank.DemoteSuperseded(st, common), "sharing only common terms is not the same subject")
}

func TestDemoteSupersededStaysInsideTheWindow(t *testing.T) {
	t.Parallel()
	texts := make([]string, rank.SupersedeWindow+2)
	for i := range texts {
		texts[i] = "filler statement number " + string(rune('a'+i))
	}
	texts[0] = "The dev server listens on port 3000 by default."
	texts[rank.SupersedeWindow] = "Default ports changed: the dev server listens on 5173."
	st := statements(time.Now(), texts...)
	order := rank.DemoteSuperseded(st, flatIDF)
	for i := range order {
		require.Equal(t, i, order[i], "a newer statement past the window moves nothing")
	}
	texts[rank.SupersedeWindow-1] = texts[rank.SupersedeWindow]
	order = rank.DemoteSuperseded(statements(time.Now(), texts...), flatIDF)
	require.Equal(t, 0, order[rank.SupersedeWindow-1], "moved below its successor at the window's edge, still inside it")
	require.Equal(t, rank.SupersedeWindow, order[rank.SupersedeWindow])
	require.Empty(t, rank.DemoteSuperseded(nil, flatIDF))
}

func TestDemoteSupersededFollowsChains(t *testing.T) {
	t.Parallel()
	st := statements(time.Now(),
		"The minimum Go version is 1.20.",
		"The minimum Go version is now 1.22.",
		"The minimum Go version is now 1.24.",
	)
	require.Equal(t, []int{2, 1, 0}, rank.DemoteSuperseded(st, flatIDF), "newest first, each below the one that replaced it")
}

// TestDemoteSupersededHonoursStoredSupersession: a statement stored as superseded by another
// moves directly below it, though neither reports a change nor shares its words, and whichever
// is newer; without the link the order stays.
func TestDemoteSupersededHonoursStoredSupersession(t *testing.T) {
	t.Parallel()
	now := time.Now()
	st := statements(now, "Releases ship on Fridays.", "Maintainers must use 2FA.", "Deploy windows are Tuesday mornings.")
	require.Equal(t, []int{0, 1, 2}, rank.DemoteSuperseded(st, flatIDF))
	st[0].ID, st[2].ID = "a", "c"
	st[0].SupersededBy = "c"
	st[2].Written = now.Add(-30 * 24 * time.Hour) // older than what it replaced: the link still decides
	require.Equal(t, []int{1, 2, 0}, rank.DemoteSuperseded(st, flatIDF))
}
