package tasks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/memhost/memhost/host/internal/wire"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/hashicorp/go-hclog"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/host/internal/plugins/workers"
	"github.com/memhost/memhost/sdk/worker"
)

// Errors of Run, for errors.Is.
var (
	// ErrNoWorker: no worker is configured or found, so LLM tasks are skipped.
	ErrNoWorker = errors.New("no LLM worker is configured or found")
	// ErrNoAnswer: every worker of the chain was tried or passed over and none answered.
	ErrNoAnswer = errors.New("no worker of the chain answered")
	// ErrWaiting: the task kind has spent its daily budget and waits for the window to move.
	ErrWaiting = errors.New("the task kind has spent its daily budget")
)

// Options configure a Runner.
type Options struct {
	// Config supplies [workers], [tasks], plugins.dirs and plugins.checksums.
	Config *config.Config
	// Pool holds worker_calls.
	Pool *pgxpool.Pool
	// Log receives what is worth an operator's attention.
	Log *slog.Logger
	// Registerer receives the memhost_worker_* metrics and the workers' memhost_plugin_* ones.
	Registerer prometheus.Registerer
	// LookPath finds an agent CLI for the default chain; nil is exec.LookPath.
	LookPath func(string) (string, error)
	// Environ reads the host's environment for the variables passed to workers; nil is
	// os.LookupEnv.
	Environ func(string) (string, bool)
}

// Runner runs LLM tasks through the workers' chains. It is safe for concurrent use.
type Runner struct {
	pool    *pgxpool.Pool
	log     *slog.Logger
	tasks   config.Tasks
	sup     *plugins.Supervisor
	metrics *metrics
	now     func() time.Time

	defined map[string]config.Worker // the workers, configured or default
	missing map[string]string        // worker -> why it does not run

	mu       sync.Mutex
	chains   map[worker.TaskKind][]string
	breakers map[string]*breaker
	// failures holds each worker's last failed call on this host, until it answers again.
	failures map[string]wire.Failure
}

// callMargin is added to the longest task deadline for the supervisor's call ceiling, so the
// task's own deadline, not the ceiling, ends a slow call.
const callMargin = 5 * time.Second

// Open launches one process per worker and returns the Runner. A worker that cannot start is
// logged and kept in Status; Open fails only on a context that ends.
func Open(ctx context.Context, o Options) (*Runner, error) {
	if o.LookPath == nil {
		o.LookPath = exec.LookPath
	}
	if o.Environ == nil {
		o.Environ = hostEnviron
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	cfg := o.Config
	r := &Runner{
		pool: o.Pool, log: o.Log, tasks: cfg.Tasks, now: time.Now,
		metrics:  newMetrics(o.Registerer),
		defined:  defined(cfg.Workers, o.LookPath),
		chains:   map[worker.TaskKind][]string{},
		breakers: map[string]*breaker{},
		failures: map[string]wire.Failure{},
	}
	for _, kind := range config.TaskKinds {
		chain, ok := cfg.Workers.Chains[kind]
		if !ok {
			chain = defaultChain(r.defined)
		}
		r.chains[worker.TaskKind(kind)] = chain
	}
	ceiling := cfg.Tasks.RunTimeout
	for _, w := range r.defined {
		ceiling = max(ceiling, w.Timeout)
	}
	r.sup = plugins.New(plugins.Config{
		Adapters:    []plugins.Adapter{workers.Adapter{}},
		CallTimeout: ceiling + callMargin, HealthInterval: cfg.Plugins.HealthInterval,
		RestartBackoffMax: cfg.Plugins.RestartBackoffMax, Registerer: o.Registerer,
		Logger: hclog.New(&hclog.LoggerOptions{Level: hclog.LevelFromString(cfg.Log.Level)}),
	})
	if len(r.defined) == 0 {
		o.Log.Warn("no LLM worker: none is configured and no agent CLI (claude, gemini, codex) is on PATH; LLM tasks are skipped")
		return r, nil
	}
	found, _ := plugins.Discover(cfg.Plugins.Dirs, cfg.Plugins.Checksums) // the daemon logs discovery problems
	cands, missing := candidates(r.defined, found, o.Environ)
	r.missing = missing
	for name, why := range missing {
		o.Log.Warn("worker not started", "worker", name, "reason", why)
	}
	if err := r.sup.Start(ctx, cands); err != nil {
		if ctx.Err() != nil {
			return nil, errors.Join(err, r.sup.Shutdown(context.WithoutCancel(ctx)))
		}
		o.Log.Warn("some workers failed to start", "err", err)
	}
	return r, nil
}

// Supervise runs the workers' health loop until ctx ends.
func (r *Runner) Supervise(ctx context.Context) error { return r.sup.Run(ctx) }

// Close kills the worker processes.
func (r *Runner) Close(ctx context.Context) error { return r.sup.Shutdown(ctx) }

// Chain returns the workers tried for kind, in order.
func (r *Runner) Chain(kind worker.TaskKind) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.chains[kind])
}

// SetChain changes kind's chain from now on (until the host restarts, when the config's
// applies again). It is held to the config's rule for chains.
func (r *Runner) SetChain(kind string, names []string) error {
	if !slices.Contains(config.TaskKinds, kind) {
		return &rules.FieldError{Field: "task", Message: fmt.Sprintf("%q is not a task kind (valid: %s)", kind, strings.Join(config.TaskKinds, ", "))}
	}
	if msg := config.ChainProblem(r.defined, names); msg != "" {
		return &rules.FieldError{Field: "workers", Message: msg}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.chains[worker.TaskKind(kind)] = slices.Clone(names)
	r.log.Info("worker chain changed", "task", kind, "workers", strings.Join(names, ","))
	return nil
}

// Call is one recorded call to a worker: never the prompt or the answer.
type Call struct {
	Task         string        `json:"task"`
	Worker       string        `json:"worker"`
	Model        string        `json:"model,omitempty"`
	Started      time.Time     `json:"started"`
	Latency      time.Duration `json:"latency_ns"`
	Outcome      Outcome       `json:"outcome"`
	InputTokens  int           `json:"input_tokens"`
	OutputTokens int           `json:"output_tokens"`
	BytesIn      int           `json:"bytes_in"`
	BytesOut     int           `json:"bytes_out"`
}

// Run runs task t of kind through kind's chain and returns the first answer, checked against
// the task by the worker handle, and the call that produced it. The task's token budget and
// deadline are capped by [tasks]; a kind over its daily budget fails with ErrWaiting, a chain
// where no worker answered with ErrNoAnswer naming what happened with each.
func (r *Runner) Run(ctx context.Context, kind worker.TaskKind, t worker.Task) (worker.Answer, Call, error) {
	a, c, _, err := r.run(ctx, kind, t, r.Chain(kind), false)
	if err != nil {
		return a, c, fmt.Errorf("task %s: %w", kind, err)
	}
	return a, c, nil
}

// run is Run over chain; probe (an operator's try of one worker) bypasses the breaker. Its
// errors do not name the task kind: Run and Try do.
func (r *Runner) run(ctx context.Context, kind worker.TaskKind, t worker.Task, chain []string, probe bool) (worker.Answer, Call, []wire.Attempt, error) {
	if len(r.defined) == 0 {
		return worker.Answer{}, Call{}, nil, ErrNoWorker
	}
	t.Kind = kind
	if t.TokenBudget <= 0 || t.TokenBudget > r.tasks.RunTokens {
		t.TokenBudget = r.tasks.RunTokens
	}
	if end := r.now().Add(r.tasks.RunTimeout); t.Deadline.IsZero() || t.Deadline.After(end) {
		t.Deadline = end
	}
	ctx, cancel := context.WithDeadline(ctx, t.Deadline)
	defer cancel()
	if err := r.checkDaily(ctx, kind); err != nil {
		return worker.Answer{}, Call{}, nil, err
	}
	var attempts []wire.Attempt
	skip := func(name, reason string) {
		attempts = append(attempts, wire.Attempt{Worker: name, Outcome: string(Skipped), Reason: reason})
	}
	// ended reads the task's deadline off the clock as well as off ctx: a worker that stops at
	// the deadline may answer before this process has run ctx's timer (a loaded machine runs
	// it late), and its timeout is then the task's deadline passing all the same.
	ended := func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !r.now().Before(t.Deadline) {
			return context.DeadlineExceeded
		}
		return nil
	}
	for _, name := range chain {
		if ended() != nil {
			break
		}
		h, reason := r.usable(ctx, name, kind, probe)
		if h == nil {
			skip(name, reason)
			continue
		}
		a, call, err := r.call(ctx, h, name, t)
		if err == nil {
			attempts = append(attempts, wire.Attempt{Worker: name, Outcome: string(OK)})
			return a, call, attempts, nil
		}
		attempts = append(attempts, wire.Attempt{Worker: name, Outcome: string(call.Outcome), Reason: r.lastFailure(name).Reason})
	}
	if err := ended(); err != nil {
		return worker.Answer{}, Call{}, attempts, fmt.Errorf("%w: %s", err, describe(attempts))
	}
	return worker.Answer{}, Call{}, attempts, fmt.Errorf("%w: %s", ErrNoAnswer, describe(attempts))
}

// usable returns the handle of worker name when it can take a task of kind now, else why not.
func (r *Runner) usable(ctx context.Context, name string, kind worker.TaskKind, probe bool) (*workers.Handle, string) {
	if why, ok := r.missing[name]; ok {
		return nil, why
	}
	h, err := workers.Find(r.sup, name)
	if err != nil {
		return nil, "not running (see memhost workers)"
	}
	if !h.Info().Serves(kind) {
		return nil, "does not serve " + string(kind)
	}
	if limit := r.defined[name].DailyTokens; limit > 0 {
		spent, err := r.spentBy(ctx, "worker", name)
		if err != nil {
			return nil, "its daily spend could not be read"
		}
		if spent.tokens >= int64(limit) {
			return nil, fmt.Sprintf("over its daily budget of %d tokens", limit)
		}
	}
	st := h.Status().State
	if st != plugins.StateReady && st != plugins.StateUnhealthy {
		return nil, string(st)
	}
	// The breaker last: a half-open breaker lets its one probe through here, so nothing after
	// may pass the worker over.
	if !probe {
		if st == plugins.StateUnhealthy && !r.breaker(name).probeUnhealthy(r.now()) {
			return nil, "unhealthy (see memhost workers)"
		}
		if until, open := r.breaker(name).blocked(r.now()); open {
			return nil, "backed off until " + until.Format(time.RFC3339)
		}
	}
	return h, ""
}

// call runs t on h and records the call, whatever its end.
func (r *Runner) call(ctx context.Context, h *workers.Handle, name string, t worker.Task) (worker.Answer, Call, error) {
	start := r.now()
	a, err := h.Run(ctx, t)
	c := Call{Task: string(t.Kind), Worker: name, Model: h.Info().Model, Started: start, Latency: r.now().Sub(start),
		Outcome: outcomeOf(err), BytesIn: len(t.Instructions) + len(t.Input) + len(t.Schema), BytesOut: len(a.Text)}
	if a.Model != "" {
		c.Model = a.Model
	}
	if a.Usage != nil {
		c.InputTokens, c.OutputTokens = a.Usage.InputTokens, a.Usage.OutputTokens
	}
	switch {
	case c.Outcome.blamesWorker():
		r.breaker(name).failed(r.now())
	case c.Outcome == Canceled:
		r.breaker(name).release()
	default:
		r.breaker(name).succeeded()
	}
	r.metrics.observe(c)
	if rerr := r.record(context.WithoutCancel(ctx), c); rerr != nil {
		r.log.Warn("worker call not recorded", "task", c.Task, "worker", name, "err", rerr)
	}
	switch {
	case err == nil:
		r.setFailure(name, nil)
	case c.Outcome != Canceled:
		f := wire.Failure{At: start, Task: c.Task, Outcome: string(c.Outcome), Reason: reasonFor(c.Outcome, err)}
		r.setFailure(name, &f)
		r.log.Warn("worker call failed", "task", c.Task, "worker", name, "outcome", c.Outcome, "reason", f.Reason)
	}
	return a, c, err
}

// setFailure records worker name's last failed call, or clears it (nil) when it answered.
func (r *Runner) setFailure(name string, f *wire.Failure) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f == nil {
		delete(r.failures, name)
		return
	}
	r.failures[name] = *f
}

// lastFailure is worker name's last failed call since it last answered; zero when none.
func (r *Runner) lastFailure(name string) wire.Failure {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failures[name]
}

func (r *Runner) breaker(name string) *breaker {
	r.mu.Lock()
	defer r.mu.Unlock()
	b, ok := r.breakers[name]
	if !ok {
		b = &breaker{}
		r.breakers[name] = b
	}
	return b
}

// Workers are the names of the workers, configured or default, sorted.
func (r *Runner) Workers() []string { return slices.Sorted(maps.Keys(r.defined)) }

func describe(attempts []wire.Attempt) string {
	if len(attempts) == 0 {
		return "no worker tried"
	}
	parts := make([]string, len(attempts))
	for i, a := range attempts {
		parts[i] = a.Worker + " " + string(a.Outcome)
		if a.Reason != "" {
			parts[i] += " (" + a.Reason + ")"
		}
	}
	return strings.Join(parts, "; ")
}
