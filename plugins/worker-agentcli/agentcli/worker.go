package agentcli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/memhost/memhost/sdk/worker"
)

// Version is the plugin's release.
const Version = "0.1.0"

// Worker runs one agent CLI per task. It is safe for concurrent use.
type Worker struct {
	cfg     Config
	info    worker.Info
	backend backend
	// err is why the configuration is unusable: Describe and Health report
	// it, Run refuses every task with it.
	err    error
	groups groups
}

var _ worker.Worker = (*Worker)(nil)

// backend is what differs between CLIs.
type backend interface {
	// prepare writes what the CLI reads into the run's scratch folder and
	// returns its arguments and the environment variables it needs set.
	prepare(s scratch, p prompt, c Config, outputCap int) (args []string, env map[string]string, err error)
	// answer reads a finished run.
	answer(r ran) (worker.Answer, error)
}

// scratch is one run's private folder (0700, removed after the run).
type scratch struct {
	// work is the CLI's working directory: empty, never a user's project.
	work string
	// home is for a CLI whose configuration home is relocated.
	home string
	// dir holds files given to the CLI by path.
	dir string
}

// FromEnv returns the worker configured by environ (see ConfigFromEnv).
func FromEnv(environ []string) *Worker {
	cfg, err := ConfigFromEnv(environ)
	if err != nil {
		return &Worker{err: err}
	}
	return New(cfg)
}

// New returns the worker for cfg. A bad cfg gives a worker that says why.
func New(cfg Config) *Worker {
	if err := cfg.validate(); err != nil {
		return &Worker{err: err}
	}
	if cfg.Env == nil {
		cfg.Env = os.Environ()
	}
	model := cfg.Model
	if model == "" {
		model = string(cfg.CLI) + " default"
	}
	info := worker.Info{
		Name:        cfg.Name,
		Version:     Version,
		Description: "runs the " + string(cfg.CLI) + " CLI headless, without tools, in a scratch folder",
		TaskKinds: []worker.TaskKind{
			worker.TaskMerge, worker.TaskConflicts, worker.TaskSessionSummary,
			worker.TaskExtract, worker.TaskPlanDrift, worker.TaskGatekeeper,
		},
		// The CLI's model is its vendor's service.
		Locality:      worker.LocalityRemote,
		Model:         model,
		MaxInputBytes: cfg.MaxInputBytes,
	}
	if err := info.Validate(); err != nil {
		return &Worker{err: fmt.Errorf("%s or %s: %w", envName, envModel, err)}
	}
	w := &Worker{cfg: cfg, info: info}
	switch cfg.CLI {
	case Claude:
		w.backend = claude{model: cfg.Model}
	case Gemini:
		w.backend = gemini{model: cfg.Model, env: cfg.Env}
	case Codex:
		w.backend = codex{model: cfg.Model, env: cfg.Env}
	}
	return w
}

// Describe returns the worker's Info, or why its configuration is unusable.
func (w *Worker) Describe(context.Context) (worker.Info, error) {
	if w.err != nil {
		return worker.Info{}, w.err
	}
	return w.info, nil
}

// Health reports a bad configuration or a CLI that cannot be found. It
// starts no CLI: a call to the model costs the user.
func (w *Worker) Health(context.Context) error {
	if w.err != nil {
		return w.err
	}
	_, err := w.executable()
	return err
}

// Close kills every CLI still running; Run calls in flight then fail.
func (w *Worker) Close() { w.groups.killAll() }

// Run does the task with one run of the CLI.
func (w *Worker) Run(ctx context.Context, t worker.Task) (worker.Answer, error) {
	if w.err != nil {
		return worker.Answer{}, fmt.Errorf("%w: %w", worker.ErrInvalidInput, w.err)
	}
	if err := ctx.Err(); err != nil {
		return worker.Answer{}, err
	}
	if err := t.Validate(w.info); err != nil {
		return worker.Answer{}, fmt.Errorf("%w: %w", worker.ErrInvalidInput, err)
	}
	deadline := earliest(t.Deadline, time.Now().Add(w.cfg.Timeout), deadlineOf(ctx))
	if !time.Now().Before(deadline) {
		return worker.Answer{}, fmt.Errorf("%s: the task's deadline has passed: %w", w.cfg.CLI, worker.ErrTimeout)
	}
	p := newPrompt(t)
	// The CLI adds its own framing, so a prompt that fills the budget
	// cannot be answered within it.
	if n := p.tokens(); n >= t.TokenBudget {
		return worker.Answer{}, fmt.Errorf("%w: the prompt alone is about %d tokens, the budget %d", worker.ErrOverBudget, n, t.TokenBudget)
	}
	bin, err := w.executable()
	if err != nil {
		return worker.Answer{}, err
	}
	a, err := w.runOnce(ctx, deadline, bin, p, t.TokenBudget-p.tokens())
	if err != nil {
		return worker.Answer{}, err
	}
	if a.Model == "" {
		a.Model = w.info.Model
	}
	if a.Usage != nil && a.Usage.Total() > t.TokenBudget {
		// Only Claude Code takes an output cap; the others are told the
		// budget is spent only afterwards.
		return worker.Answer{}, fmt.Errorf("%w: %s used %d tokens, over the budget of %d", worker.ErrOverBudget, w.cfg.CLI, a.Usage.Total(), t.TokenBudget)
	}
	return t.CheckAnswer(a)
}

// runOnce runs the CLI in a fresh scratch folder until deadline.
func (w *Worker) runOnce(ctx context.Context, deadline time.Time, bin string, p prompt, outputCap int) (worker.Answer, error) {
	dir, err := os.MkdirTemp("", "memhost-worker-")
	if err != nil {
		return worker.Answer{}, fmt.Errorf("%w: scratch folder: %w", worker.ErrUnavailable, err)
	}
	defer os.RemoveAll(dir)
	s := scratch{work: filepath.Join(dir, "work"), home: filepath.Join(dir, "home"), dir: dir}
	for _, d := range []string{s.work, s.home} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return worker.Answer{}, fmt.Errorf("%w: scratch folder: %w", worker.ErrUnavailable, err)
		}
	}
	args, set, err := w.backend.prepare(s, p, w.cfg, outputCap)
	if err != nil {
		return worker.Answer{}, fmt.Errorf("%w: prepare %s: %w", worker.ErrUnavailable, w.cfg.CLI, err)
	}
	runCtx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	r := w.groups.run(runCtx, bin, args, childEnv(w.cfg.Env, set), s.work, p.user)
	switch {
	case ctx.Err() != nil:
		return worker.Answer{}, fmt.Errorf("%s: %w", w.cfg.CLI, ctx.Err())
	case runCtx.Err() != nil:
		return worker.Answer{}, fmt.Errorf("%s gave no answer by the deadline, its processes were killed: %w", w.cfg.CLI, worker.ErrTimeout)
	}
	return w.backend.answer(r)
}

// executable is the CLI's path: MEMHOST_WORKER_CLI_PATH, else the CLI's
// name looked up on the PATH the CLI runs with.
func (w *Worker) executable() (string, error) {
	if w.cfg.Path != "" {
		if err := isExecutable(w.cfg.Path); err != nil {
			return "", fmt.Errorf("%w: %s %s: %w", worker.ErrUnavailable, envCLIPath, w.cfg.Path, err)
		}
		return w.cfg.Path, nil
	}
	for _, dir := range filepath.SplitList(lookup(w.cfg.Env, "PATH")) {
		if !filepath.IsAbs(dir) {
			continue // a relative PATH entry would depend on the scratch folder
		}
		p := filepath.Join(dir, string(w.cfg.CLI))
		if isExecutable(p) == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: %s is not installed: not found on PATH; install it or set %s", worker.ErrUnavailable, w.cfg.CLI, envCLIPath)
}

func isExecutable(path string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return errors.New("no such file")
	case err != nil:
		return err
	case fi.IsDir() || fi.Mode().Perm()&0o111 == 0:
		return errors.New("not an executable file")
	}
	return nil
}

// earliest is the soonest of ts.
func earliest(ts ...time.Time) time.Time {
	e := ts[0]
	for _, t := range ts[1:] {
		if t.Before(e) {
			e = t
		}
	}
	return e
}

// deadlineOf is ctx's deadline, or a time that is never the soonest.
func deadlineOf(ctx context.Context) time.Time {
	if d, ok := ctx.Deadline(); ok {
		return d
	}
	return time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
}
