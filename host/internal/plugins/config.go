package plugins

import (
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"
)

// Defaults for zero Config fields.
const (
	DefaultCallTimeout           = 10 * time.Second
	DefaultStartTimeout          = 15 * time.Second
	DefaultHealthInterval        = 10 * time.Second
	DefaultRestartBackoffInitial = 200 * time.Millisecond
	DefaultRestartBackoffMax     = 30 * time.Second
)

// stableRun is how long a plugin process must have lived for its next crash
// to restart with the initial backoff again; a plugin that crashes sooner
// keeps climbing the backoff so a crash loop does not burn the CPU.
const stableRun = time.Minute

// minHealthTimeout is the least time a health probe is given, whatever the interval.
const minHealthTimeout = time.Second

// healthTimeoutsBeforeRestart is how many consecutive Health calls may time
// out before a process that is alive but wedged is restarted.
const healthTimeoutsBeforeRestart = 3

// Config configures a Supervisor. Zero values take the defaults above.
type Config struct {
	// Adapters are the kinds this Supervisor runs, one adapter per kind. A
	// candidate of any other kind is kept in List as failed.
	Adapters []Adapter
	// CallTimeout bounds every call through a Plugin, on top of the caller's
	// own deadline, and the identification made at launch.
	CallTimeout time.Duration
	// StartTimeout bounds launching a process up to its handshake.
	StartTimeout time.Duration
	// HealthInterval is the period of the health loop (Run). Negative
	// disables it; dead processes are then noticed only by calls.
	HealthInterval time.Duration
	// SocketDir, when set, is a private directory (0700, this user's) where
	// each plugin creates its unix socket, which only this user's processes
	// can then reach; the connection then goes without AutoMTLS, whose keys
	// (P-521, generated and verified on both sides) cost ~20 ms of a ~27 ms
	// launch: what `memhost run` cannot afford on every spawn. The daemon
	// leaves it empty.
	SocketDir string
	// RestartBackoffInitial is the delay before the first restart attempt;
	// each further attempt doubles it, up to RestartBackoffMax. Delays are
	// jittered (between half and all of the nominal value) so that plugins
	// that died together do not restart in lockstep.
	RestartBackoffInitial time.Duration
	RestartBackoffMax     time.Duration
	// Logger receives the supervisor's log and every line each plugin writes
	// to stderr. Nil means hclog.Default().
	Logger hclog.Logger
	// Registerer receives the memhost_plugin_* metrics; nil registers
	// nothing.
	Registerer prometheus.Registerer
}

func (c Config) withDefaults() Config {
	if c.CallTimeout <= 0 {
		c.CallTimeout = DefaultCallTimeout
	}
	if c.StartTimeout <= 0 {
		c.StartTimeout = DefaultStartTimeout
	}
	if c.HealthInterval == 0 {
		c.HealthInterval = DefaultHealthInterval
	}
	if c.RestartBackoffInitial <= 0 {
		c.RestartBackoffInitial = DefaultRestartBackoffInitial
	}
	if c.RestartBackoffMax <= 0 {
		c.RestartBackoffMax = DefaultRestartBackoffMax
	}
	if c.RestartBackoffMax < c.RestartBackoffInitial {
		c.RestartBackoffMax = c.RestartBackoffInitial
	}
	if c.Logger == nil {
		c.Logger = hclog.Default()
	}
	return c
}
