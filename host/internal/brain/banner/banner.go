package banner

import (
	"time"

	"github.com/google/uuid"
)

// Input is everything one banner may show, all from one project; the banner shows nothing
// else. Keeping other projects out is the caller's job.
type Input struct {
	// Project is the project key, shown in the header.
	Project string
	// Now is the render time, for ages such as "2d ago". Zero leaves ages out.
	Now time.Time
	// Goal and Plan are the project documents; empty text means unset.
	Goal Document
	Plan Document
	// Map is the project map's summary; UpdatedAt is when it was scanned.
	Map Document
	// Task are the facts most relevant to the session's task, best first: the caller ranked
	// them with the task as the query and kept only hits over its confidence floor. Empty when
	// the task is unknown, or nothing is relevant enough to be worth its tokens.
	Task []Fact
	// Facts are the candidates for top facts, best first by the host's ranker in spawn mode.
	Facts []Fact
	// Recent are the newest facts, newest first; the first Options.RecentWindow are the
	// guaranteed window.
	Recent []Fact
	// Journal holds recent session entries, newest first.
	Journal []JournalEntry
	// Conflicts are the first of the project's open conflicts, most severe first, and
	// OpenConflicts how many are open in all: the banner shows the count and a few.
	Conflicts     []Conflict
	OpenConflicts int
}

// Conflict is two statements of the project found contradicting, each shown on one line.
type Conflict struct {
	Severity     string
	TextA, TextB string
}

// Document is a goal, a plan or a map summary. Its text may span lines.
type Document struct {
	Text      string
	UpdatedAt time.Time
}

// Fact is one memory. Its text is shown on one line, behind its short id (the last 8 hex
// digits of its id, more where two facts shown share them) so an agent can fetch it whole.
type Fact struct {
	ID        uuid.UUID
	Kind      string
	Text      string
	Pinned    bool
	UpdatedAt time.Time
}

// JournalEntry is what one session did. Its text is shown on one line.
type JournalEntry struct {
	Agent   string
	Session string
	Text    string
	At      time.Time
}

// Section names a part of the banner, in fill order.
type Section string

// The sections, in the order they are filled and shown.
const (
	SectionGoal    Section = "goal"
	SectionTask    Section = "task"
	SectionPlan    Section = "plan"
	SectionMap     Section = "map"
	SectionNewest  Section = "newest_facts"
	SectionJournal Section = "journal"
	SectionTop     Section = "top_facts"
)

// Stop says which limit ended a section early.
type Stop string

// The limits that end a section. Only StopBudget ends the fill: every later section is then
// empty, so a lower-priority section never takes space a higher one needed.
const (
	StopNone   Stop = ""
	StopBudget Stop = "budget" // the whole banner's budget is spent
	StopShare  Stop = "share"  // the section's share of the budget is spent
	StopCount  Stop = "count"  // the section's item limit (Options.JournalEntries)
)

// SectionReport says what one section showed and what it left out.
type SectionReport struct {
	Section Section `json:"section"`
	// Shown counts items in the banner, including a shortened one.
	Shown int `json:"shown"`
	// Cut counts given items that appear nowhere in the banner. A fact shown in another
	// section is not cut; one shown nowhere is cut once, in newest_facts when it was in the
	// recent window, in task when it was relevant to the task, and in top_facts otherwise.
	Cut int `json:"cut"`
	// Truncated is set when the section's only item was shortened to fit.
	Truncated bool `json:"truncated,omitempty"`
	// StoppedBy is the limit that ended the section, if one did.
	StoppedBy Stop `json:"stopped_by,omitempty"`
	// Tokens is the section's share of Result.Tokens, its heading included.
	Tokens int `json:"tokens"`
	// Facts are the ids of the facts the section shows, in order (fact sections only): what
	// the console's banner preview marks as made the cut. Not part of the JSON answer.
	Facts []uuid.UUID `json:"-"`
}

// Result is a rendered banner.
type Result struct {
	Text string `json:"text"`
	// Tokens is CountTokens(Text), never more than Budget.
	Tokens int `json:"tokens"`
	Budget int `json:"budget"`
	// Sections lists every section in fill order, empty ones included.
	Sections []SectionReport `json:"sections"`
	// Given lists the facts shown, in the order shown, with what each one's line costs: what
	// the session's record keeps as given (not part of the JSON answer).
	Given []Given `json:"-"`
}

// Given is one fact a banner shows: its section and its line's tokens.
type Given struct {
	ID      uuid.UUID
	Section Section
	Tokens  int
}

// Cut reports whether anything given was left out or shortened; the closing note is in the
// text exactly then.
func (r Result) Cut() bool {
	for _, s := range r.Sections {
		if s.Cut > 0 || s.Truncated {
			return true
		}
	}
	return false
}

// Render builds the banner for in within opts. It fails only on invalid options (a
// *FieldError); any input renders.
func Render(in Input, opts Options) (Result, error) {
	opts, err := opts.resolve()
	if err != nil {
		return Result{}, err
	}
	return newRenderer(in, opts).render(), nil
}
