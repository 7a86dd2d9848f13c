package bench

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestScoreRankingCountsRecallRankAndStaleFirst(t *testing.T) {
	t.Parallel()
	want := map[string]bool{"a": true, "b": true}
	stale := map[string]bool{"old": true}
	s := scoreRanking([]string{"x", "old", "a", "y", "z", "w", "b"}, want, stale)
	require.InDelta(t, 0.5, s.recall5, 1e-9)
	require.InDelta(t, 1.0, s.recall10, 1e-9)
	require.InDelta(t, 1.0/3, s.rr, 1e-9)
	require.True(t, s.hasStale)
	require.True(t, s.staleFirst, "the superseded fact ranked above the current one")

	s = scoreRanking([]string{"a", "old"}, want, stale)
	require.False(t, s.staleFirst)
	s = scoreRanking([]string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "a"}, want, nil)
	require.Zero(t, s.recall10, "depth is 10")
	require.Zero(t, s.rr)
	require.False(t, s.hasStale)
}

func TestBootstrapBracketsTheMean(t *testing.T) {
	t.Parallel()
	scores := make([]questionScore, 200)
	for i := range scores {
		if i%4 != 0 {
			scores[i].recall10 = 1
		}
	}
	all := indices(len(scores), func(int) bool { return true })
	s := summarise(scores, all)
	require.InDelta(t, 0.75, s.Recall10.Mean, 1e-9)
	require.Less(t, s.Recall10.Lo, 0.75)
	require.Greater(t, s.Recall10.Hi, 0.75)
	// Binomial standard error at n=200, p=0.75 is 0.031: the 95% interval is about ±0.06.
	require.InDelta(t, 0.06, s.Recall10.Hi-s.Recall10.Mean, 0.02)
	diff, rel := pairedGain(scores, scores, all)
	require.Equal(t, Interval{}, diff, "a system compared with itself gains exactly nothing")
	require.Equal(t, Interval{}, rel)
}

func TestRenderRetrievalMarksTheGainGoal(t *testing.T) {
	t.Parallel()
	sys := func(name string, r10 float64) SystemResult {
		s := Scores{N: 10, Recall10: Interval{Mean: r10}}
		return SystemResult{Name: name, All: s, Dev: s, Test: s, ByCategory: []CategoryScores{{Category: CategoryVocab, Scores: s}}}
	}
	var b strings.Builder
	var notes []string
	note := func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) }
	renderRetrieval(&b, []RetrievalResult{{Projects: 9, Questions: 10, Filler: 1000,
		Systems: []SystemResult{sys(SystemMemhost, 0.95), sys(SystemBM25, 0.90)}, Gain: Interval{Mean: 0.055, Lo: 0.03, Hi: 0.08}}}, note)
	md := b.String()
	require.Contains(t, md, "## Ranking against plain BM25: 9 projects, 0 facts, 10 questions, 1000 synthetic memories per project")
	require.Contains(t, md, "| recall@10 gain over plain BM25 | >= +20% | +5.5% [+3.0, +8.0] | | **MISS** |")
	require.Contains(t, md, "| vocab (10): recall@10 / MRR | | 0.950 / 0.000 | 0.900 / 0.000 | |")
	require.Len(t, notes, 1)
	require.Contains(t, notes[0], "even a perfect ranker would gain at most +11.1%")
}

func TestRenderRetrievalShowsTheBlindSplit(t *testing.T) {
	t.Parallel()
	sys := func(name string, r10, blind float64) SystemResult {
		s := Scores{N: 10, Recall10: Interval{Mean: r10}}
		return SystemResult{Name: name, All: s, Dev: s, Test: s, Blind: Scores{N: 4, Recall10: Interval{Mean: blind, Lo: blind - 0.1, Hi: blind + 0.05}}}
	}
	render := func(r RetrievalResult) string {
		var b strings.Builder
		renderRetrieval(&b, []RetrievalResult{r}, func(string, ...any) {})
		return b.String()
	}
	r := RetrievalResult{Projects: 1, Questions: 10, Systems: []SystemResult{sys(SystemMemhost, 0.95, 0.8), sys(SystemBM25, 0.9, 0.7)},
		BlindGain: Interval{Mean: 0.143, Lo: 0.02, Hi: 0.3}}
	md := render(r)
	require.Contains(t, md, "| recall@10, blind questions (4; written apart, never looked at while tuning) | | 0.800 [0.700, 0.850] | 0.700 [0.600, 0.750] | |")
	require.Contains(t, md, "| - recall@10 gain over plain BM25 on the blind questions | | +14.3% [+2.0, +30.0] | | |")
	require.Contains(t, md, "| recall@10, held-out test half (10) | | 0.950 [0.000, 0.000] | 0.900 [0.000, 0.000] | |")

	for i := range r.Systems {
		r.Systems[i].Blind = Scores{}
	}
	require.NotContains(t, render(r), "blind", "without blind questions there is no blind row")
}
