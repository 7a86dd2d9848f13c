package wire

import "time"

// The maintenance answers: GET /api/v1/maintenance (MaintenanceJob), POST
// /api/v1/maintenance/{job}/run (MaintenanceReport, asked with RunOptions) and the re-embed
// progress GET /api/v1/status carries (ReembedProgress).

// MaintenanceJob is one job in GET /api/v1/maintenance.
type MaintenanceJob struct {
	Job     string          `json:"job"`
	Kind    string          `json:"kind"` // River's job kind, as in its tables
	Enabled bool            `json:"enabled"`
	Every   string          `json:"every"`
	Next    *time.Time      `json:"next_run,omitempty"`
	Last    *MaintenanceRun `json:"last_run,omitempty"`
}

// MaintenanceRun is one run of a job.
type MaintenanceRun struct {
	Trigger    string     `json:"trigger"` // periodic, manual or event
	Project    string     `json:"project,omitempty"`
	DryRun     bool       `json:"dry_run"`
	Host       string     `json:"host"`
	StartedAt  time.Time  `json:"started_at"`
	FinishedAt *time.Time `json:"finished_at,omitempty"`
	Outcome    string     `json:"outcome"` // running, ok, partial, failed or skipped
	Error      string     `json:"error,omitempty"`
	Examined   int64      `json:"examined"`
	Changed    int64      `json:"changed"`
	LLMCalls   int64      `json:"llm_calls"`
	Tokens     int64      `json:"tokens"`
}

// MaintenanceReport is POST /api/v1/maintenance/{job}/run's answer: the run and what it
// changed (or, dry, would change), at most 100 items; the counts are complete.
type MaintenanceReport struct {
	Job   string            `json:"job"`
	Run   MaintenanceRun    `json:"run"`
	Items []MaintenanceItem `json:"items"`
}

// MaintenanceItem is one memory a run changed or would change.
type MaintenanceItem struct {
	ID     string `json:"id"`
	Action string `json:"action"` // e.g. "archive"
	Reason string `json:"reason"` // e.g. "stale"
}

// RunOptions are a run by hand's choices.
type RunOptions struct {
	Project   string        // "" for every project
	DryRun    bool          // change nothing; report what would change
	OlderThan time.Duration // the job's age threshold for this run; 0 keeps the configured one
	// Actor names who asked for the run (e.g. "token:ops"): the history rows it writes name
	// it beside the job, "maintenance:purge by token:ops". "" for the scheduler's runs.
	Actor string
}

// ReembedProgress is how far the memories have converged on the active embedder's vectors.
type ReembedProgress struct {
	Embedder string `json:"embedder"`
	Total    int64  `json:"total"`
	// Missing is the rows left: memories without a vector of the active embedder. They are
	// found lexically meanwhile.
	Missing int64 `json:"missing"`
	// RatePerSecond is rows embedded per second of the time runs spent embedding, over the
	// runs of the last 15 minutes (maintenance.RateWindow) that embedded something and this host's run under way (0
	// when none did), and ETASeconds the time left at that rate (absent when unknown).
	RatePerSecond float64  `json:"rate_per_second"`
	ETASeconds    *float64 `json:"eta_seconds,omitempty"`
	// RetryAt is set while this host's runs back off after embedder failures, LastError why.
	RetryAt   *time.Time `json:"retry_at,omitempty"`
	LastError string     `json:"last_error,omitempty"`
	// Yielding is set while this host's run under way rests between batches for agents'
	// calls (memory.background_yield), and YieldedSeconds is how long that run, or else this
	// host's latest finished one, rested so. The rate counts the rests: it is the run's
	// real pace.
	Yielding       bool    `json:"yielding,omitempty"`
	YieldedSeconds float64 `json:"yielded_seconds,omitempty"`
}
