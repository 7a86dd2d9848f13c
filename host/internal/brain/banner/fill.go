package banner

import (
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/shortid"
)

// sectionSpec is one section's fixed shape. share is the most of the budget (in percent) the
// section may take, so a long plan or map cannot crowd out the facts behind it.
type sectionSpec struct {
	name    Section
	heading string
	share   int
}

// specs is the fill order, which is also the order shown.
var specs = [...]sectionSpec{
	{SectionGoal, "", 15},
	{SectionTask, "## Relevant to this task\n", 40},
	{SectionPlan, "", 30},
	{SectionConflicts, "", 10},
	{SectionMap, "", 25},
	{SectionNewest, "## Newest facts\n", 35},
	{SectionJournal, "## Recent sessions\n", 25},
	{SectionTop, "## Top facts\n", 100},
}

// item is one candidate line or block: prefix + text + "\n". Only text may be shortened.
// The prefix of a fact or journal entry is formatted on first use: most of 200 candidate
// facts are never reached.
type item struct {
	text   string
	prefix string
	fact   *Fact
	entry  *JournalEntry
}

func (it item) unit() string { return it.prefix + it.text + "\n" }

// section holds one section's candidates, built once per render.
type section struct {
	sectionSpec
	heading string // for documents, carries the age
	items   []item
	limit   int // most items; 0 means no limit
	// names are the short ids of every fact given, unique among them (shortid.Shorten).
	names map[uuid.UUID]string
	// units and tokens cache each item's text and count across fill passes.
	units  []string
	tokens []int
}

type renderer struct {
	in     Input
	opts   Options
	style  cliStyle
	head   []string
	secs   []*section
	window map[uuid.UUID]bool // ids in the recent window
	task   map[uuid.UUID]bool // ids relevant to the task
	facts  []uuid.UUID        // every distinct fact id given
}

func newRenderer(in Input, opts Options) *renderer {
	r := &renderer{in: in, opts: opts, style: cliTools[opts.CLI], window: make(map[uuid.UUID]bool, opts.RecentWindow),
		task: make(map[uuid.UUID]bool, len(in.Task))}
	r.head = header(in.Project, r.style)
	for _, spec := range specs {
		r.secs = append(r.secs, r.build(spec))
	}
	// Every distinct fact given: the task's, the top candidates, the window, and the rest of
	// Recent.
	seen := make(map[uuid.UUID]bool, len(in.Task)+len(in.Facts)+len(in.Recent))
	for _, name := range []Section{SectionTask, SectionTop, SectionNewest} {
		for _, it := range r.section(name).items {
			if !seen[it.fact.ID] {
				seen[it.fact.ID] = true
				r.facts = append(r.facts, it.fact.ID)
			}
		}
	}
	for _, f := range in.Recent {
		if !seen[f.ID] && oneLine(f.Text) != "" {
			seen[f.ID] = true
			r.facts = append(r.facts, f.ID)
		}
	}
	names := shortid.Shorten(r.facts)
	for _, s := range r.secs {
		s.names = names
	}
	return r
}

func (r *renderer) section(name Section) *section {
	for _, s := range r.secs {
		if s.name == name {
			return s
		}
	}
	return &section{}
}

func (r *renderer) build(spec sectionSpec) *section {
	s := &section{sectionSpec: spec, heading: spec.heading}
	now := r.in.Now
	doc := func(title, verb string, d Document) {
		if text := document(d.Text); text != "" {
			s.heading = docHeading(title, verb, d, now)
			s.items = []item{{text: text}}
		}
	}
	facts := func(fs []Fact, n int) {
		seen := make(map[uuid.UUID]bool, len(fs))
		for i := range fs {
			if n > 0 && len(s.items) == n {
				return
			}
			text := oneLine(fs[i].Text)
			if text == "" || seen[fs[i].ID] {
				continue
			}
			seen[fs[i].ID] = true
			s.items = append(s.items, item{text: text, fact: &fs[i]})
		}
	}
	switch spec.name {
	case SectionGoal:
		doc("Goal", "updated", r.in.Goal)
	case SectionPlan:
		doc("Plan", "updated", r.in.Plan)
	case SectionMap:
		doc("Project map", "scanned", Document{Text: withoutMapHeader(r.in.Map.Text), UpdatedAt: r.in.Map.UpdatedAt})
	case SectionTask:
		facts(r.in.Task, 0)
		for _, it := range s.items {
			r.task[it.fact.ID] = true
		}
	case SectionNewest:
		facts(r.in.Recent, r.opts.RecentWindow)
		for _, it := range s.items {
			r.window[it.fact.ID] = true
		}
	case SectionConflicts:
		r.conflicts(s)
	case SectionJournal:
		for i := range r.in.Journal {
			if text := oneLine(r.in.Journal[i].Text); text != "" {
				s.items = append(s.items, item{text: text, entry: &r.in.Journal[i]})
			}
		}
		s.limit = r.opts.JournalEntries
	case SectionTop:
		facts(r.in.Facts, 0)
	}
	s.units = make([]string, len(s.items))
	s.tokens = make([]int, len(s.items))
	return s
}

// item returns candidate i with its prefix formatted.
func (s *section) item(i int, now time.Time) item {
	it := &s.items[i]
	if it.prefix == "" {
		switch {
		case it.fact != nil:
			it.prefix = factPrefix(*it.fact, s.names[it.fact.ID], now)
		case it.entry != nil:
			it.prefix = journalPrefix(*it.entry, now)
		}
	}
	return *it
}

// unit returns candidate i's unit and its token count.
func (s *section) unit(i int, now time.Time) (string, int) {
	if s.units[i] == "" {
		s.units[i] = s.item(i, now).unit()
		s.tokens[i] = CountTokens(s.units[i])
	}
	return s.units[i], s.tokens[i]
}

// layout is the outcome of filling the body within a limit.
type layout struct {
	units   []string
	tokens  int
	reports []SectionReport
	shown   map[uuid.UUID]bool
	given   []Given
}

// fill places items in priority order until limit tokens are used. Within a section items
// go in the caller's order and the section ends at the first item that does not fit; an item
// is never skipped for a smaller one behind it. When the first item of a section does not
// fit, it is shortened at a word boundary to fit, so a section holding candidates is not
// left empty while it has room for a few words. A section ended by the whole budget ends the
// fill.
func (r *renderer) fill(limit int) layout {
	f := layout{shown: make(map[uuid.UUID]bool, 64), units: make([]string, 0, 64)}
	remaining := limit
	spent := false
	for _, s := range r.secs {
		rep := SectionReport{Section: s.name}
		if spent {
			if len(s.items) > 0 {
				rep.StoppedBy = StopBudget
			}
			f.reports = append(f.reports, rep)
			continue
		}
		share := r.opts.Budget * s.share / 100
		allow := min(remaining, share)
		stop := StopShare
		if remaining <= share {
			stop = StopBudget
		}
		headCost := CountTokens(s.heading)
		used := 0
		for i := range s.items {
			if s.limit > 0 && rep.Shown == s.limit {
				rep.StoppedBy = StopCount
				break
			}
			it := s.item(i, r.in.Now)
			if it.fact != nil && f.shown[it.fact.ID] {
				continue
			}
			unit, cost := s.unit(i, r.in.Now)
			if rep.Shown == 0 {
				cost += headCost
			}
			if used+cost <= allow {
				f.add(s, rep.Shown == 0, it, unit)
				rep.add(it)
				rep.Shown++
				used += cost
				continue
			}
			if rep.Shown == 0 {
				if text, n, ok := shorten(it, allow-headCost); ok {
					it.text = text
					f.add(s, true, it, it.unit())
					rep.add(it)
					rep.Shown, rep.Truncated = 1, true
					used += headCost + n
				}
			}
			rep.StoppedBy = stop
			break
		}
		rep.Tokens = used
		remaining -= used
		f.tokens += used
		spent = rep.StoppedBy == StopBudget
		f.reports = append(f.reports, rep)
	}
	r.countCuts(&f)
	return f
}

func (f *layout) add(s *section, first bool, it item, unit string) {
	if first {
		f.units = append(f.units, s.heading)
	}
	f.units = append(f.units, unit)
	if it.fact != nil {
		f.shown[it.fact.ID] = true
		f.given = append(f.given, Given{ID: it.fact.ID, Section: s.name, Tokens: CountTokens(unit)})
	}
}

// add records a fact the section shows.
func (rep *SectionReport) add(it item) {
	if it.fact != nil {
		rep.Facts = append(rep.Facts, it.fact.ID)
	}
}

// countCuts fills in each report's Cut from what was shown.
func (r *renderer) countCuts(f *layout) {
	for i, s := range r.secs {
		rep := &f.reports[i]
		switch s.name {
		case SectionNewest, SectionTask, SectionTop:
			// Facts are counted once over the three sections, below.
		default:
			rep.Cut = len(s.items) - rep.Shown
		}
	}
	newest, task, top := report(f.reports, SectionNewest), report(f.reports, SectionTask), report(f.reports, SectionTop)
	if newest.Shown+task.Shown+top.Shown == len(r.facts) {
		return
	}
	for _, id := range r.facts {
		switch {
		case f.shown[id]:
		case r.window[id]:
			newest.Cut++
		case r.task[id]:
			task.Cut++
		default:
			top.Cut++
		}
	}
}

// report finds a section's report; every section has one.
func report(reports []SectionReport, name Section) *SectionReport {
	for i := range reports {
		if reports[i].Section == name {
			return &reports[i]
		}
	}
	return &SectionReport{}
}

// shorten cuts an item's text at the longest word boundary whose unit, ending in an
// ellipsis, fits in room tokens, and returns the shortened text and the unit's count. It
// never cuts inside a word: text whose first word does not fit is not shown at all.
func shorten(it item, room int) (string, int, bool) {
	var cuts []int
	prev := ' '
	for i, c := range it.text {
		if unicode.IsSpace(c) && !unicode.IsSpace(prev) {
			cuts = append(cuts, i)
		}
		prev = c
	}
	text := func(k int) string { return it.text[:cuts[k]] + ellipsis }
	best, bestTokens := -1, 0
	lo, hi := 0, len(cuts)-1
	for lo <= hi {
		mid := (lo + hi) / 2
		if n := CountTokens(it.prefix + text(mid) + "\n"); n <= room {
			best, bestTokens = mid, n
			lo = mid + 1
		} else {
			hi = mid - 1
		}
	}
	if best < 0 {
		return "", 0, false
	}
	return text(best), bestTokens, true
}

// render fills the budget, first without a closing note. When something must be cut it
// fills again, leaving room for the note: first the worst case's room (grown until the note
// fits), then the room the note actually took, kept if the note still fits.
func (r *renderer) render() Result {
	headTokens := 0
	for _, u := range r.head {
		headTokens += CountTokens(u)
	}
	limit := r.opts.Budget - headTokens
	a := attempt{layout: r.fill(limit)}
	if cut(a.reports) {
		reserve := CountTokens(r.note(r.worstCase()))
		for {
			a = r.attempt(limit, reserve)
			// With nothing shown the note is the worst case, and MinBudget holds the header
			// and the worst note for any project and CLI (TestRenderMinBudgetHoldsWorstCase).
			if a.fits(limit) || a.tokens == 0 {
				break
			}
			reserve += a.tokens + a.noteTokens - limit
		}
		if b := r.attempt(limit, a.noteTokens); b.fits(limit) {
			a = b
		}
	}
	var b strings.Builder
	for _, u := range r.head {
		b.WriteString(u)
	}
	for _, u := range a.units {
		b.WriteString(u)
	}
	b.WriteString(a.note)
	return Result{
		Text:     b.String(),
		Tokens:   headTokens + a.tokens + a.noteTokens,
		Budget:   r.opts.Budget,
		Sections: a.reports,
		Given:    a.given,
	}
}

// attempt is a fill with its closing note.
type attempt struct {
	layout
	note       string
	noteTokens int
}

func (r *renderer) attempt(limit, reserve int) attempt {
	a := attempt{layout: r.fill(limit - reserve)}
	a.note = r.note(a.reports)
	a.noteTokens = CountTokens(a.note)
	return a
}

func (a attempt) fits(limit int) bool { return a.tokens+a.noteTokens <= limit }

func cut(reports []SectionReport) bool {
	return Result{Sections: reports}.Cut()
}
