package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Maintenance configures the self-maintenance jobs (docs/maintenance.md). River schedules
// them on one host of those sharing the database; every table holds one job's knobs.
type Maintenance struct {
	Stale    MaintenanceStale    `koanf:"stale"`
	Purge    MaintenancePurge    `koanf:"purge"`
	Journal  MaintenanceJournal  `koanf:"journal"`
	Dormancy MaintenanceDormancy `koanf:"dormancy"`
	Reembed  MaintenanceReembed  `koanf:"reembed"`

	// The jobs that ask worker chains (summarize: this file; the others: consolidate.go).
	Summarize   MaintenanceSummarize   `koanf:"summarize"`
	Gatekeeper  MaintenanceGatekeeper  `koanf:"gatekeeper"`
	Consolidate MaintenanceConsolidate `koanf:"consolidate"`
	Conflicts   MaintenanceConflicts   `koanf:"conflicts"`
}

// MaintenanceReembed embeds, with the active embedder, the memories that hold no vector of it
// (rows written under another embedder), so an embedder switch converges in the background.
type MaintenanceReembed struct {
	Enabled     bool          `koanf:"enabled"`
	Every       time.Duration `koanf:"every"`
	MaxRows     int           `koanf:"max_rows"`
	MaxDuration time.Duration `koanf:"max_duration"`
	// Batch is how many texts go in one embedder call (capped by the embedder's own limit).
	Batch int `koanf:"batch"`
	// Rate bounds the rows embedded per second, to spare a shared endpoint; 0 is unbounded
	// (one call in flight at a time).
	Rate float64 `koanf:"rate"`
	// BackoffMin and BackoffMax bound the wait after the embedder fails: it doubles with each
	// consecutive failure.
	BackoffMin time.Duration `koanf:"backoff_min"`
	BackoffMax time.Duration `koanf:"backoff_max"`
}

// MaintenanceDormancy archives the never-retrieved facts of projects with no git activity for
// After, or archived by the operator (seed 000 decision 4).
type MaintenanceDormancy struct {
	Enabled     bool          `koanf:"enabled"`
	Every       time.Duration `koanf:"every"`
	After       time.Duration `koanf:"after"`
	MaxRows     int           `koanf:"max_rows"`
	MaxDuration time.Duration `koanf:"max_duration"`
}

// MaintenanceJournal archives journal entries older than OlderThan (reason "journal prune").
// Off by default: operators prune with `memhost project journal prune`.
type MaintenanceJournal struct {
	Enabled     bool          `koanf:"enabled"`
	Every       time.Duration `koanf:"every"`
	OlderThan   time.Duration `koanf:"older_than"`
	MaxRows     int           `koanf:"max_rows"`
	MaxDuration time.Duration `koanf:"max_duration"`
}

// MaintenancePurge hard-deletes memories archived longer ago than Grace.
type MaintenancePurge struct {
	Enabled     bool          `koanf:"enabled"`
	Every       time.Duration `koanf:"every"`
	Grace       time.Duration `koanf:"grace"`
	MaxRows     int           `koanf:"max_rows"`
	MaxDuration time.Duration `koanf:"max_duration"`
}

// MaintenanceStale archives facts never retrieved and older than After, reason "stale".
type MaintenanceStale struct {
	Enabled bool `koanf:"enabled"`
	// Every is the period: at most one run per period, whichever host leads.
	Every time.Duration `koanf:"every"`
	// After is the age past which a never-retrieved fact is stale.
	After time.Duration `koanf:"after"`
	// MaxRows bounds the memories one run archives; the next run carries on.
	MaxRows int `koanf:"max_rows"`
	// MaxDuration bounds one run's wall time.
	MaxDuration time.Duration `koanf:"max_duration"`
}

// MaintenanceSummarize summarises ended sessions into their journal entries from the
// transcript excerpt their client sent, extracts the durable facts they state and proposes
// plan updates. Enabled false (or a project in Exclude) journals sessions' metadata alone and
// stores no transcript.
type MaintenanceSummarize struct {
	Enabled bool `koanf:"enabled"`
	// Every is the period of the run that retries sessions a failed run left queued; a session
	// that ends queues a run at once.
	Every       time.Duration `koanf:"every"`
	MaxRows     int           `koanf:"max_rows"` // sessions one run summarises
	MaxDuration time.Duration `koanf:"max_duration"`
	MaxLLMCalls int           `koanf:"max_llm_calls"`
	MaxTokens   int           `koanf:"max_tokens"`
	// MaxAttempts is how many failed summaries a session gets before its entry says why it
	// has none and its transcript is dropped.
	MaxAttempts int      `koanf:"max_attempts"`
	Extract     bool     `koanf:"extract"`
	PlanDrift   bool     `koanf:"plan_drift"`
	Exclude     []string `koanf:"exclude"`
}

// MaintenanceGatekeeper is the optional write-time filter: the gatekeeper worker chain may veto
// a write as not durable within Timeout (at most 500 ms), failing open. Off by default.
type MaintenanceGatekeeper struct {
	Enabled bool          `koanf:"enabled"`
	Timeout time.Duration `koanf:"timeout"`
}

const day = 24 * time.Hour

func defaultMaintenance() Maintenance {
	return Maintenance{
		Stale:    MaintenanceStale{Enabled: true, Every: day, After: 90 * day, MaxRows: 1000, MaxDuration: 5 * time.Minute},
		Purge:    MaintenancePurge{Enabled: true, Every: day, Grace: 30 * day, MaxRows: 1000, MaxDuration: 5 * time.Minute},
		Journal:  MaintenanceJournal{Enabled: false, Every: day, OlderThan: 90 * day, MaxRows: 1000, MaxDuration: 5 * time.Minute},
		Dormancy: MaintenanceDormancy{Enabled: true, Every: day, After: 60 * day, MaxRows: 1000, MaxDuration: 5 * time.Minute},
		Reembed: MaintenanceReembed{Enabled: true, Every: 5 * time.Minute, MaxRows: 100000, MaxDuration: 10 * time.Minute,
			Batch: 64, BackoffMin: time.Minute, BackoffMax: 30 * time.Minute},

		Consolidate: defaultConsolidate(),
		Conflicts:   defaultConflicts(),
		Summarize: MaintenanceSummarize{Enabled: true, Every: 15 * time.Minute, MaxRows: 20, MaxDuration: 10 * time.Minute,
			MaxLLMCalls: 60, MaxTokens: 500000, MaxAttempts: 5, Extract: true, PlanDrift: true},
		Gatekeeper: MaintenanceGatekeeper{Enabled: false, Timeout: 500 * time.Millisecond},
	}
}

// validate adds the maintenance tables' problems. Periods go down to a second so tests and
// operators can run a job often; ages down to a second likewise.
func (m Maintenance) validate(v *validator) {
	v.ageRule("maintenance.stale", "after", m.Stale.Every, m.Stale.After, m.Stale.MaxRows, m.Stale.MaxDuration)
	v.ageRule("maintenance.purge", "grace", m.Purge.Every, m.Purge.Grace, m.Purge.MaxRows, m.Purge.MaxDuration)
	v.ageRule("maintenance.journal", "older_than", m.Journal.Every, m.Journal.OlderThan, m.Journal.MaxRows, m.Journal.MaxDuration)
	v.ageRule("maintenance.dormancy", "after", m.Dormancy.Every, m.Dormancy.After, m.Dormancy.MaxRows, m.Dormancy.MaxDuration)
	v.job("maintenance.reembed", m.Reembed.Every, m.Reembed.MaxRows, m.Reembed.MaxDuration, 1, 10000000)
	v.intRange("maintenance.reembed.batch", m.Reembed.Batch, 1, 4096)
	v.floatRange("maintenance.reembed.rate", m.Reembed.Rate, 0, 1000000)
	v.duration("maintenance.reembed.backoff_min", m.Reembed.BackoffMin, time.Second, 24*time.Hour)
	v.duration("maintenance.reembed.backoff_max", m.Reembed.BackoffMax, time.Second, 24*time.Hour)
	if m.Reembed.BackoffMax < m.Reembed.BackoffMin {
		v.add("maintenance.reembed.backoff_max", fmt.Sprintf("%s is shorter than maintenance.reembed.backoff_min (%s)", m.Reembed.BackoffMax, m.Reembed.BackoffMin))
	}
	m.Consolidate.validate(v)
	m.Conflicts.validate(v)
	v.job("maintenance.summarize", m.Summarize.Every, m.Summarize.MaxRows, m.Summarize.MaxDuration, 1, 10000)
	v.intRange("maintenance.summarize.max_llm_calls", m.Summarize.MaxLLMCalls, 1, 1000000)
	v.intRange("maintenance.summarize.max_tokens", m.Summarize.MaxTokens, 1, 1000000000)
	v.intRange("maintenance.summarize.max_attempts", m.Summarize.MaxAttempts, 1, 100)
	v.duration("maintenance.gatekeeper.timeout", m.Gatekeeper.Timeout, time.Millisecond, 500*time.Millisecond)
}

// job adds the problems of the knobs every periodic job's table has: its period (a second to
// a year), its row budget (rowsLo to rowsHi) and its wall-time budget (a second to a day).
func (v *validator) job(table string, every time.Duration, maxRows int, maxDuration time.Duration, rowsLo, rowsHi int) {
	v.duration(table+".every", every, time.Second, 365*day)
	v.intRange(table+".max_rows", maxRows, rowsLo, rowsHi)
	v.duration(table+".max_duration", maxDuration, time.Second, 24*time.Hour)
}

// ageRule adds the problems of an age rule's table (stale, purge, journal, dormancy): a job's
// knobs, in the order of its fields, and the age its rule reads (a second to a century), named
// ageKey.
func (v *validator) ageRule(table, ageKey string, every, age time.Duration, maxRows int, maxDuration time.Duration) {
	v.job(table, every, maxRows, maxDuration, 1, 1000000)
	v.duration(table+"."+ageKey, age, time.Second, 100*365*day)
}

// llmBudget adds the problems of a job's model budget per run (0 asks no model).
func (v *validator) llmBudget(table string, calls, tokens int) {
	v.intRange(table+".max_llm_calls", calls, 0, 100000)
	v.intRange(table+".max_tokens", tokens, 0, 100000000)
}

// ParseAge reads a duration as the config file does: Go's units plus d for days ("90d").
// Flags and query parameters that take an age use it, so they accept what the file accepts.
func ParseAge(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(days, 64)
		if err != nil || n < 0 || n > 100*365 {
			return 0, fmt.Errorf("%q is not a number of days", s)
		}
		return time.Duration(n * float64(day)), nil
	}
	return time.ParseDuration(s)
}
