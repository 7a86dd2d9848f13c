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
	MaintenanceJob `koanf:",squash,flatten"`
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
	MaintenanceJob `koanf:",squash,flatten"`
	After          time.Duration `koanf:"after"`
}

// MaintenanceJournal archives journal entries older than OlderThan (reason "journal prune").
// Off by default: operators prune with `memhost project journal prune`.
type MaintenanceJournal struct {
	MaintenanceJob `koanf:",squash,flatten"`
	OlderThan      time.Duration `koanf:"older_than"`
}

// MaintenancePurge hard-deletes memories archived longer ago than Grace.
type MaintenancePurge struct {
	MaintenanceJob `koanf:",squash,flatten"`
	Grace          time.Duration `koanf:"grace"`
}

// MaintenanceStale archives facts never retrieved and older than After, reason "stale".
type MaintenanceStale struct {
	MaintenanceJob `koanf:",squash,flatten"`
	// After is the age past which a never-retrieved fact is stale.
	After time.Duration `koanf:"after"`
}

// MaintenanceJob holds the knobs every periodic job's table has; each table embeds it, so its
// keys stand in the table itself ([maintenance.stale] every = "24h").
type MaintenanceJob struct {
	Enabled bool `koanf:"enabled"`
	// Every is the period: at most one run per period, whichever host leads. A job that also
	// runs on an event (summarize: a session that ends) retries what failed at this period.
	Every time.Duration `koanf:"every"`
	// MaxRows bounds the rows one run handles (the summarize job's: sessions); the next run
	// carries on.
	MaxRows int `koanf:"max_rows"`
	// MaxDuration bounds one run's wall time.
	MaxDuration time.Duration `koanf:"max_duration"`
}

// MaintenanceLLM is the model budget of one run of a job that asks worker chains.
type MaintenanceLLM struct {
	MaxLLMCalls int `koanf:"max_llm_calls"`
	MaxTokens   int `koanf:"max_tokens"`
}

// MaintenanceSummarize summarises ended sessions into their journal entries from the
// transcript excerpt their client sent, extracts the durable facts they state and proposes
// plan updates. Enabled false (or a project in Exclude) journals sessions' metadata alone and
// stores no transcript.
type MaintenanceSummarize struct {
	MaintenanceJob `koanf:",squash,flatten"`
	MaintenanceLLM `koanf:",squash,flatten"`
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
		Stale:    MaintenanceStale{MaintenanceJob: daily(true), After: 90 * day},
		Purge:    MaintenancePurge{MaintenanceJob: daily(true), Grace: 30 * day},
		Journal:  MaintenanceJournal{MaintenanceJob: daily(false), OlderThan: 90 * day},
		Dormancy: MaintenanceDormancy{MaintenanceJob: daily(true), After: 60 * day},
		Reembed: MaintenanceReembed{MaintenanceJob: MaintenanceJob{Enabled: true, Every: 5 * time.Minute, MaxRows: 100000, MaxDuration: 10 * time.Minute},
			Batch: 64, BackoffMin: time.Minute, BackoffMax: 30 * time.Minute},

		Consolidate: defaultConsolidate(),
		Conflicts:   defaultConflicts(),
		Summarize: MaintenanceSummarize{MaintenanceJob: MaintenanceJob{Enabled: true, Every: 15 * time.Minute, MaxRows: 20, MaxDuration: 10 * time.Minute},
			MaintenanceLLM: MaintenanceLLM{MaxLLMCalls: 60, MaxTokens: 500000}, MaxAttempts: 5, Extract: true, PlanDrift: true},
		Gatekeeper: MaintenanceGatekeeper{Enabled: false, Timeout: 500 * time.Millisecond},
	}
}

// daily is the schedule of the age rules: once a day, up to 1000 rows in up to five minutes.
func daily(enabled bool) MaintenanceJob {
	return MaintenanceJob{Enabled: enabled, Every: day, MaxRows: 1000, MaxDuration: 5 * time.Minute}
}

// validate adds the maintenance tables' problems. Periods go down to a second so tests and
// operators can run a job often; ages down to a second likewise.
func (m Maintenance) validate(v *validator) {
	v.ageRule("maintenance.stale", m.Stale.MaintenanceJob, "after", m.Stale.After)
	v.ageRule("maintenance.purge", m.Purge.MaintenanceJob, "grace", m.Purge.Grace)
	v.ageRule("maintenance.journal", m.Journal.MaintenanceJob, "older_than", m.Journal.OlderThan)
	v.ageRule("maintenance.dormancy", m.Dormancy.MaintenanceJob, "after", m.Dormancy.After)
	m.Reembed.validate(v, "maintenance.reembed", 1, 10000000)
	v.intRange("maintenance.reembed.batch", m.Reembed.Batch, 1, 4096)
	v.floatRange("maintenance.reembed.rate", m.Reembed.Rate, 0, 1000000)
	v.duration("maintenance.reembed.backoff_min", m.Reembed.BackoffMin, time.Second, 24*time.Hour)
	v.duration("maintenance.reembed.backoff_max", m.Reembed.BackoffMax, time.Second, 24*time.Hour)
	if m.Reembed.BackoffMax < m.Reembed.BackoffMin {
		v.add("maintenance.reembed.backoff_max", fmt.Sprintf("%s is shorter than maintenance.reembed.backoff_min (%s)", m.Reembed.BackoffMax, m.Reembed.BackoffMin))
	}
	m.Consolidate.validate(v)
	m.Conflicts.validate(v)
	m.Summarize.MaintenanceJob.validate(v, "maintenance.summarize", 1, 10000)
	v.intRange("maintenance.summarize.max_llm_calls", m.Summarize.MaxLLMCalls, 1, 1000000)
	v.intRange("maintenance.summarize.max_tokens", m.Summarize.MaxTokens, 1, 1000000000)
	v.intRange("maintenance.summarize.max_attempts", m.Summarize.MaxAttempts, 1, 100)
	v.duration("maintenance.gatekeeper.timeout", m.Gatekeeper.Timeout, time.Millisecond, 500*time.Millisecond)
}

// validate adds the problems of j, the knobs of table: its period (a second to a year), its
// row budget (rowsLo to rowsHi) and its wall-time budget (a second to a day).
func (j MaintenanceJob) validate(v *validator, table string, rowsLo, rowsHi int) {
	v.duration(table+".every", j.Every, time.Second, 365*day)
	v.intRange(table+".max_rows", j.MaxRows, rowsLo, rowsHi)
	v.duration(table+".max_duration", j.MaxDuration, time.Second, 24*time.Hour)
}

// ageRule adds the problems of an age rule's table (stale, purge, journal, dormancy): its job
// knobs and the age its rule reads (a second to a century), named ageKey.
func (v *validator) ageRule(table string, j MaintenanceJob, ageKey string, age time.Duration) {
	j.validate(v, table, 1, 1000000)
	v.duration(table+"."+ageKey, age, time.Second, 100*365*day)
}

// validate adds the problems of l, the model budget of table's runs (0 asks no model).
func (l MaintenanceLLM) validate(v *validator, table string) {
	v.intRange(table+".max_llm_calls", l.MaxLLMCalls, 0, 100000)
	v.intRange(table+".max_tokens", l.MaxTokens, 0, 100000000)
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
