package plugins

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/plugin"
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

// healthTimeoutsBeforeRestart is how many consecutive Health calls may time
// out before a process that is alive but wedged is restarted.
const healthTimeoutsBeforeRestart = 3

// Config configures a Manager. Zero values take the defaults above.
type Config struct {
	// CallTimeout bounds every call through a handle, on top of the caller's
	// own deadline, and the Describe made at launch.
	CallTimeout time.Duration
	// StartTimeout bounds launching a process up to its handshake.
	StartTimeout time.Duration
	// HealthInterval is the period of the health loop. Negative disables it;
	// dead processes are then noticed only by calls.
	HealthInterval time.Duration
	// RestartBackoffInitial is the delay before the first restart attempt;
	// each further attempt doubles it, up to RestartBackoffMax. Delays are
	// jittered (between half and all of the nominal value) so that plugins
	// that died together do not restart in lockstep.
	RestartBackoffInitial time.Duration
	RestartBackoffMax     time.Duration
	// Logger receives the manager's log and, through go-plugin, each
	// plugin's stderr. Nil means hclog.Default().
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

// State is the life-cycle state of a managed plugin.
type State string

const (
	// StateStarting: the process is being launched for the first time.
	StateStarting State = "starting"
	// StateReady: the process answers and reports itself healthy.
	StateReady State = "ready"
	// StateUnhealthy: the process answers but its Health call failed; calls
	// still go through since the plugin may serve some of them.
	StateUnhealthy State = "unhealthy"
	// StateRestarting: the process died or broke; calls fail fast until a
	// restart attempt succeeds.
	StateRestarting State = "restarting"
	// StateFailed: the plugin will not be (re)started without operator
	// action: it failed to launch at startup, its checksum no longer
	// matches, or it came back with a different identity.
	StateFailed State = "failed"
	// StateStopped: the Manager was shut down.
	StateStopped State = "stopped"
)

// Status is a snapshot of one managed plugin, for `memhost plugins` and the
// status API.
type Status struct {
	Kind string `json:"kind"`
	// Name is the name the plugin reports (embedder Info.Name), or the name
	// from the file name when it never started.
	Name        string    `json:"name"`
	Binary      string    `json:"binary"`
	Version     string    `json:"version,omitempty"`
	Description string    `json:"description,omitempty"`
	Dimensions  int       `json:"dimensions,omitempty"`
	Path        string    `json:"path"`
	State       State     `json:"state"`
	PID         int       `json:"pid,omitempty"`
	StartedAt   time.Time `json:"started_at,omitzero"`
	// Restarts counts successful restarts since the Manager started.
	Restarts int `json:"restarts"`
	// RestartAttempt and NextRestart describe the ongoing outage while the
	// state is restarting.
	RestartAttempt int       `json:"restart_attempt,omitempty"`
	NextRestart    time.Time `json:"next_restart,omitzero"`
	LastError      string    `json:"last_error,omitempty"`
}

// ErrNotFound is wrapped by Manager.Embedder for unknown names.
var ErrNotFound = errors.New("plugin not found")

// ErrIdentityChanged is wrapped by the error of a plugin that came back from
// a restart reporting another name or vector size than before.
var ErrIdentityChanged = errors.New("plugin identity changed")

// UnavailableError is returned by handle calls that were refused without
// reaching a plugin process. It wraps embedder.ErrUnavailable and the
// plugin's last error.
type UnavailableError struct {
	Kind, Name string
	State      State
	// Attempt and NextTry describe the ongoing restart (state restarting).
	Attempt int
	NextTry time.Duration
	Cause   error
}

func (e *UnavailableError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s ", e.Kind, e.Name)
	switch e.State {
	case StateRestarting:
		if e.NextTry > 0 {
			fmt.Fprintf(&b, "is restarting (attempt %d, next try in %s)", e.Attempt, e.NextTry.Round(time.Millisecond))
		} else {
			fmt.Fprintf(&b, "is restarting (attempt %d in progress)", e.Attempt)
		}
	case StateFailed:
		b.WriteString("has failed and will not be restarted")
	default:
		fmt.Fprintf(&b, "is %s", e.State)
	}
	b.WriteString(": ")
	b.WriteString(embedder.ErrUnavailable.Error())
	if e.Cause != nil {
		b.WriteString(": ")
		b.WriteString(e.Cause.Error())
	}
	return b.String()
}

func (e *UnavailableError) Unwrap() []error {
	if e.Cause == nil {
		return []error{embedder.ErrUnavailable}
	}
	return []error{embedder.ErrUnavailable, e.Cause}
}

// Manager launches plugin processes and keeps them running. It is safe for
// concurrent use.
type Manager struct {
	cfg     Config
	logger  hclog.Logger
	metrics *metrics

	// mu guards the fields below. Lock order: managed.mu before Manager.mu.
	mu       sync.Mutex
	plugins  []*managed
	stopping bool
	loop     bool // the health loop is running
	// wg counts the goroutines the Manager owns (health loop, restarts,
	// probes); Add happens under mu after checking stopping, so Shutdown's
	// Wait never races with an Add.
	wg     sync.WaitGroup
	stopCh chan struct{}
}

// New returns a Manager; nothing runs until Start.
func New(cfg Config) *Manager {
	cfg = cfg.withDefaults()
	logger := cfg.Logger.Named("plugins")
	return &Manager{
		cfg:     cfg,
		logger:  logger,
		metrics: newMetrics(cfg.Registerer, logger),
		stopCh:  make(chan struct{}),
	}
}

// Start launches every candidate concurrently and waits for all launches. A
// candidate that fails to launch is kept in List with state failed, its error
// is part of the joined error returned, and it does not stop the others. Two
// plugins reporting the same name are an error for the second one. Start
// also starts the health loop. Start may be called again to add plugins.
//
// ctx bounds the launches: a launch still in progress when ctx ends is
// abandoned (its process is killed when it completes).
func (m *Manager) Start(ctx context.Context, candidates []Candidate) error {
	m.mu.Lock()
	if m.stopping {
		m.mu.Unlock()
		return errors.New("plugin manager is shut down")
	}
	recs := make([]*managed, len(candidates))
	for i, c := range candidates {
		recs[i] = &managed{m: m, cand: c, state: StateStarting}
		m.plugins = append(m.plugins, recs[i])
	}
	// Start counts as one of the Manager's goroutines so that a concurrent
	// Shutdown waits for it and then sees (and kills) every process it
	// installed; the launches are counted too.
	m.wg.Add(1 + len(recs))
	m.mu.Unlock()
	defer m.wg.Done()
	registerLive(m)

	type result struct {
		inst *instance
		err  error
	}
	results := make([]chan result, len(recs))
	abandon := make([]chan struct{}, len(recs))
	for i, p := range recs {
		results[i] = make(chan result)
		abandon[i] = make(chan struct{})
		// Launch from a goroutine we own even for one candidate: Pdeathsig
		// is tied to the forking thread (see configureCmd).
		go func() {
			defer m.wg.Done()
			inst, err := m.launch(p.cand)
			select {
			case results[i] <- result{inst, err}:
			case <-abandon[i]:
				// Start gave up waiting (ctx ended); nobody owns the process.
				if inst != nil {
					inst.kill()
				}
			}
		}()
	}

	var errs []error
	for i, p := range recs {
		var r result
		select {
		case r = <-results[i]:
		case <-ctx.Done():
			close(abandon[i])
			r.err = fmt.Errorf("launch abandoned: %w", ctx.Err())
		}
		if r.err == nil {
			if other := m.byInfoName(r.inst.info.Name, p); other != nil {
				r.inst.kill()
				r.err = fmt.Errorf("reports name %q, already served by %s", r.inst.info.Name, other.cand.Path)
			}
		}
		p.mu.Lock()
		if r.err != nil {
			p.state = StateFailed
			p.lastErr = fmt.Errorf("start %s: %w", p.cand.Path, r.err)
			errs = append(errs, p.lastErr)
			m.logger.Error("plugin failed to start", "path", p.cand.Path, "error", r.err)
		} else {
			p.inst = r.inst
			p.info = r.inst.info
			p.hasInfo = true
			p.state = StateReady
			m.logger.Info("plugin started", "kind", p.cand.Kind, "name", p.info.Name, "version", p.info.Version, "path", p.cand.Path, "pid", r.inst.pid)
		}
		p.mu.Unlock()
	}

	m.mu.Lock()
	stopping := m.stopping
	if !stopping && !m.loop && m.cfg.HealthInterval > 0 {
		m.loop = true
		m.wg.Add(1)
		go m.healthLoop()
	}
	m.mu.Unlock()
	if stopping {
		// Shutdown is waiting for Start and kills what it installed.
		errs = append(errs, errors.New("plugin manager shut down during Start"))
	}
	return errors.Join(errs...)
}

// byInfoName returns the managed embedder other than self whose reported
// name is name.
func (m *Manager) byInfoName(name string, self *managed) *managed {
	for _, p := range m.snapshot() {
		if p == self {
			continue
		}
		p.mu.Lock()
		match := p.hasInfo && p.info.Name == name && p.cand.Kind == plugin.KindEmbedder
		p.mu.Unlock()
		if match {
			return p
		}
	}
	return nil
}

func (m *Manager) snapshot() []*managed {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.plugins)
}

// Embedders returns a handle for every embedder that started at least once,
// whatever its current state, in start order.
func (m *Manager) Embedders() []EmbedderHandle {
	var out []EmbedderHandle
	for _, p := range m.snapshot() {
		p.mu.Lock()
		ok := p.hasInfo && p.cand.Kind == plugin.KindEmbedder
		p.mu.Unlock()
		if ok {
			out = append(out, p)
		}
	}
	return out
}

// Embedder returns the embedder whose reported name (Info.Name, e.g.
// "bm25-v1-384") or, failing that, file name part (e.g. "bm25") is name. An
// embedder that never started is returned as an error wrapping
// embedder.ErrUnavailable and its start error.
func (m *Manager) Embedder(name string) (EmbedderHandle, error) {
	var byFile *managed
	for _, p := range m.snapshot() {
		if p.cand.Kind != plugin.KindEmbedder {
			continue
		}
		p.mu.Lock()
		hasInfo, infoName := p.hasInfo, p.info.Name
		p.mu.Unlock()
		if hasInfo && infoName == name {
			return p, nil
		}
		if byFile == nil && p.cand.Name == name {
			byFile = p
		}
	}
	if byFile == nil {
		return nil, fmt.Errorf("embedder %q: %w", name, ErrNotFound)
	}
	byFile.mu.Lock()
	defer byFile.mu.Unlock()
	if !byFile.hasInfo {
		return nil, byFile.unavailableLocked()
	}
	return byFile, nil
}

// List returns the status of every plugin given to Start, sorted by kind and
// name.
func (m *Manager) List() []Status {
	ps := m.snapshot()
	out := make([]Status, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.status())
	}
	slices.SortStableFunc(out, func(a, b Status) int {
		if c := strings.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// Shutdown stops the health loop and pending restarts, kills every plugin
// process and waits for them to exit. After it returns nil no process started
// by m is left. If ctx ends first it returns ctx's error; the kills carry on
// in the background. Shutdown is idempotent.
func (m *Manager) Shutdown(ctx context.Context) error {
	m.mu.Lock()
	if !m.stopping {
		m.stopping = true
		close(m.stopCh)
	}
	m.mu.Unlock()

	done := make(chan struct{})
	go func() {
		defer close(done)
		// Restart goroutines may be installing a fresh process; wait for
		// them so that the kills below see every process.
		m.wg.Wait()
		var kills sync.WaitGroup
		for _, p := range m.snapshot() {
			kills.Go(p.stop)
		}
		kills.Wait()
		unregisterLive(m)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("plugin shutdown: %w", ctx.Err())
	}
}

// goLocked runs f in a goroutine counted by wg unless the Manager is
// stopping. m.mu must be held.
func (m *Manager) goLocked(f func()) bool {
	if m.stopping {
		return false
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		f()
	}()
	return true
}

func (m *Manager) healthLoop() {
	defer m.wg.Done()
	t := time.NewTicker(m.cfg.HealthInterval)
	defer t.Stop()
	for {
		select {
		case <-m.stopCh:
			return
		case <-t.C:
		}
		var wg sync.WaitGroup
		for _, p := range m.snapshot() {
			// Concurrently, so one wedged plugin does not delay the others'
			// checks by a whole timeout.
			wg.Go(p.check)
		}
		wg.Wait()
	}
}

// healthTimeout bounds one health probe: it must not outlast the interval.
func (m *Manager) healthTimeout() time.Duration {
	if m.cfg.HealthInterval > 0 && m.cfg.HealthInterval < m.cfg.CallTimeout {
		return m.cfg.HealthInterval
	}
	return m.cfg.CallTimeout
}

// instance is one running plugin process.
type instance struct {
	client  *goplugin.Client
	emb     embedder.Embedder
	info    embedder.Info
	pid     int
	started time.Time
}

// kill ends the process and waits for it; go-plugin first asks it to exit
// and force-kills it after two seconds. Safe to call more than once.
func (i *instance) kill() { i.client.Kill() }

// launch starts c's binary, dispenses its kind and calls Describe.
func (m *Manager) launch(c Candidate) (*instance, error) {
	if !supportedKinds[c.Kind] {
		return nil, fmt.Errorf("plugin kind %q is not supported by this host", c.Kind)
	}
	cmd := exec.Command(c.Path)
	cmd.Env = pluginEnv()
	configureCmd(cmd)
	cfg := &goplugin.ClientConfig{
		HandshakeConfig:  plugin.Handshake,
		VersionedPlugins: plugin.VersionedPlugins(),
		Cmd:              cmd,
		// nil would mean net/rpc only.
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolGRPC},
		AutoMTLS:         true,
		SkipHostEnv:      true, // cmd.Env is the allow-listed environment
		// Not Managed: go-plugin never drops managed clients from its global
		// list, so every restart would leak one. Shutdown and KillAll play
		// the role of goplugin.CleanupClients.
		Managed:      false,
		StartTimeout: m.cfg.StartTimeout,
		Logger:       m.logger.Named(c.Kind + "-" + c.Name),
	}
	if c.Checksum != "" {
		sum, err := hex.DecodeString(c.Checksum)
		if err != nil {
			return nil, fmt.Errorf("bad checksum %q: %w", c.Checksum, err)
		}
		// A fresh hash per launch: SecureConfig.Check writes into it.
		cfg.SecureConfig = &goplugin.SecureConfig{Checksum: sum, Hash: sha256.New()}
	}
	client := goplugin.NewClient(cfg)
	rpc, err := client.Client()
	if err != nil {
		client.Kill()
		if errors.Is(err, goplugin.ErrChecksumsDoNotMatch) {
			return nil, fmt.Errorf("%w: %s changed since it was allow-listed", ErrChecksumMismatch, c.Path)
		}
		return nil, fmt.Errorf("launch: %w", err)
	}
	inst := &instance{client: client, pid: cmd.Process.Pid, started: time.Now()}
	raw, err := rpc.Dispense(c.Kind)
	if err != nil {
		client.Kill()
		return nil, fmt.Errorf("dispense %s: %w", c.Kind, err)
	}
	emb, ok := raw.(embedder.Embedder)
	if !ok {
		client.Kill()
		return nil, fmt.Errorf("dispensed %T is not an embedder", raw)
	}
	inst.emb = emb
	ctx, cancel := context.WithTimeout(context.Background(), m.cfg.CallTimeout)
	defer cancel()
	start := time.Now()
	info, err := emb.Describe(ctx)
	label := c.Name
	if err == nil {
		label = info.Name
	}
	m.metrics.observe(c.Kind, label, "Describe", start, err)
	if err != nil {
		client.Kill()
		return nil, err
	}
	inst.info = info
	return inst, nil
}

// live are the Managers that have started plugins and not yet shut down,
// for KillAll.
var (
	liveMu sync.Mutex
	live   = map[*Manager]struct{}{}
)

func registerLive(m *Manager) {
	liveMu.Lock()
	live[m] = struct{}{}
	liveMu.Unlock()
}

func unregisterLive(m *Manager) {
	liveMu.Lock()
	delete(live, m)
	liveMu.Unlock()
}

// KillAll shuts down every Manager in the process that has not been shut
// down and waits for their plugin processes to exit. It is the host's
// equivalent of goplugin.CleanupClients: call it on exit paths that might
// skip an orderly Shutdown (a deferred call in main, a fatal signal).
func KillAll() {
	liveMu.Lock()
	ms := make([]*Manager, 0, len(live))
	for m := range live {
		ms = append(ms, m)
	}
	liveMu.Unlock()
	var wg sync.WaitGroup
	for _, m := range ms {
		wg.Go(func() { _ = m.Shutdown(context.Background()) })
	}
	wg.Wait()
}
