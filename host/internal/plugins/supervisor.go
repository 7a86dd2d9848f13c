package plugins

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
)

// Supervisor launches plugin processes and keeps them running. It is safe
// for concurrent use.
type Supervisor struct {
	cfg      Config
	adapters map[string]Adapter
	logger   hclog.Logger
	metrics  *metrics

	// mu guards the fields below. Lock order: Plugin.mu before Supervisor.mu.
	mu       sync.Mutex
	plugins  []*Plugin
	stopping bool
	// wg counts the goroutines the Supervisor owns (launches, restarts,
	// probes); Add happens under mu after checking stopping, so Shutdown's
	// Wait never races with an Add.
	wg     sync.WaitGroup
	stopCh chan struct{}
}

// New returns a Supervisor for the kinds in cfg.Adapters; nothing runs until
// Start.
func New(cfg Config) *Supervisor {
	cfg = cfg.withDefaults()
	logger := cfg.Logger.Named("plugins")
	adapters := make(map[string]Adapter, len(cfg.Adapters))
	for _, a := range cfg.Adapters {
		adapters[a.Kind()] = a
	}
	return &Supervisor{
		cfg:      cfg,
		adapters: adapters,
		logger:   logger,
		metrics:  newMetrics(cfg.Registerer, logger),
		stopCh:   make(chan struct{}),
	}
}

// Start launches every candidate concurrently and waits for all launches. A
// candidate that fails to launch is kept in List with state failed, its error
// is part of the joined error returned, and it does not stop the others. Two
// plugins of one kind reporting the same name are an error for the second
// one. Start may be called again to add plugins.
//
// ctx bounds the launches: a launch still in progress when ctx ends is
// abandoned (its process is killed when it completes).
func (s *Supervisor) Start(ctx context.Context, candidates []Candidate) error {
	s.mu.Lock()
	if s.stopping {
		s.mu.Unlock()
		return errors.New("plugin supervisor is shut down")
	}
	recs := make([]*Plugin, len(candidates))
	for i, c := range candidates {
		recs[i] = &Plugin{s: s, cand: c, state: StateStarting}
		s.plugins = append(s.plugins, recs[i])
	}
	// Start counts as one of the Supervisor's goroutines so that a
	// concurrent Shutdown waits for it and then sees (and kills) every
	// process it installed; the launches are counted too.
	s.wg.Add(1 + len(recs))
	s.mu.Unlock()
	defer s.wg.Done()
	registerLive(s)

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
			defer s.wg.Done()
			inst, err := s.launch(p.cand)
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
			if other := s.byReportedName(p.cand.Kind, r.inst.ident.Name, p); other != nil {
				r.inst.kill()
				r.err = fmt.Errorf("reports name %q, already served by %s", r.inst.ident.Name, other.cand.Path)
			}
		}
		p.mu.Lock()
		if r.err != nil {
			p.state = StateFailed
			p.lastErr = fmt.Errorf("start: %w", r.err) // Status has the path
			errs = append(errs, fmt.Errorf("%s: %w", p.cand.Path, p.lastErr))
			s.logger.Error("plugin failed to start", "path", p.cand.Path, "error", r.err)
		} else {
			p.inst = r.inst
			p.ident = r.inst.ident
			p.hasIdent = true
			p.state = StateReady
			s.logger.Info("plugin started", "kind", p.cand.Kind, "name", p.ident.Name, "version", p.ident.Version, "path", p.cand.Path, "pid", r.inst.pid)
		}
		p.mu.Unlock()
	}

	s.mu.Lock()
	stopping := s.stopping
	s.mu.Unlock()
	if stopping {
		// Shutdown is waiting for Start and kills what it installed.
		errs = append(errs, errors.New("plugin supervisor shut down during Start"))
	}
	return errors.Join(errs...)
}

// byReportedName returns the plugin of kind other than self that reports
// name.
func (s *Supervisor) byReportedName(kind, name string, self *Plugin) *Plugin {
	for _, p := range s.current() {
		if p == self || p.cand.Kind != kind {
			continue
		}
		p.mu.Lock()
		match := p.hasIdent && p.ident.Name == name
		p.mu.Unlock()
		if match {
			return p
		}
	}
	return nil
}

func (s *Supervisor) snapshot() []*Plugin {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.plugins)
}

// current is snapshot without the plugins a reload is retiring: what lookups and listings see.
func (s *Supervisor) current() []*Plugin {
	return slices.DeleteFunc(s.snapshot(), func(p *Plugin) bool { return p.retiring.Load() })
}

// Plugins returns every plugin of kind that started at least once, whatever
// its current state, in start order.
func (s *Supervisor) Plugins(kind string) []*Plugin {
	var out []*Plugin
	for _, p := range s.current() {
		p.mu.Lock()
		ok := p.hasIdent && p.cand.Kind == kind
		p.mu.Unlock()
		if ok {
			out = append(out, p)
		}
	}
	return out
}

// Find returns the plugin of kind that answers to name: the name it reports
// (e.g. "bm25-v1-384"), else its binary's file name ("memhost-embedder-bm25")
// or the name part of it ("bm25"), which is what operators see in the plugin
// folder. A plugin that never started is returned as an *UnavailableError.
func (s *Supervisor) Find(kind, name string) (*Plugin, error) {
	var byFile *Plugin
	for _, p := range s.current() {
		if p.cand.Kind != kind {
			continue
		}
		p.mu.Lock()
		reported := p.hasIdent && p.ident.Name == name
		p.mu.Unlock()
		if reported {
			return p, nil
		}
		if byFile == nil && (p.cand.Name == name || p.cand.Binary() == name) {
			byFile = p
		}
	}
	if byFile == nil {
		return nil, fmt.Errorf("%s %q: %w", kind, name, ErrNotFound)
	}
	byFile.mu.Lock()
	defer byFile.mu.Unlock()
	if !byFile.hasIdent {
		return nil, byFile.unavailableLocked()
	}
	return byFile, nil
}

// List returns the status of every plugin given to Start, sorted by kind and
// name.
func (s *Supervisor) List() []Status {
	ps := s.current()
	out := make([]Status, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.Status())
	}
	slices.SortStableFunc(out, func(a, b Status) int {
		if c := strings.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// Run is the health loop: every Config.HealthInterval it probes each plugin
// (restarting dead or wedged processes, marking failing ones unhealthy). It
// runs until ctx ends and then returns nil, after its probes finished; the
// host runs it under its background lifecycle. With the loop disabled
// (negative HealthInterval) Run just waits for ctx. Calls notice dead
// processes whether or not Run runs.
func (s *Supervisor) Run(ctx context.Context) error {
	if s.cfg.HealthInterval < 0 {
		<-ctx.Done()
		return nil
	}
	t := time.NewTicker(s.cfg.HealthInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		var wg sync.WaitGroup
		for _, p := range s.snapshot() {
			// Concurrently, so one wedged plugin does not delay the others'
			// checks by a whole timeout.
			wg.Go(p.check)
		}
		wg.Wait()
	}
}

// Shutdown stops pending restarts and probes, kills every plugin process and
// waits for them to exit. After it returns nil no process or goroutine
// started by s is left (Run is the caller's and ends with its context). If
// ctx ends first it returns ctx's error; the kills carry on in the
// background. Shutdown is idempotent.
func (s *Supervisor) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if !s.stopping {
		s.stopping = true
		close(s.stopCh)
	}
	s.mu.Unlock()

	done := make(chan struct{})
	go func() {
		defer close(done)
		// Restart goroutines may be installing a fresh process; wait for
		// them so that the kills below see every process.
		s.wg.Wait()
		var kills sync.WaitGroup
		for _, p := range s.snapshot() {
			kills.Go(p.stop)
		}
		kills.Wait()
		unregisterLive(s)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("plugin shutdown: %w", ctx.Err())
	}
}

// goLocked runs f in a goroutine counted by wg unless the Supervisor is
// stopping. s.mu must be held.
func (s *Supervisor) goLocked(f func()) bool {
	if s.stopping {
		return false
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		f()
	}()
	return true
}

// sleep waits d and reports false if the Supervisor stopped meanwhile.
func (s *Supervisor) sleep(d time.Duration) bool {
	if d <= 0 {
		select {
		case <-s.stopCh:
			return false
		default:
			return true
		}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.stopCh:
		return false
	case <-t.C:
		return true
	}
}

// live are the Supervisors that have started plugins and not yet shut down,
// for KillAll.
var (
	liveMu sync.Mutex
	live   = map[*Supervisor]struct{}{}
)

func registerLive(s *Supervisor) {
	liveMu.Lock()
	live[s] = struct{}{}
	liveMu.Unlock()
}

func unregisterLive(s *Supervisor) {
	liveMu.Lock()
	delete(live, s)
	liveMu.Unlock()
}

// KillAll shuts down every Supervisor in the process that has not been shut
// down and waits for their plugin processes to exit. It is the host's
// equivalent of goplugin.CleanupClients: call it on exit paths that might
// skip an orderly Shutdown (a deferred call in main, a fatal signal).
func KillAll() {
	liveMu.Lock()
	ss := make([]*Supervisor, 0, len(live))
	for s := range live {
		ss = append(ss, s)
	}
	liveMu.Unlock()
	var wg sync.WaitGroup
	for _, s := range ss {
		wg.Go(func() { _ = s.Shutdown(context.Background()) })
	}
	wg.Wait()
}
