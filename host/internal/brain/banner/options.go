package banner

import "fmt"

// Option defaults and limits. MinBudget leaves room for the header, the closing note and a
// few items whatever the project key and CLI.
const (
	DefaultBudget         = 2000
	MinBudget             = 300
	MaxBudget             = 32000
	DefaultRecentWindow   = 5
	MaxRecentWindow       = 50
	DefaultJournalEntries = 5
	MaxJournalEntries     = 50
)

// Options shape a render. Zero values take the defaults.
type Options struct {
	// Budget is the most tokens (CountTokens) the banner may hold.
	Budget int
	// CLI names the client that reads the banner; it decides how tool names are written.
	CLI CLI
	// RecentWindow is how many of Input.Recent are guaranteed a place ahead of top facts.
	RecentWindow int
	// JournalEntries is the most journal entries shown.
	JournalEntries int
}

// FieldError is an option out of range: it names the field and the limit. Nothing was
// rendered.
type FieldError struct {
	Field   string
	Message string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Message }

func (o Options) resolve() (Options, error) {
	if o.Budget == 0 {
		o.Budget = DefaultBudget
	}
	if o.RecentWindow == 0 {
		o.RecentWindow = DefaultRecentWindow
	}
	if o.JournalEntries == 0 {
		o.JournalEntries = DefaultJournalEntries
	}
	switch {
	case o.Budget < MinBudget || o.Budget > MaxBudget:
		return o, rangeErr("budget", o.Budget, MinBudget, MaxBudget)
	case o.RecentWindow < 0 || o.RecentWindow > MaxRecentWindow:
		return o, rangeErr("recent_window", o.RecentWindow, 1, MaxRecentWindow)
	case o.JournalEntries < 0 || o.JournalEntries > MaxJournalEntries:
		return o, rangeErr("journal_entries", o.JournalEntries, 1, MaxJournalEntries)
	}
	if _, ok := cliTools[o.CLI]; !ok {
		return o, &FieldError{Field: "cli", Message: "must be claude, codex, gemini or empty"}
	}
	return o, nil
}

func rangeErr(field string, got, lo, hi int) error {
	return &FieldError{Field: field, Message: fmt.Sprintf("%d is out of range %d..%d", got, lo, hi)}
}
