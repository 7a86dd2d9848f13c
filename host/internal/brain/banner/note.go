package banner

import (
	"strconv"
	"strings"
)

// note is the closing line, present exactly when something given was cut or shortened. It
// says what is missing and which tool fetches it.
func (r *renderer) note(reports []SectionReport) string {
	tool := r.style.tool
	var parts []string
	whole := func(name Section, what, toolName string) {
		if rep := report(reports, name); rep.Cut > 0 || rep.Truncated {
			parts = append(parts, "the full "+what+" ("+tool(toolName)+")")
		}
	}
	whole(SectionGoal, "goal", "project_goal_get")
	whole(SectionPlan, "plan", "project_plan_get")
	whole(SectionMap, "project map", "project_map")
	newest, task, top, journal := report(reports, SectionNewest), report(reports, SectionTask), report(reports, SectionTop), report(reports, SectionJournal)
	if n := newest.Cut + task.Cut + top.Cut; n > 0 {
		parts = append(parts, count(n, "more fact", "more facts")+" ("+tool("memory_search")+" or "+tool("project_search")+")")
	}
	if newest.Truncated || task.Truncated || top.Truncated {
		parts = append(parts, "the rest of facts ending in "+ellipsis+" ("+tool("memory_get")+")")
	}
	if journal.Cut > 0 {
		parts = append(parts, count(journal.Cut, "more journal entry", "more journal entries")+" ("+tool("project_journal")+")")
	}
	if journal.Truncated {
		parts = append(parts, "the rest of journal entries ending in "+ellipsis+" ("+tool("project_journal")+")")
	}
	if c := report(reports, SectionConflicts); c.Cut > 0 || c.Truncated {
		parts = append(parts, "the open conflicts ("+tool("memory_conflicts")+")")
	}
	if len(parts) == 0 {
		return ""
	}
	return "Not shown: " + strings.Join(parts, ", ") + ".\n"
}

// worstCase is the longest note this input can need: every section cut and shortened, with
// the largest counts.
func (r *renderer) worstCase() []SectionReport {
	reports := make([]SectionReport, len(r.secs))
	for i, s := range r.secs {
		reports[i] = SectionReport{Section: s.name, Cut: len(s.items), Truncated: len(s.items) > 0}
	}
	// Facts are cut once over the three sections: at most every distinct fact given.
	report(reports, SectionNewest).Cut = 0
	report(reports, SectionTask).Cut = 0
	report(reports, SectionTop).Cut = len(r.facts)
	return reports
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
