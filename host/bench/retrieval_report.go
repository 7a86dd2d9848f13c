package bench

import (
	"fmt"
	"strings"
)

// targetRetrievalGain is issue 9's goal: recall@10 at least 20% above plain BM25, no model.
const targetRetrievalGain = 0.20

// retrievalHeader describes the retrieval benchmark in the report's "What is measured" list.
const retrievalHeader = `- **Ranking against plain BM25**: the retrieval benchmark in
  host/bench/testdata/retrieval (schema in its README): the project memories of
  several public repositories (facts restated from their contributing guides and docs) with
  questions an agent would ask, by category (direct, vocabulary mismatch, multi-fact,
  time-sensitive, exact identifier), distractor projects and global preferences in the same
  database. Facts are stored through ` + "`memory.Service.Store`" + ` (oldest first) and backdated to
  their age; every question goes through ` + "`memory.Service.Search`" + ` top 10 and, as the
  baseline, through plain Okapi BM25 (k1 1.2, b 0.75) over the same texts with the same
  tokenizer. Intervals are 95% percentile bootstrap over questions (2000 resamples); the gain
  is a paired bootstrap. Run once as written and once with synthetic memories added to every
  project (a project after months of use). Questions are split by a hash of their id into a
  dev half (looked at while tuning the ranker) and a held-out test half; blind questions
  (testdata/retrieval/blind, written by someone who did not tune the ranker and never opened
  by whoever does) are reported as a third split beside them and are not part of the other
  rows.
`

func interval(i Interval) string { return fmt.Sprintf("%.3f [%.3f, %.3f]", i.Mean, i.Lo, i.Hi) }

func percent(i Interval) string {
	return fmt.Sprintf("%+.1f%% [%+.1f, %+.1f]", 100*i.Mean, 100*i.Lo, 100*i.Hi)
}

// renderRetrieval writes the retrieval benchmark's section of the report.
func renderRetrieval(b *strings.Builder, rs []RetrievalResult, note func(string, ...any)) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	for _, r := range rs {
		if len(r.Systems) != 2 {
			continue
		}
		mem, base := r.Systems[0], r.Systems[1]
		w("\n## Ranking against plain BM25: %d projects, %d facts, %d questions", r.Projects, r.Facts, r.Questions)
		if r.Filler > 0 {
			w(", %d synthetic memories per project", r.Filler)
		}
		w("\n\n%d distractor-project facts and %d global preferences share the database.\n\n", r.DistractorFacts, r.GlobalFacts)
		w("| metric | target | %s | %s | |\n| --- | --- | --- | --- | --- |\n", mem.Name, base.Name)
		w("| recall@10 gain over plain BM25 | >= %+.0f%% | %s | | %s |\n", 100*targetRetrievalGain, percent(r.Gain), verdict(r.Gain.Mean >= targetRetrievalGain))
		w("| - on the held-out test half (%d questions) | | %s | | |\n", mem.Test.N, percent(r.TestGain))
		w("| recall@10 difference (points) | | %+.1f [%+.1f, %+.1f] | | |\n", 100*r.Diff.Mean, 100*r.Diff.Lo, 100*r.Diff.Hi)
		w("| recall@5 | | %s | %s | |\n", interval(mem.All.Recall5), interval(base.All.Recall5))
		w("| recall@10 | | %s | %s | |\n", interval(mem.All.Recall10), interval(base.All.Recall10))
		w("| MRR@10 | | %s | %s | |\n", interval(mem.All.MRR), interval(base.All.MRR))
		w("| recall@10, dev half (%d; the ranker is tuned on it) | | %s | %s | |\n", mem.Dev.N, interval(mem.Dev.Recall10), interval(base.Dev.Recall10))
		w("| recall@10, held-out test half (%d) | | %s | %s | |\n", mem.Test.N, interval(mem.Test.Recall10), interval(base.Test.Recall10))
		if mem.Blind.N > 0 {
			w("| recall@10, blind questions (%d; written apart, never looked at while tuning) | | %s | %s | |\n", mem.Blind.N, interval(mem.Blind.Recall10), interval(base.Blind.Recall10))
			w("| - recall@10 gain over plain BM25 on the blind questions | | %s | | |\n", percent(r.BlindGain))
			w("| - MRR@10 on the blind questions | | %s | %s | |\n", interval(mem.Blind.MRR), interval(base.Blind.MRR))
		}
		for i, c := range mem.ByCategory {
			bc := base.ByCategory[i]
			w("| %s (%d): recall@10 / MRR | | %.3f / %.3f | %.3f / %.3f | |\n", c.Category, c.N, c.Recall10.Mean, c.MRR.Mean, bc.Recall10.Mean, bc.MRR.Mean)
		}
		w("| superseded fact ranked above the current one | | %d of %d | %d of %d | |\n", mem.StaleFirst, mem.WithStale, base.StaleFirst, base.WithStale)
		w("| hits from another project | 0 | %d | | %s |\n", r.Leaks, verdict(r.Leaks == 0))
		w("| facts folded into another memory on store | | %d | | |\n", r.Folded)
		if r.Gain.Mean < targetRetrievalGain {
			note("Ranking at the floor (%d projects%s): recall@10 is %+.1f%% against plain BM25, short of the %+.0f%% goal. Plain BM25 already puts %.1f%% of the answers in its top 10 here, so even a perfect ranker would gain at most %+.1f%%; the remaining misses are vocabulary mismatch and multi-fact questions (docs/ranking.md).",
				r.Projects, fillerNote(r.Filler), 100*r.Gain.Mean, 100*targetRetrievalGain, 100*base.All.Recall10.Mean, 100*(1/base.All.Recall10.Mean-1))
		}
		if r.Leaks > 0 {
			note("Retrieval: %d search hits came from another project.", r.Leaks)
		}
	}
}

func fillerNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %d synthetic memories each", n)
}
