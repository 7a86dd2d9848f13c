package banner

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/shortid"
)

// The properties hold for any input: each run draws 400 inputs of random shape (sizes,
// lengths, duplicates, tricky texts, every CLI and budget edge) from a fixed seed.
func TestRenderProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(2026, 7))
	for i := range 400 {
		in, opts := randomInput(rng)
		res, err := Render(in, opts)
		require.NoError(t, err)
		checkProperties(t, in, opts, res)
		again, err := Render(in, opts)
		require.NoError(t, err)
		require.Equal(t, res, again, "case %d: same input, same banner", i)
	}
}

func checkProperties(t *testing.T, in Input, opts Options, res Result) {
	t.Helper()
	resolved, err := opts.resolve()
	require.NoError(t, err)

	// Never over the budget, and the count is the real count of the text.
	require.LessOrEqual(t, res.Tokens, res.Budget)
	require.Equal(t, resolved.Budget, res.Budget)
	require.Equal(t, CountTokens(res.Text), res.Tokens, "a banner's count is the sum of its units")

	// Sections add up: header + sections + note.
	lines := strings.SplitAfter(res.Text, "\n")
	require.GreaterOrEqual(t, len(lines), 2)
	sum := CountTokens(lines[0]) + CountTokens(lines[1])
	for _, s := range res.Sections {
		sum += s.Tokens
	}
	note := ""
	if last := lines[len(lines)-2]; strings.HasPrefix(last, "Not shown: ") {
		note = last
	}
	require.Equal(t, res.Tokens, sum+CountTokens(note))

	// The priority order: once the whole budget ends a section, later sections are empty;
	// and no section takes more than its share.
	spent := false
	for i, s := range res.Sections {
		require.Equal(t, specs[i].name, s.Section)
		if spent {
			require.Zero(t, s.Shown, "%s got items after the budget ran out", s.Section)
		}
		spent = spent || s.StoppedBy == StopBudget
		require.LessOrEqual(t, s.Tokens, res.Budget*specs[i].share/100, "%s over its share", s.Section)
	}

	// The note is there exactly when something given is missing or shortened, judged from
	// the text alone.
	missing := notFullyShown(in, res.Text)
	require.Equal(t, missing, res.Cut(), "Cut() agrees with the text")
	require.Equal(t, missing, note != "", "note present exactly when something was cut: %q", note)

	// Nothing that is not in the input; items in the caller's order.
	checkProvenance(t, in, lines[2:], note)
	checkOrder(t, in, resolved, res.Text)
	checkHeadings(t, res)
}

// headingLike matches a line that markdown, or a model skimming the text, could take for a
// heading: after white space, invisible format characters and quote or list markers, a "#"
// (ATX), or a run of "=" or of "-" alone (a setext underline, heading the line above).
var headingLike = regexp.MustCompile(`^(?:[\s\p{Z}\p{Cf}>]|[-*+][ \t]|[0-9]{1,9}[.)][ \t])*(?:#|=+[\s\p{Z}]*$|-+[\s\p{Z}]*$)`)

// checkHeadings: the banner's headings are exactly memhost's own, the title and one per
// section shown, in order, whatever the documents, facts and journal hold.
func checkHeadings(t *testing.T, res Result) {
	t.Helper()
	titles := map[Section]string{SectionGoal: "## Goal", SectionTask: "## Relevant to this task", SectionPlan: "## Plan", SectionMap: "## Project map",
		SectionNewest: "## Newest facts", SectionJournal: "## Recent sessions", SectionTop: "## Top facts",
		SectionConflicts: "## Open conflicts"}
	want := []string{"# memhost project memory"}
	for _, s := range res.Sections {
		if s.Shown > 0 {
			want = append(want, titles[s.Section])
		}
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSuffix(res.Text, "\n"), "\n") {
		if headingLike.MatchString(line) {
			got = append(got, line)
		}
	}
	require.Len(t, got, len(want), "headings: %q", got)
	for i, line := range got {
		own := line == want[i] || strings.HasPrefix(line, want[i]+" (") || (i == 0 && strings.HasPrefix(line, want[i]+": "))
		require.True(t, own, "not memhost's heading: %q (want %q)", line, want[i])
	}
}

// conflictLine is how a conflict is shown, whole.
func conflictLine(c Conflict) string {
	return "- " + label(c.Severity, maxSeverityBytes) + ": \"" + oneLine(c.TextA) + "\" vs \"" + oneLine(c.TextB) + "\""
}

// notFullyShown reports whether any given item is absent from text or shortened.
func notFullyShown(in Input, text string) bool {
	for _, c := range in.Conflicts {
		if oneLine(c.TextA) != "" && oneLine(c.TextB) != "" && !strings.Contains(text, conflictLine(c)+"\n") {
			return true
		}
	}
	for title, d := range map[string]Document{"Goal": in.Goal, "Plan": in.Plan, "Project map": in.Map} {
		if b := document(d.Text); b != "" && !docShown(text, title, b) {
			return true
		}
	}
	factLines := map[string]string{} // id prefix -> its line
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "- [") && len(line) > 12 {
			factLines[line[3:11]] = line
		}
	}
	for _, f := range slices.Concat(in.Task, in.Facts, in.Recent) {
		body := oneLine(f.Text)
		if body != "" && !strings.HasSuffix(factLines[shortid.Of(f.ID)], " "+body) {
			return true
		}
	}
	for _, e := range in.Journal {
		if body := oneLine(e.Text); body != "" && !strings.Contains(text, journalPrefix(e, in.Now)+body+"\n") {
			return true
		}
	}
	return false
}

// docShown reports whether the section titled title holds all of b. Its heading is the
// first line naming it: a document can hold such a line too, but only after the heading.
func docShown(text, title, b string) bool {
	at := -1
	for _, head := range []string{"\n## " + title + "\n", "\n## " + title + " ("} {
		if i := strings.Index(text, head); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	if at < 0 {
		return false
	}
	_, body, _ := strings.Cut(text[at+1:], "\n")
	return strings.HasPrefix(body, b+"\n")
}

// checkProvenance: every body line is a heading, the note, or text taken from the input
// (whole, or cut at a word boundary and ended with an ellipsis).
func checkProvenance(t *testing.T, in Input, body []string, note string) {
	t.Helper()
	var sources []string
	for _, d := range []Document{in.Goal, in.Plan, in.Map} {
		sources = append(sources, strings.Split(document(d.Text), "\n")...)
	}
	for _, f := range slices.Concat(in.Task, in.Facts, in.Recent) {
		sources = append(sources, factPrefix(f, shortid.Of(f.ID), in.Now)+oneLine(f.Text))
	}
	for _, e := range in.Journal {
		sources = append(sources, journalPrefix(e, in.Now)+oneLine(e.Text))
	}
	for _, c := range in.Conflicts {
		sources = append(sources, conflictLine(c))
	}
	for _, line := range body {
		line = strings.TrimSuffix(line, "\n")
		if line == "" || line+"\n" == note || isHeading(line) {
			continue
		}
		require.True(t, fromSources(line, sources), "line not from the input: %q", line)
	}
}

func isHeading(line string) bool {
	for _, h := range []string{"## Goal", "## Relevant to this task", "## Plan", "## Project map", "## Newest facts", "## Recent sessions", "## Top facts", "## Open conflicts"} {
		if line == h || strings.HasPrefix(line, h+" (") {
			return true
		}
	}
	return false
}

func fromSources(line string, sources []string) bool {
	cut, shortened := strings.CutSuffix(line, ellipsis)
	for _, src := range sources {
		if src == line || (shortened && strings.HasPrefix(src, cut)) {
			return true
		}
	}
	return false
}

// checkOrder: top facts are a run of the caller's ranking with no gaps, skipping only facts
// already shown among the task's or the newest facts; the newest facts are a run of the recent
// window, skipping those the task's showed; the task's facts are a run of the task's ranking.
func checkOrder(t *testing.T, in Input, opts Options, text string) {
	t.Helper()
	lines := strings.Split(text, "\n")
	top, newest, task := len(lines), -1, -1
	shownAt := map[string]int{}
	for i, line := range lines {
		switch {
		case line == "## Top facts" && top == len(lines):
			top = i
		case line == "## Newest facts" && newest < 0:
			newest = i
		case line == "## Relevant to this task" && task < 0:
			task = i
		}
		if strings.HasPrefix(line, "- [") && len(line) > 12 {
			if _, ok := shownAt[line[3:11]]; !ok {
				shownAt[line[3:11]] = i
			}
		}
	}
	run := func(facts []Fact, from, to int) {
		last, gap := -1, false
		seen := map[string]bool{}
		for _, f := range facts {
			id := shortid.Of(f.ID)
			if oneLine(f.Text) == "" || seen[id] {
				continue
			}
			seen[id] = true
			pos, ok := shownAt[id]
			switch {
			case ok && pos < from:
				continue // shown in an earlier section
			case !ok || pos >= to:
				gap = true
				continue
			}
			require.False(t, gap, "a fact was skipped for one behind it: %s", id)
			require.Greater(t, pos, last, "facts out of the caller's order")
			last = pos
		}
	}
	var window []Fact
	seen := map[string]bool{}
	for _, f := range in.Recent {
		if id := f.ID.String(); len(window) < opts.RecentWindow && oneLine(f.Text) != "" && !seen[id] {
			seen[id] = true
			window = append(window, f)
		}
	}
	if newest < 0 {
		newest = top
	}
	if task >= 0 {
		run(in.Task, task, newest)
	}
	run(window, newest, top)
	run(in.Facts, top, len(lines))
}
