package wire

import (
	"encoding/json"
	"time"
)

// The workers' answers: GET /api/v1/workers (WorkersStatus) and POST /api/v1/workers/try
// (TryResult). The task runner (package jobs/tasks) fills them. An outcome is one of the
// runner's call outcomes: ok, refused, rate_limited, timeout, bad_answer, over_budget,
// invalid_input, unavailable, canceled, error, or skipped (an attempt's only).

// WorkersStatus is what `memhost workers` and GET /api/v1/workers show.
type WorkersStatus struct {
	// Skipped, when set, says why LLM tasks are not run at all.
	Skipped string         `json:"skipped,omitempty"`
	Workers []WorkerStatus `json:"workers"`
	Tasks   []TaskStatus   `json:"tasks"`
}

// WorkerStatus is one worker's state and its last 24 hours.
type WorkerStatus struct {
	Name     string `json:"name"`
	Plugin   string `json:"plugin"`
	Model    string `json:"model,omitempty"`
	Locality string `json:"locality,omitempty"`
	// State is the plugin process's state (ready, unhealthy, restarting, failed), or
	// "missing" when its plugin binary was not found.
	State string `json:"state"`
	// LastError is why the plugin process is not ready (a failed start or health check).
	LastError string `json:"last_error,omitempty"`
	// LastFailure is the worker's last failed call on this host since it last answered, with
	// what the worker said: a plugin process can be ready while every call fails (an agent
	// CLI that is not logged in, an endpoint that refuses the key).
	LastFailure *Failure `json:"last_failure,omitempty"`
	// BackedOffUntil is set while the circuit breaker passes the worker over.
	BackedOffUntil *time.Time `json:"backed_off_until,omitempty"`
	DailyTokens    int        `json:"daily_tokens,omitempty"`
	Day            Rollup     `json:"last_24h"`
}

// TaskStatus is one task kind's chain and budget.
type TaskStatus struct {
	Task  string   `json:"task"`
	Chain []string `json:"chain"`
	Day   Rollup   `json:"last_24h"`
	// Waiting, when set, says which daily budget the kind has spent: its tasks wait.
	Waiting string `json:"waiting,omitempty"`
}

// Rollup is a worker's or a task kind's last 24 hours.
type Rollup struct {
	Calls        int     `json:"calls"`
	OK           int     `json:"ok"`
	SuccessRate  float64 `json:"success_rate"`
	P50Ms        float64 `json:"p50_ms"`
	P95Ms        float64 `json:"p95_ms"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	TimeMs       int64   `json:"time_ms"`
}

// Attempt is what happened with one worker of a chain: a call, or why it was passed over.
type Attempt struct {
	Worker string `json:"worker"`
	// Outcome is the call's outcome, or "skipped".
	Outcome string `json:"outcome"`
	// Reason says why a worker was skipped or failed, for an operator: for a failed call, what
	// the worker said (connection refused, HTTP 401, no such model, a CLI's exit status and
	// last line on stderr), else what the outcome means.
	Reason string `json:"reason,omitempty"`
}

// Failure is a worker's last failed call on this host since it last answered.
type Failure struct {
	At      time.Time `json:"at"`
	Task    string    `json:"task"`
	Outcome string    `json:"outcome"`
	Reason  string    `json:"reason"`
}

// TryResult is what one sample task did.
type TryResult struct {
	Task string `json:"task"`
	// Worker is the worker that answered; empty when none did (Error says why).
	Worker       string          `json:"worker,omitempty"`
	Model        string          `json:"model,omitempty"`
	LatencyMs    int64           `json:"latency_ms"`
	InputTokens  int             `json:"input_tokens"`
	OutputTokens int             `json:"output_tokens"`
	Result       json.RawMessage `json:"result,omitempty"`
	Error        string          `json:"error,omitempty"`
	Attempts     []Attempt       `json:"attempts"`
}
