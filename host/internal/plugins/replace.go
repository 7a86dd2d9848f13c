package plugins

import (
	"context"
	"slices"
	"time"
)

// Generation is a set of plugins Replace started beside the ones it replaces, until Commit
// retires the old set or Abort drops the new one.
type Generation struct {
	s          *Supervisor
	old, fresh []*Plugin
}

// Replace starts candidates as the supervisor's plugins from now on, beside the running ones:
// from its return, lookups (Find, Plugins, List) see only the new set, while calls already
// holding an old plugin go on being served by it. A candidate that fails to start is kept,
// failed, as with Start, and its error is returned; the caller then decides with the new set
// in view whether to Commit or Abort. A reload uses it to pick up new or replaced binaries,
// changed checksums and changed settings without dropping a call.
func (s *Supervisor) Replace(ctx context.Context, candidates []Candidate) (*Generation, error) {
	g := &Generation{s: s, old: s.current()}
	for _, p := range g.old {
		p.retiring.Store(true)
	}
	err := s.Start(ctx, candidates)
	g.fresh = slices.DeleteFunc(s.snapshot(), func(p *Plugin) bool { return p.retiring.Load() })
	return g, err
}

// Commit retires the old set: after grace (the moment a request may take between looking a
// plugin up and calling it), and once their calls in flight have finished (at most
// CallTimeout more), the old processes are stopped and forgotten. It returns at once.
func (g *Generation) Commit(grace time.Duration) {
	s := g.s
	s.mu.Lock()
	defer s.mu.Unlock()
	s.goLocked(func() {
		if !s.sleep(grace) {
			return // Shutdown stops every process, the old ones too
		}
		deadline := time.Now().Add(s.cfg.CallTimeout)
		for _, p := range g.old {
			for p.busy.Load() > 0 && time.Now().Before(deadline) {
				if !s.sleep(10 * time.Millisecond) {
					return
				}
			}
		}
		for _, p := range g.old {
			p.stop()
		}
		s.forget(g.old)
		s.logger.Info("reload: previous plugins retired", "plugins", len(g.old))
	})
}

// Abort drops the new set and brings the old one back, as if Replace had not been called.
func (g *Generation) Abort() {
	for _, p := range g.fresh {
		p.stop()
	}
	g.s.forget(g.fresh)
	for _, p := range g.old {
		p.retiring.Store(false)
	}
}

// forget removes ps from the supervisor's plugins.
func (s *Supervisor) forget(ps []*Plugin) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.plugins = slices.DeleteFunc(s.plugins, func(p *Plugin) bool { return slices.Contains(ps, p) })
}
