package spawn

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"
)

// TimelineEnv names a file that `memhost run` writes its Timeline to once the CLI has
// started, as JSON: the benchmark's attribution of memhost's share of a CLI's start
// (host/bench/spawn.go). Unset, nothing is recorded.
const TimelineEnv = "MEMHOST_SPAWN_TIMELINE"

// The steps of a run a Timeline records, in the order they end. The provider plugin starts
// while the token and the banner are fetched (Run's inject), so StepPlugin may come first.
const (
	StepInit   = "init"   // the process is running main: Go's runtime and every package initialised
	StepConfig = "config" // the configuration is loaded
	StepTask   = "task"   // the task is read from the arguments: by kept rules, else by the started plugin
	StepToken  = "token"  // a token for the project is at hand: kept, or minted through the database
	StepBanner = "banner" // the banner is fetched from the host
	StepPlugin = "plugin" // the provider plugin is started and has described itself
	StepPlan   = "plan"   // the provider has planned the spawn and its files are written
	StepExec   = "exec"   // the CLI's process is started
)

// Timeline records when a run reached each step. The zero value is ready; a nil *Timeline
// records nothing.
type Timeline struct {
	mu    sync.Mutex
	Steps []TimelineStep `json:"steps"`
}

// TimelineStep is one step and when it ended.
type TimelineStep struct {
	Step string    `json:"step"`
	At   time.Time `json:"at"`
}

// Mark records that step ended now.
func (t *Timeline) Mark(step string) { t.MarkAt(step, time.Now()) }

// MarkAt records that step ended at at.
func (t *Timeline) MarkAt(step string, at time.Time) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.Steps = append(t.Steps, TimelineStep{Step: step, At: at})
}

// WriteFile writes the timeline to path as JSON.
func (t *Timeline) WriteFile(path string) error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	data, err := json.Marshal(t)
	t.mu.Unlock()
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("write the spawn timeline: %w", err)
	}
	return nil
}
