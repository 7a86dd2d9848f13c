package maintenance

import (
	"context"
	"time"

	"github.com/memhost/memhost/host/internal/wire"
)

// Job is one maintenance job. Its River kind is "maintenance." + Name().
type Job interface {
	Name() string
	// Run does one bounded pass. It returns what it examined and changed even when it stops
	// early; a dry run changes nothing and reports what it would have changed.
	Run(ctx context.Context, r Run) (Result, error)
}

// Run is what one pass of a job is given.
type Run struct {
	Now     time.Time // the clock's now: the job's notion of age is relative to it
	Project string    // "" for every project
	DryRun  bool
	// OlderThan overrides the job's age threshold for this run (`--older-than`); 0 keeps it.
	OlderThan time.Duration
	Budget    Budget
	Actor     string // recorded in history rows: "maintenance:<job>", plus " by <who>" for a run by hand
}

// Budget bounds one run. A zero field is no bound. LLM calls and tokens are for the jobs that
// ask a worker chain; the deterministic jobs use none.
type Budget struct {
	MaxRows     int
	MaxLLMCalls int
	MaxTokens   int
	MaxDuration time.Duration
}

// Result is what a run did (or, dry, would do).
type Result struct {
	Examined int64
	Changed  int64
	LLMCalls int64
	Tokens   int64
	// Partial is set when a budget stopped the run with work left for the next one.
	Partial bool
	// Items name what changed (or would change), at most maxItems of them.
	Items []wire.MaintenanceItem
}

// maxItems bounds Result.Items: the counts say how many in all.
const maxItems = 100

// add records one change in r, keeping at most maxItems items.
func (r *Result) add(it wire.MaintenanceItem) {
	r.Changed++
	if len(r.Items) < maxItems {
		r.Items = append(r.Items, it)
	}
}
