package bench

import (
	"math/rand/v2"
	"slices"
)

// Interval is a mean and its 95% confidence interval (percentile bootstrap over questions).
type Interval struct {
	Mean, Lo, Hi float64
}

// Scores are one system's ranking metrics over a group of questions.
type Scores struct {
	N                      int
	Recall5, Recall10, MRR Interval
}

// questionScore is how one system ranked the answers of one question.
type questionScore struct {
	recall5, recall10, rr float64
	// hasStale: the question names superseded facts. staleFirst: one of them ranked above
	// every current answer (or was in the top 10 while no current answer was).
	hasStale, staleFirst bool
}

// retrievalDepth is the depth searched: recall@10 and MRR@10.
const retrievalDepth = 10

// scoreRanking scores a ranked list of memory ids against the wanted and stale ids.
func scoreRanking(ranked []string, want, stale map[string]bool) questionScore {
	var s questionScore
	var in5, in10 int
	firstWant, firstStale := 0, 0
	for i, id := range ranked[:min(len(ranked), retrievalDepth)] {
		switch {
		case want[id]:
			if firstWant == 0 {
				firstWant = i + 1
			}
			in10++
			if i < 5 {
				in5++
			}
		case stale[id] && firstStale == 0:
			firstStale = i + 1
		}
	}
	s.recall5 = float64(in5) / float64(len(want))
	s.recall10 = float64(in10) / float64(len(want))
	if firstWant > 0 {
		s.rr = 1 / float64(firstWant)
	}
	s.hasStale = len(stale) > 0
	s.staleFirst = firstStale > 0 && (firstWant == 0 || firstStale < firstWant)
	return s
}

// bootstrapRounds resamples; 2000 gives percentile bounds stable to about ±0.003 here.
const bootstrapRounds = 2000

// bootstrap resamples the questions (with replacement) and returns stat's value on the full
// sample with the 2.5th and 97.5th percentiles over resamples. stat receives the indices of
// one resample. The generator is seeded so a report is reproducible.
func bootstrap(n int, stat func(idx []int) float64) Interval {
	if n == 0 {
		return Interval{}
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	out := Interval{Mean: stat(all)}
	r := rand.New(rand.NewPCG(9, 17))
	vals := make([]float64, bootstrapRounds)
	idx := make([]int, n)
	for b := range vals {
		for i := range idx {
			idx[i] = r.IntN(n)
		}
		vals[b] = stat(idx)
	}
	slices.Sort(vals)
	out.Lo = vals[int(0.025*float64(bootstrapRounds))]
	out.Hi = vals[int(0.975*float64(bootstrapRounds))-1]
	return out
}

// mean of f over the questions at idx.
func mean(scores []questionScore, idx []int, f func(questionScore) float64) float64 {
	var sum float64
	for _, i := range idx {
		sum += f(scores[i])
	}
	return sum / float64(len(idx))
}

func recall5(s questionScore) float64   { return s.recall5 }
func recall10(s questionScore) float64  { return s.recall10 }
func recipRank(s questionScore) float64 { return s.rr }

// summarise computes Scores over the questions at sel.
func summarise(scores []questionScore, sel []int) Scores {
	sub := make([]questionScore, len(sel))
	for i, j := range sel {
		sub[i] = scores[j]
	}
	metric := func(f func(questionScore) float64) Interval {
		return bootstrap(len(sub), func(idx []int) float64 { return mean(sub, idx, f) })
	}
	return Scores{N: len(sub), Recall5: metric(recall5), Recall10: metric(recall10), MRR: metric(recipRank)}
}

// pairedGain compares system a with baseline b on the same questions (paired bootstrap):
// the absolute difference of mean recall@10 and the relative gain a/b - 1.
func pairedGain(a, b []questionScore, sel []int) (diff, rel Interval) {
	sa, sb := make([]questionScore, len(sel)), make([]questionScore, len(sel))
	for i, j := range sel {
		sa[i], sb[i] = a[j], b[j]
	}
	diff = bootstrap(len(sel), func(idx []int) float64 { return mean(sa, idx, recall10) - mean(sb, idx, recall10) })
	rel = bootstrap(len(sel), func(idx []int) float64 {
		base := mean(sb, idx, recall10)
		if base == 0 {
			return 0
		}
		return mean(sa, idx, recall10)/base - 1
	})
	return diff, rel
}
