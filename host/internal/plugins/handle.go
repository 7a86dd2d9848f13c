package plugins

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/memhost/memhost/sdk/embedder"
)

// EmbedderHandle is how the host uses an embedder plugin: an
// embedder.Embedder whose calls are bounded by Config.CallTimeout and which
// survives restarts of the process behind it, plus what operators need to
// know about that process.
type EmbedderHandle interface {
	embedder.Embedder
	// Info is what the plugin's Describe reported at its first start. It
	// stays valid while the process restarts, since a restart must report
	// the same Name and Dimensions.
	Info() embedder.Info
	// Path is the plugin binary.
	Path() string
	// State is the plugin's current life-cycle state.
	State() State
	// Status is a full snapshot, as in Manager.List.
	Status() Status
}

var _ EmbedderHandle = (*managed)(nil)

// managed is one plugin under the Manager's care, across all the processes
// that serve it over time.
type managed struct {
	m    *Manager
	cand Candidate

	mu      sync.Mutex
	info    embedder.Info // identity from the first successful start
	hasInfo bool
	inst    *instance // current process; nil while none is usable
	state   State
	lastErr error
	// restarts counts successful restarts; streak counts restarts since the
	// plugin last ran for stableRun, and attempt counts launch attempts in
	// the current outage: together they pick the backoff.
	restarts       int
	streak         int
	attempt        int
	nextTry        time.Time
	probing        bool
	healthTimeouts int
}

func (p *managed) Info() embedder.Info {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.info
}

func (p *managed) Path() string { return p.cand.Path }

func (p *managed) State() State {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.noticeExitLocked()
	return p.state
}

func (p *managed) Status() Status { return p.status() }

func (p *managed) Describe(ctx context.Context) (embedder.Info, error) {
	var info embedder.Info
	err := p.call(ctx, "Describe", func(ctx context.Context, e embedder.Embedder) error {
		var err error
		info, err = e.Describe(ctx)
		return err
	})
	return info, err
}

func (p *managed) Embed(ctx context.Context, purpose embedder.Purpose, texts []string) ([][]float32, error) {
	var vecs [][]float32
	err := p.call(ctx, "Embed", func(ctx context.Context, e embedder.Embedder) error {
		var err error
		vecs, err = e.Embed(ctx, purpose, texts)
		return err
	})
	return vecs, err
}

func (p *managed) Health(ctx context.Context) error {
	return p.call(ctx, "Health", func(ctx context.Context, e embedder.Embedder) error {
		return e.Health(ctx)
	})
}

// name is how errors, logs and metrics call the plugin: its reported name
// once known (that is the name the rest of the host uses), else the name from
// its file name.
func (p *managed) nameLocked() string {
	if p.hasInfo {
		return p.info.Name
	}
	return p.cand.Name
}

// call runs fn against the current process with the per-call deadline, or
// fails fast when there is no usable process.
func (p *managed) call(ctx context.Context, method string, fn func(context.Context, embedder.Embedder) error) error {
	start := time.Now()
	inst, name, err := p.acquire()
	if err == nil {
		cctx, cancel := context.WithTimeout(ctx, p.m.cfg.CallTimeout)
		err = fn(cctx, inst.emb)
		// Our deadline, not the caller's, cut the call short.
		timedOut := ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded)
		cancel()
		if err != nil {
			err = p.callFailed(inst, method, err, timedOut)
		}
	}
	p.m.metrics.observe(p.cand.Kind, name, method, start, err)
	return err
}

func (p *managed) acquire() (*instance, string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.noticeExitLocked()
	if p.inst != nil && (p.state == StateReady || p.state == StateUnhealthy) {
		return p.inst, p.nameLocked(), nil
	}
	return nil, p.nameLocked(), p.unavailableLocked()
}

// callFailed classifies a failed call. A dead process starts a restart and
// the caller gets an *UnavailableError; an unavailable transport with a live
// process starts a probe (the plugin itself may have reported Unavailable,
// for instance a remote model being down, which is no reason to restart it).
func (p *managed) callFailed(inst *instance, method string, err error, timedOut bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case inst.client.Exited():
		p.restartLocked(inst, fmt.Errorf("process %d exited: %w", inst.pid, err))
		if p.inst == nil || p.inst == inst {
			return p.unavailableLocked()
		}
		// A newer process is already serving; report this call's failure.
		return fmt.Errorf("%s %s %s: process %d exited during the call: %w: %w", p.cand.Kind, p.nameLocked(), method, inst.pid, embedder.ErrUnavailable, err)
	case errors.Is(err, embedder.ErrUnavailable):
		p.probeLocked(inst)
		return err
	case timedOut:
		return fmt.Errorf("%s %s %s: no answer within the call timeout of %s: %w: %w", p.cand.Kind, p.nameLocked(), method, p.m.cfg.CallTimeout, embedder.ErrUnavailable, err)
	default:
		return err
	}
}

// noticeExitLocked starts a restart as soon as anyone looks at a plugin
// whose process has exited, instead of waiting for the next health check.
func (p *managed) noticeExitLocked() {
	if p.inst != nil && (p.state == StateReady || p.state == StateUnhealthy) && p.inst.client.Exited() {
		p.restartLocked(p.inst, fmt.Errorf("process %d exited", p.inst.pid))
	}
}

func (p *managed) unavailableLocked() error {
	e := &UnavailableError{Kind: p.cand.Kind, Name: p.nameLocked(), State: p.state, Cause: p.lastErr}
	if p.state == StateRestarting {
		e.Attempt = p.attempt
		if d := time.Until(p.nextTry); d > 0 {
			e.NextTry = d
		}
	}
	return e
}

// restartLocked moves a ready or unhealthy plugin whose process inst broke
// to restarting and starts the restart goroutine. It ignores reports about a
// process that is no longer current, so concurrent failing calls start one
// restart.
func (p *managed) restartLocked(inst *instance, cause error) {
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
	p.healthTimeouts = 0
	p.nextTry = time.Now().Add(p.backoffLocked())
	p.m.logger.Warn("plugin broke, restarting", "kind", p.cand.Kind, "name", p.nameLocked(), "pid", inst.pid, "error", cause, "in", time.Until(p.nextTry).Round(time.Millisecond))
	p.m.mu.Lock()
	started := p.m.goLocked(func() { p.restartLoop(inst) })
	p.m.mu.Unlock()
	if started {
		// The restart goroutine owns (and kills) the broken process now.
		p.inst = nil
	}
	// Otherwise the Manager is stopping: Shutdown kills inst and marks the
	// plugin stopped.
}

// backoffLocked is the delay before the next launch attempt: exponential in
// streak and attempt, capped, with "equal jitter" (half fixed, half random).
func (p *managed) backoffLocked() time.Duration {
	d := p.m.cfg.RestartBackoffInitial
	for range p.streak + p.attempt - 2 {
		if d >= p.m.cfg.RestartBackoffMax/2 {
			d = p.m.cfg.RestartBackoffMax
			break
		}
		d *= 2
	}
	d = min(d, p.m.cfg.RestartBackoffMax)
	return d/2 + rand.N(d/2+1)
}

// restartLoop replaces the broken process old, retrying with backoff until a
// launch succeeds, the failure is permanent or the Manager stops.
func (p *managed) restartLoop(old *instance) {
	// Reap the old process first; it is dead or wedged, so this is quick
	// (go-plugin force-kills after two seconds).
	old.kill()
	for {
		p.mu.Lock()
		wait := time.Until(p.nextTry)
		p.mu.Unlock()
		if !p.m.sleep(wait) {
			return // Shutdown marks the plugin stopped.
		}
		inst, err := p.m.launch(p.cand)
		if err == nil {
			p.mu.Lock()
			want := p.info
			p.mu.Unlock()
			if inst.info.Name != want.Name || inst.info.Dimensions != want.Dimensions {
				inst.kill()
				err = fmt.Errorf("%w: %s now reports %s with %d dimensions, was %s with %d; refusing to change the vectors of stored memories, replace the binary or reconfigure",
					ErrIdentityChanged, p.cand.Path, inst.info.Name, inst.info.Dimensions, want.Name, want.Dimensions)
			}
		}

		p.mu.Lock()
		switch {
		case err == nil:
			p.inst = inst
			p.info = inst.info // Version and limits may change; identity may not.
			p.state = StateReady
			p.restarts++
			p.attempt = 0
			p.nextTry = time.Time{}
			p.m.metrics.restarts.WithLabelValues(p.cand.Kind, p.nameLocked()).Inc()
			p.m.logger.Info("plugin restarted", "kind", p.cand.Kind, "name", p.nameLocked(), "pid", inst.pid, "restarts", p.restarts)
			p.mu.Unlock()
			return
		case errors.Is(err, ErrIdentityChanged), errors.Is(err, ErrChecksumMismatch):
			p.state = StateFailed
			p.inst = nil
			p.lastErr = err
			p.m.logger.Error("plugin cannot be restarted", "kind", p.cand.Kind, "name", p.nameLocked(), "error", err)
			p.mu.Unlock()
			return
		default:
			p.attempt++
			p.lastErr = err
			p.nextTry = time.Now().Add(p.backoffLocked())
			p.m.logger.Warn("plugin restart failed", "kind", p.cand.Kind, "name", p.nameLocked(), "attempt", p.attempt-1, "error", err, "next_try_in", time.Until(p.nextTry).Round(time.Millisecond))
			p.mu.Unlock()
		}
	}
}

// sleep waits d and reports false if the Manager stopped meanwhile.
func (m *Manager) sleep(d time.Duration) bool {
	if d <= 0 {
		select {
		case <-m.stopCh:
			return false
		default:
			return true
		}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-m.stopCh:
		return false
	case <-t.C:
		return true
	}
}

// probeLocked checks, once at a time, whether a process that returned
// Unavailable is actually gone.
func (p *managed) probeLocked(inst *instance) {
	if p.probing || p.inst != inst {
		return
	}
	p.m.mu.Lock()
	p.probing = p.m.goLocked(func() {
		p.check()
		p.mu.Lock()
		p.probing = false
		p.mu.Unlock()
	})
	p.m.mu.Unlock()
}

// check is one health probe: process liveness, then the plugin's Health.
func (p *managed) check() {
	p.mu.Lock()
	p.noticeExitLocked()
	inst, state, name := p.inst, p.state, p.nameLocked()
	p.mu.Unlock()
	if inst == nil || (state != StateReady && state != StateUnhealthy) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), p.m.healthTimeout())
	start := time.Now()
	err := inst.emb.Health(ctx)
	cancel()
	p.m.metrics.observe(p.cand.Kind, name, "Health", start, err)

	p.mu.Lock()
	defer p.mu.Unlock()
	if p.inst != inst {
		return
	}
	switch {
	case err == nil:
		p.healthTimeouts = 0
		if p.state == StateUnhealthy {
			p.state = StateReady
			p.m.logger.Info("plugin healthy again", "kind", p.cand.Kind, "name", name)
		}
	case inst.client.Exited() || errors.Is(err, embedder.ErrUnavailable):
		p.restartLocked(inst, fmt.Errorf("health check: %w", err))
	case errors.Is(err, context.DeadlineExceeded):
		p.healthTimeouts++
		p.markUnhealthyLocked(err)
		if p.healthTimeouts >= healthTimeoutsBeforeRestart {
			p.restartLocked(inst, fmt.Errorf("process %d is wedged: %d health checks in a row timed out: %w", inst.pid, p.healthTimeouts, err))
		}
	default:
		p.markUnhealthyLocked(err)
	}
}

func (p *managed) markUnhealthyLocked(err error) {
	if p.state == StateReady {
		p.m.logger.Warn("plugin unhealthy", "kind", p.cand.Kind, "name", p.nameLocked(), "error", err)
	}
	p.state = StateUnhealthy
	p.lastErr = err
}

// stop kills the current process and marks the plugin stopped; Shutdown
// calls it once no Manager goroutine can install a new process.
func (p *managed) stop() {
	p.mu.Lock()
	inst := p.inst
	p.inst = nil
	p.state = StateStopped
	p.mu.Unlock()
	if inst != nil {
		inst.kill()
	}
}

func (p *managed) status() Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.noticeExitLocked()
	s := Status{
		Kind:     p.cand.Kind,
		Name:     p.nameLocked(),
		Binary:   p.cand.Binary(),
		Path:     p.cand.Path,
		State:    p.state,
		Restarts: p.restarts,
	}
	if p.hasInfo {
		s.Version = p.info.Version
		s.Description = p.info.Description
		s.Dimensions = p.info.Dimensions
	}
	if p.inst != nil {
		s.PID = p.inst.pid
		s.StartedAt = p.inst.started
	}
	if p.state == StateRestarting {
		s.RestartAttempt = p.attempt
		s.NextRestart = p.nextTry
	}
	if p.lastErr != nil {
		s.LastError = p.lastErr.Error()
	}
	return s
}
