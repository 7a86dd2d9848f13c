package plugins

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// restartLocked moves a ready or unhealthy plugin whose process inst broke
// to restarting and starts the restart goroutine. It ignores reports about a
// process that is no longer current, so concurrent failing calls start one
// restart.
func (p *Plugin) restartLocked(inst *instance, cause error) {
	if p.inst != inst || (p.state != StateReady && p.state != StateUnhealthy) {
		return
	}
	if time.Since(inst.started) >= stableRun {
		p.streak = 0
	}
	p.streak++
	p.attempt = 1
	p.state = StateRestarting
	p.lastErr = cause
	p.healthErr, p.fault, p.faultMethod = nil, nil, ""
	p.healthTimeouts = 0
	p.nextTry = time.Now().Add(p.backoffLocked())
	p.s.logger.Warn("plugin broke, restarting", "kind", p.cand.Kind, "name", p.nameLocked(), "pid", inst.pid, "error", cause, "in", time.Until(p.nextTry).Round(time.Millisecond))
	p.s.mu.Lock()
	started := p.s.goLocked(func() { p.restartLoop(inst) })
	p.s.mu.Unlock()
	if started {
		// The restart goroutine owns (and kills) the broken process now.
		p.inst = nil
	}
	// Otherwise the Supervisor is stopping: Shutdown kills inst and marks the
	// plugin stopped.
}

// backoffLocked is the delay before the next launch attempt: exponential in
// streak and attempt, capped, with "equal jitter" (half fixed, half random).
func (p *Plugin) backoffLocked() time.Duration {
	d := p.s.cfg.RestartBackoffInitial
	for range p.streak + p.attempt - 2 {
		if d >= p.s.cfg.RestartBackoffMax/2 {
			d = p.s.cfg.RestartBackoffMax
			break
		}
		d *= 2
	}
	d = min(d, p.s.cfg.RestartBackoffMax)
	return d/2 + rand.N(d/2+1)
}

// restartLoop replaces the broken process old, retrying with backoff until a
// launch succeeds, the failure is permanent or the Supervisor stops.
func (p *Plugin) restartLoop(old *instance) {
	// Reap the old process first; it is dead or wedged, so this is quick
	// (go-plugin force-kills after two seconds). Its output has then been
	// read to the end, so its last words can join the reason.
	old.kill()
	p.mu.Lock()
	if p.state == StateRestarting && p.lastErr != nil {
		p.lastErr = old.withLastWords(p.lastErr)
	}
	p.mu.Unlock()
	for {
		p.mu.Lock()
		wait := time.Until(p.nextTry)
		p.mu.Unlock()
		if !p.s.sleep(wait) {
			return // Shutdown marks the plugin stopped.
		}
		inst, err := p.s.launch(p.cand)
		if err == nil {
			p.mu.Lock()
			want := p.ident
			p.mu.Unlock()
			if got := inst.ident; got.Name != want.Name || got.Shape != want.Shape {
				inst.kill()
				err = fmt.Errorf("%w: %s now reports %s with %s, was %s with %s; refusing a different plugin under the same name, replace the binary or reconfigure",
					ErrIdentityChanged, p.cand.Path, got.Name, got.Shape, want.Name, want.Shape)
			}
		}

		p.mu.Lock()
		switch {
		case p.state == StateStopped:
			// A reload retired the plugin meanwhile (Generation.Commit or Abort): nothing
			// may install a process into it any more.
			p.mu.Unlock()
			if err == nil {
				inst.kill()
			}
			return
		case err == nil:
			p.inst = inst
			p.ident = inst.ident // Version and limits may change; identity may not.
			p.state = StateReady
			p.restarts++
			p.attempt = 0
			p.nextTry = time.Time{}
			p.s.metrics.restarts.WithLabelValues(p.cand.Kind, p.nameLocked()).Inc()
			p.s.logger.Info("plugin restarted", "kind", p.cand.Kind, "name", p.nameLocked(), "pid", inst.pid, "restarts", p.restarts)
			p.mu.Unlock()
			return
		case errors.Is(err, ErrIdentityChanged), errors.Is(err, ErrChecksumMismatch):
			p.state = StateFailed
			p.inst = nil
			p.lastErr = err
			p.s.logger.Error("plugin cannot be restarted", "kind", p.cand.Kind, "name", p.nameLocked(), "error", err)
			p.mu.Unlock()
			return
		default:
			p.attempt++
			p.lastErr = err
			p.nextTry = time.Now().Add(p.backoffLocked())
			p.s.logger.Warn("plugin restart failed", "kind", p.cand.Kind, "name", p.nameLocked(), "attempt", p.attempt-1, "error", err, "next_try_in", time.Until(p.nextTry).Round(time.Millisecond))
			p.mu.Unlock()
		}
	}
}
