package plugins

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// healthMethod names health probes in metrics and faults.
const healthMethod = "Health"

// Plugin is one plugin under the Supervisor's care, across all the processes
// that serve it over time. Kind adapters wrap it in their kind's interface
// and reach the process through Call.
type Plugin struct {
	s    *Supervisor
	cand Candidate

	mu       sync.Mutex
	ident    Identity // from the first successful start; Version and Detail follow restarts
	hasIdent bool
	inst     *instance // current process; nil while none is usable
	state    State
	lastErr  error
	// healthErr is why the last health probe failed; fault is why the last
	// call of faultMethod failed. Either keeps the plugin unhealthy.
	healthErr   error
	fault       error
	faultMethod string
	// restarts counts successful restarts; streak counts restarts since the
	// plugin last ran for stableRun, and attempt counts launch attempts in
	// the current outage: together they pick the backoff.
	restarts       int
	streak         int
	attempt        int
	nextTry        time.Time
	probing        bool
	healthTimeouts int

	// retiring marks a plugin a reload replaced (see Supervisor.Replace): lookups no longer
	// return it, while calls already holding it finish. busy counts calls in flight.
	retiring atomic.Bool
	busy     atomic.Int64
	// served counts calls the current process answered successfully: a probe that timed
	// out while it moved was queued behind real work, not facing a wedged process.
	served atomic.Int64
}

// Kind is the plugin's kind.
func (p *Plugin) Kind() string { return p.cand.Kind }

// Path is the plugin binary.
func (p *Plugin) Path() string { return p.cand.Path }

// Instance is the configured instance the plugin runs (Candidate.Instance), "" if none.
func (p *Plugin) Instance() string { return p.cand.Instance }

// Identity is what the plugin reported at its latest start.
func (p *Plugin) Identity() Identity {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ident
}

// State is the plugin's current life-cycle state.
func (p *Plugin) State() State {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.noticeExitLocked()
	return p.state
}

// Status is a full snapshot, as in Supervisor.List.
func (p *Plugin) Status() Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.noticeExitLocked()
	s := Status{
		Kind:     p.cand.Kind,
		Name:     p.nameLocked(),
		Instance: p.cand.Instance,
		Binary:   p.cand.Binary(),
		Path:     p.cand.Path,
		State:    p.state,
		Restarts: p.restarts,
	}
	if p.hasIdent {
		s.Version = p.ident.Version
		s.Description = p.ident.Description
		s.Shape = p.ident.Shape
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
		s.LastError = p.Explain(p.lastErr.Error())
	}
	return s
}

// Explain tells msg, something the plugin said, in the operator's terms: each setting variable
// of a configured instance (MEMHOST_EMBEDDER_MAX_INPUT_TOKENS) becomes the key the operator
// sets (embedders.local.max_input_tokens).
func (p *Plugin) Explain(msg string) string {
	if r := explainer(p.cand.Keys); r != nil {
		return r.Replace(msg)
	}
	return msg
}

// nameLocked is how errors, logs and metrics call the plugin: its reported
// name once known (that is the name the rest of the host uses), else the name
// from its file name.
func (p *Plugin) nameLocked() string {
	if p.hasIdent {
		return p.ident.Name
	}
	return p.cand.Name
}

func (p *Plugin) adapter() Adapter { return p.s.adapters[p.cand.Kind] }

// healthTimeout bounds one health probe: the interval, so a wedged plugin is noticed within a
// round or two, but never less than minHealthTimeout and never more than a call may take (the
// plugin's own ceiling, e.g. an embedder's timeout). The floor is why a short interval (tests
// use 10 ms) does not turn a loaded machine's scheduling into "unhealthy" and, three in a row,
// a restart. At the defaults (10 s interval) a probe outlasts a re-embed batch (5 s) it may be
// queued behind at a one-request-at-a-time model. Probes never overlap: Run waits for a round
// before it takes the next tick.
func (p *Plugin) healthTimeout() time.Duration {
	return min(max(p.s.cfg.HealthInterval, minHealthTimeout), p.callTimeout())
}

// callTimeout bounds one call: the candidate's own ceiling when it has one (an embedder whose
// configured timeout is longer), else the Supervisor's.
func (p *Plugin) callTimeout() time.Duration {
	if p.cand.CallTimeout > 0 {
		return p.cand.CallTimeout
	}
	return p.s.cfg.CallTimeout
}

// Call runs fn against the plugin's current process (raw is the value the
// kind dispensed) under Config.CallTimeout layered on ctx, or fails fast when
// no process is usable. Errors that are not the caller's own context ending
// come back short and generic, safe to show a user ("embedder plugin
// bm25-v1-384 is restarting"), wrapping the kind's sentinel (see
// Adapter.Sentinel) and the cause; the detail goes to the host log and to
// Status.LastError.
//
// fn should also check what the plugin answered: an error it returns for an
// answer that breaks the kind's protocol is a Failed outcome like any other,
// which marks the plugin unhealthy with that reason until method succeeds.
func (p *Plugin) Call(ctx context.Context, method string, fn func(ctx context.Context, raw any) error) error {
	p.busy.Add(1)
	defer p.busy.Add(-1)
	start := time.Now()
	inst, name, err := p.acquire()
	if err != nil {
		p.s.metrics.observe(p.cand.Kind, name, method, start, "unavailable")
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, p.callTimeout())
	err = fn(cctx, inst.raw)
	// Our deadline, not the caller's, cut the call short.
	timedOut := ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded)
	cancel()
	result := resultLabel(p.adapter(), method, err)
	switch {
	case err == nil:
		p.succeeded(inst, method)
	case ctx.Err() != nil:
		// The caller gave up; that says nothing about the plugin.
		err = fmt.Errorf("%s plugin %s %s: %w", p.cand.Kind, name, method, ctx.Err())
	default:
		err = p.callFailed(inst, method, err, timedOut)
		if timedOut {
			result = "timeout"
		}
	}
	p.s.metrics.observe(p.cand.Kind, name, method, start, result)
	return err
}

func (p *Plugin) acquire() (*instance, string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.noticeExitLocked()
	if p.inst != nil && (p.state == StateReady || p.state == StateUnhealthy) {
		return p.inst, p.nameLocked(), nil
	}
	return nil, p.nameLocked(), p.unavailableLocked()
}

// callFailed classifies a failed call and acts on it. A dead process starts
// a restart; an unavailable plugin with a live process gets a probe (the
// plugin may have reported Unavailable itself, for instance a remote model
// being down, which is no reason to restart it); a failed call marks the
// plugin unhealthy.
func (p *Plugin) callFailed(inst *instance, method string, err error, timedOut bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	adapter := p.adapter()
	failure := func(o Outcome, msg string) error {
		return &callError{kind: p.cand.Kind, name: p.nameLocked(), msg: msg, sentinel: adapter.Sentinel(o), cause: err, detail: p.Explain(err.Error())}
	}
	switch {
	case inst.client.Exited():
		p.restartLocked(inst, fmt.Errorf("process %d exited during %s: %w", inst.pid, method, err))
		if p.inst == nil || p.inst == inst {
			return p.unavailableLocked()
		}
		// A newer process is already serving; report this call's failure.
		return failure(Unavailable, "exited during "+method)
	case timedOut:
		p.s.logger.Warn("plugin call timed out", "kind", p.cand.Kind, "name", p.nameLocked(), "method", method, "timeout", p.callTimeout(), "error", err)
		// A call's timeout counts as a probe's: probes defer to calls in flight (see check),
		// so a wedged process that keeps receiving calls is caught by the calls.
		p.timedOutLocked(inst, fmt.Errorf("%s: %w", method, err))
		return failure(Unavailable, fmt.Sprintf("did not answer %s within %s", method, p.callTimeout()))
	}
	switch o := adapter.Classify(err); o {
	case Unavailable:
		p.probeLocked(inst)
		return failure(o, "is unavailable")
	case Rejected:
		return failure(o, "rejected the request: "+OneLine(err.Error(), maxReasonBytes))
	case Unimplemented:
		return failure(o, "does not implement "+method)
	default:
		p.faultLocked(inst, method, err)
		return failure(Failed, method+" failed; the host log has the details")
	}
}

// faultLocked marks the plugin unhealthy because its process inst failed a
// call of method, or answered it in breach of its protocol.
func (p *Plugin) faultLocked(inst *instance, method string, err error) {
	if p.inst != inst {
		return
	}
	p.s.logger.Warn("plugin failed a call; unhealthy until the method succeeds again", "kind", p.cand.Kind, "name", p.nameLocked(), "method", method, "error", err)
	p.fault, p.faultMethod = err, method
	p.lastErr = fmt.Errorf("%s: %w", method, err)
	if p.state == StateReady {
		p.state = StateUnhealthy
	}
}

// succeeded clears a fault of method and makes an unhealthy plugin ready
// again when nothing else keeps it unhealthy.
func (p *Plugin) succeeded(inst *instance, method string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.inst != inst {
		return
	}
	// Any answer shows the process is not wedged; only Health's clears what Health found.
	p.healthTimeouts = 0
	if method == healthMethod {
		p.healthErr = nil
	} else {
		p.served.Add(1)
	}
	if p.fault != nil && p.faultMethod == method {
		p.fault, p.faultMethod = nil, ""
	}
	if p.state == StateUnhealthy && p.fault == nil && p.healthErr == nil {
		p.state = StateReady
		p.s.logger.Info("plugin healthy again", "kind", p.cand.Kind, "name", p.nameLocked())
	}
}

func (p *Plugin) markUnhealthyLocked(err error) {
	if p.state == StateReady {
		p.s.logger.Warn("plugin unhealthy", "kind", p.cand.Kind, "name", p.nameLocked(), "error", err)
	}
	p.state = StateUnhealthy
	p.healthErr = err
	p.lastErr = err
}

// noticeExitLocked starts a restart as soon as anyone looks at a plugin
// whose process has exited, instead of waiting for the next health check.
func (p *Plugin) noticeExitLocked() {
	if p.inst != nil && (p.state == StateReady || p.state == StateUnhealthy) && p.inst.client.Exited() {
		p.restartLocked(p.inst, fmt.Errorf("process %d exited", p.inst.pid))
	}
}

func (p *Plugin) unavailableLocked() error {
	e := &UnavailableError{Kind: p.cand.Kind, Name: p.nameLocked(), State: p.state, Cause: p.lastErr}
	if p.lastErr != nil {
		e.detail = p.Explain(p.lastErr.Error())
	}
	if a := p.adapter(); a != nil {
		e.sentinel = a.Sentinel(Unavailable)
	}
	if p.state == StateRestarting {
		e.Attempt = p.attempt
	}
	return e
}

// check is one health probe: process liveness, then the plugin's Health.
func (p *Plugin) check() {
	p.mu.Lock()
	p.noticeExitLocked()
	inst, state, name := p.inst, p.state, p.nameLocked()
	p.mu.Unlock()
	if inst == nil || (state != StateReady && state != StateUnhealthy) {
		return
	}
	adapter := p.adapter()
	ctx, cancel := context.WithTimeout(context.Background(), p.healthTimeout())
	start, served := time.Now(), p.served.Load()
	err := adapter.Health(ctx, inst.raw)
	cancel()
	p.s.metrics.observe(p.cand.Kind, name, healthMethod, start, resultLabel(adapter, healthMethod, err))
	if err == nil {
		p.succeeded(inst, healthMethod)
		return
	}

	p.mu.Lock()
	defer p.mu.Unlock()
	if p.inst != inst {
		return
	}
	// A probe that timed out is counted before the kind classifies it: an adapter may read a
	// deadline as its plugin's model being unavailable (embedders do, for calls), and one slow
	// probe on a loaded machine is no reason to restart a process.
	switch {
	case inst.client.Exited():
		p.restartLocked(inst, fmt.Errorf("health check: %w", err))
	case errors.Is(err, context.DeadlineExceeded) && (p.busy.Load() > 0 || p.served.Load() != served):
		// The probe queued behind calls (a slow model answering one request at a time): the
		// plugin is busy, not sick. Those calls' outcomes decide: a success keeps it ready,
		// a timeout counts as this probe's would have (callFailed).
		p.s.logger.Debug("health probe timed out behind calls in flight; their outcome decides", "kind", p.cand.Kind, "name", p.nameLocked(), "in_flight", p.busy.Load())
	case errors.Is(err, context.DeadlineExceeded):
		p.markUnhealthyLocked(err)
		p.timedOutLocked(inst, err)
	case adapter.Classify(err) == Unavailable:
		p.restartLocked(inst, fmt.Errorf("health check: %w", err))
	default:
		p.markUnhealthyLocked(err)
	}
}

// timedOutLocked counts a probe or call of inst that timed out, and restarts a process that
// answered nothing through healthTimeoutsBeforeRestart of them in a row: alive but wedged.
func (p *Plugin) timedOutLocked(inst *instance, err error) {
	if p.inst != inst {
		return
	}
	p.healthTimeouts++
	if p.healthTimeouts >= healthTimeoutsBeforeRestart {
		p.restartLocked(inst, fmt.Errorf("process %d is wedged: %d calls or health checks in a row timed out: %w", inst.pid, p.healthTimeouts, err))
	}
}

// probeLocked checks, once at a time, whether a process that returned
// Unavailable is actually gone.
func (p *Plugin) probeLocked(inst *instance) {
	if p.probing || p.inst != inst {
		return
	}
	p.s.mu.Lock()
	p.probing = p.s.goLocked(func() {
		p.check()
		p.mu.Lock()
		p.probing = false
		p.mu.Unlock()
	})
	p.s.mu.Unlock()
}

// stop kills the current process and marks the plugin stopped; Shutdown
// calls it once no Supervisor goroutine can install a new process.
func (p *Plugin) stop() {
	p.mu.Lock()
	inst := p.inst
	p.inst = nil
	p.state = StateStopped
	p.mu.Unlock()
	if inst != nil {
		inst.kill()
	}
}
