package banner

import "strconv"

// ConflictsShown is how many open conflicts the banner lists (the caller reads no more);
// memory_conflicts has them all.
const ConflictsShown = 3

// maxSeverityBytes bounds a conflict's severity label (low, medium or high).
const maxSeverityBytes = 8

// conflicts fills the open conflicts section: a heading with the count, then the first few,
// each one line quoting both statements (oneLine: a statement cannot start a line of its own).
func (r *renderer) conflicts(s *section) {
	for _, c := range r.in.Conflicts {
		a, b := oneLine(c.TextA), oneLine(c.TextB)
		if a == "" || b == "" {
			continue
		}
		s.items = append(s.items, item{prefix: "- " + label(c.Severity, maxSeverityBytes) + ": ", text: "\"" + a + "\" vs \"" + b + "\""})
	}
	if len(s.items) == 0 {
		return
	}
	n := max(r.in.OpenConflicts, len(s.items))
	s.heading = "## Open conflicts (" + strconv.Itoa(n) + ", for a human to decide; " + r.style.tool("memory_conflicts") + " lists them)\n"
	s.limit = ConflictsShown
}

// SectionConflicts is the open conflicts (a count and the first few), after the plan: an
// agent must know which notes contradict before it relies on them.
const SectionConflicts Section = "open_conflicts"
