package bench

import (
	"fmt"
	"strings"

	"github.com/memhost/memhost/host/internal/brain"
)

// selectionHeader describes the banner-selection benchmark in the report's "What is measured"
// list.
const selectionHeader = `- **Banner selection**: does the fact a task needs reach the CLI within the banner's budget?
  Each evaluated project of the retrieval set holds its written facts and synthetic ones
  (hundreds in all); each of its questions is a task whose needed facts are the question's
  labels, and succeeds when all of them are in the banner ` + "`brain.Banner`" + ` renders at the default
  budget: query-less (every session before issue 28) against task-scoped (the task as the
  banner request's task), at each score floor of a sweep. Tasks about nothing in any
  project (testdata/selection/irrelevant.json: requests outside software, coding in other
  domains) must leave the banner as it was: a task section for them is noise.
`

// renderSelection writes the banner-selection benchmark's section of the report.
func renderSelection(b *strings.Builder, r *SelectionResult, note func(string, ...any)) {
	if r == nil {
		return
	}
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	pct := func(n, of int) string { return fmt.Sprintf("%.1f%% (%d of %d)", 100*share(n, of), n, of) }
	all := r.Tasks[splitAll]
	irrelevant := r.Irrelevant * r.Projects
	w("\n## Banner selection: %d projects of %d written and %d synthetic facts, %d tasks, budget %d tokens\n\n",
		r.Projects, r.Facts, r.Filler, all, r.Budget)
	c := r.Configured
	w("| metric | target | query-less | task-scoped (floor %.2f) | |\n| --- | --- | --- | --- | --- |\n", c.Floor)
	w("| needed facts reach the CLI, all tasks | more than query-less | %s | %s | %s |\n",
		pct(r.QueryLess[splitAll], all), pct(c.Scoped[splitAll], all), verdict(c.Scoped[splitAll] > r.QueryLess[splitAll]))
	for _, s := range []string{SplitDev, SplitTest, SplitBlind} {
		if r.Tasks[s] > 0 {
			w("| - %s tasks | | %s | %s | |\n", s, pct(r.QueryLess[s], r.Tasks[s]), pct(c.Scoped[s], r.Tasks[s]))
		}
	}
	w("| tasks whose needed facts the query-less banner had and the task-scoped one lost | | | %d | |\n", c.Lost)
	w("| unrelated tasks that got a task section (%d tasks in %d projects) | 0 | | %d | %s |\n", r.Irrelevant, r.Projects, c.Added, verdict(c.Added == 0))
	w("| tasks given their project whole (every fact fits) | | | %d | |\n", r.Whole)
	w("\nThe floor sweep (the floor is the search score, 0..1, a fact must reach to be given for a task; brain.prompt_floor):\n\n")
	w("| floor | needed facts reach the CLI | dev / test half | lost | unrelated tasks given a section (facts each) |\n| --- | --- | --- | --- | --- |\n")
	for _, pt := range r.Points {
		mark := ""
		if pt.Floor == brain.DefaultTaskFloor {
			mark = " (default)"
		}
		w("| %.2f%s | %s | %.1f%% / %.1f%% | %d | %d of %d (%.1f) |\n", pt.Floor, mark, pct(pt.Scoped[splitAll], all),
			100*share(pt.Scoped[SplitDev], r.Tasks[SplitDev]), 100*share(pt.Scoped[SplitTest], r.Tasks[SplitTest]), pt.Lost, pt.Added, irrelevant, pt.Facts)
	}
	if c.Scoped[splitAll] <= r.QueryLess[splitAll] {
		note("Banner selection: the task-scoped banner brings the needed facts in %d tasks, the query-less one in %d.", c.Scoped[splitAll], r.QueryLess[splitAll])
	}
	if c.Added > 0 {
		note("Banner selection: %d unrelated tasks got a task section at the default floor %.2f.", c.Added, c.Floor)
	}
}
