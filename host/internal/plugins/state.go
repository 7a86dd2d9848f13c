package plugins

import "time"

// State is the life-cycle state of a supervised plugin.
type State string

const (
	// StateStarting: the process is being launched for the first time.
	StateStarting State = "starting"
	// StateReady: the process answers and reports itself healthy.
	StateReady State = "ready"
	// StateUnhealthy: the process answers, but its Health call failed or it
	// failed a call (or answered one in breach of its protocol); calls still
	// go through, since the plugin may serve some of them.
	StateUnhealthy State = "unhealthy"
	// StateRestarting: the process died or broke; calls fail fast until a
	// restart attempt succeeds.
	StateRestarting State = "restarting"
	// StateFailed: the plugin will not be (re)started without operator
	// action: it failed to launch at startup, its checksum no longer
	// matches, or it came back with a different identity.
	StateFailed State = "failed"
	// StateStopped: the Supervisor was shut down.
	StateStopped State = "stopped"
)

// Status is a snapshot of one supervised plugin, for `memhost plugins` and
// the status API. It is for operators: LastError carries the full diagnosis,
// which may name paths and span lines.
type Status struct {
	Kind string `json:"kind"`
	// Name is the name the plugin reports, or the name from its file name
	// when it never started.
	Name string `json:"name"`
	// Instance is the configured instance the process runs (Candidate.Instance), if any.
	Instance    string `json:"instance,omitempty"`
	Binary      string `json:"binary"`
	Version     string `json:"version,omitempty"`
	Description string `json:"description,omitempty"`
	// Shape is what the kind says must not change across restarts, e.g.
	// "384 dimensions".
	Shape     string    `json:"shape,omitempty"`
	Path      string    `json:"path"`
	State     State     `json:"state"`
	PID       int       `json:"pid,omitempty"`
	StartedAt time.Time `json:"started_at,omitzero"`
	// Restarts counts successful restarts since the Supervisor started.
	Restarts int `json:"restarts"`
	// RestartAttempt and NextRestart describe the ongoing outage while the
	// state is restarting.
	RestartAttempt int       `json:"restart_attempt,omitempty"`
	NextRestart    time.Time `json:"next_restart,omitzero"`
	LastError      string    `json:"last_error,omitempty"`
}
