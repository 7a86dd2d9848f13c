package maintenance

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/memhost/memhost/host/internal/wire"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/memhost/memhost/host/internal/core/store"
)

// queue is River's queue for maintenance jobs. One worker per host: the jobs are bounded
// batches, never urgent, and must not compete with agents' calls.
const queue = "maintenance"

// Scheduled is a job with its schedule and budget.
type Scheduled struct {
	Job     Job
	Enabled bool          // a disabled job is not scheduled; it still runs by hand
	Every   time.Duration // its period: at most one periodic run per window of this length
	Budget  Budget
}

// Config configures a Maintenance.
type Config struct {
	Host   string // who runs: recorded in each run and River's leader row
	Clock  Clock  // nil is the wall clock
	Logger *slog.Logger
	Jobs   []Scheduled
	// testOnly shortens River's start-up jitter (tests in this package).
	testOnly bool
}

// Maintenance runs the jobs: River's client schedules them on the leader, RunNow runs one
// by hand, Status reports them.
type Maintenance struct {
	store  Store
	cfg    Config
	jobs   map[string]Scheduled
	order  []string
	client *river.Client[pgx.Tx]

	mu     sync.Mutex
	active map[int64]bool // the runs this host is working on
}

// ErrUnknownJob means a job name that is not configured.
var ErrUnknownJob = errors.New("unknown maintenance job")

// New builds the River client (not started: see Run) for the jobs.
func New(pool *pgxpool.Pool, st Store, cfg Config) (*Maintenance, error) {
	if cfg.Clock == nil {
		cfg.Clock = SystemClock{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	m := &Maintenance{store: st, cfg: cfg, jobs: map[string]Scheduled{}, active: map[int64]bool{}}
	workers := river.NewWorkers()
	var periodic []*river.PeriodicJob
	for _, s := range cfg.Jobs {
		name := s.Job.Name()
		if _, dup := m.jobs[name]; dup {
			return nil, fmt.Errorf("maintenance job %q configured twice", name)
		}
		m.jobs[name] = s
		m.order = append(m.order, name)
		// One args type serves every job; its Job field names the kind, so the worker is
		// registered with an args value that carries it.
		river.AddWorkerArgs(workers, Args{Job: name}, &worker{m: m})
		if s.Enabled && s.Every > 0 {
			periodic = append(periodic, river.NewPeriodicJob(river.PeriodicInterval(s.Every),
				func() (river.JobArgs, *river.InsertOpts) {
					// Unique per period: a new leader's first insert does not add a second job
					// for the window the old leader already queued.
					return Args{Job: name, Trigger: TriggerPeriodic}, &river.InsertOpts{UniqueOpts: river.UniqueOpts{ByPeriod: s.Every}}
				}, &river.PeriodicJobOpts{ID: name, RunOnStart: true}))
		}
	}
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		ID:           cfg.Host,
		Logger:       cfg.Logger,
		Queues:       map[string]river.QueueConfig{queue: {MaxWorkers: 1}},
		Workers:      workers,
		PeriodicJobs: periodic,
		// A job bounds its own wall time (Budget.MaxDuration); River's default minute would cut
		// a legitimate run short.
		JobTimeout:  -1,
		MaxAttempts: 3,
		Test:        river.TestConfig{Time: riverTime{cfg.Clock}},
		TestOnly:    cfg.testOnly,
	})
	if err != nil {
		return nil, fmt.Errorf("maintenance: river client: %w", err)
	}
	m.client = client
	return m, nil
}

// Run starts River's client (leader election, the periodic schedule, the maintenance queue's
// worker) and stops it when ctx ends, waiting for a running job: a lifecycle service.
func (m *Maintenance) Run(ctx context.Context) error {
	if err := m.client.Start(ctx); err != nil {
		return fmt.Errorf("maintenance: start river: %w", err)
	}
	<-ctx.Done()
	stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := m.client.Stop(stopCtx); err != nil {
		// A job still running past the deadline is cancelled: each run is resumable.
		return m.client.StopAndCancel(context.WithoutCancel(ctx))
	}
	return nil
}

// Trigger says why a run happened.
const (
	TriggerPeriodic = "periodic"
	TriggerManual   = "manual"
	TriggerEvent    = "event"
)

// Args are a maintenance job's River arguments. Kind is "maintenance." + Job, so River's
// tables name what ran.
type Args struct {
	Job     string `json:"job"`
	Trigger string `json:"trigger"`
	Project string `json:"project,omitempty"`
}

// Kind implements river.JobArgs.
func (a Args) Kind() string { return "maintenance." + a.Job }

// InsertOpts implements river.JobArgsWithInsertOpts: every maintenance job goes to its queue.
func (a Args) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: queue} }

type worker struct {
	river.WorkerDefaults[Args]
	m *Maintenance
}

func (w *worker) Work(ctx context.Context, job *river.Job[Args]) error {
	_, err := w.m.execute(ctx, job.Args.Job, job.Args.Trigger, wire.RunOptions{Project: job.Args.Project})
	return err
}

// EnqueueTx queues job for project in tx, the transaction of the write that calls for it: the
// job exists exactly when the write commits. A burst of writes queues one job per
// (job, project) until it starts running.
func (m *Maintenance) EnqueueTx(ctx context.Context, tx pgx.Tx, job, project string) error {
	if _, ok := m.jobs[job]; !ok {
		return fmt.Errorf("%w %q", ErrUnknownJob, job)
	}
	_, err := m.client.InsertTx(ctx, tx, Args{Job: job, Trigger: TriggerEvent, Project: project}, &river.InsertOpts{
		UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: []rivertype.JobState{
			rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
			rivertype.JobStateScheduled, rivertype.JobStateRetryable,
		}},
	})
	if err != nil {
		return fmt.Errorf("queue maintenance job %s: %w", job, err)
	}
	return nil
}

// Report is one run: its record and what it did.
type Report struct {
	Run    store.MaintenanceRun
	Result Result
	// Skipped is set when a periodic run found its window already claimed by another run.
	Skipped bool
}

// RunNow runs job once, by hand, on this host, and reports what it did (or, dry, would do).
func (m *Maintenance) RunNow(ctx context.Context, job string, o wire.RunOptions) (Report, error) {
	return m.execute(ctx, job, TriggerManual, o)
}

// execute is every run's path: claim (periodic) and record the run, do it within its budget,
// record the outcome.
func (m *Maintenance) execute(ctx context.Context, job, trigger string, o wire.RunOptions) (Report, error) {
	s, ok := m.jobs[job]
	if !ok {
		return Report{}, fmt.Errorf("%w %q", ErrUnknownJob, job)
	}
	now := m.cfg.Clock.Now().UTC()
	run := store.MaintenanceRun{Job: job, Trigger: trigger, Project: o.Project, DryRun: o.DryRun, Host: m.cfg.Host, StartedAt: now, Outcome: "running"}
	if trigger == TriggerPeriodic {
		w := now.Truncate(s.Every)
		run.WindowStart = &w
	}
	id, claimed, err := m.store.StartRun(ctx, run, m.live(now))
	if err != nil {
		return Report{}, err
	}
	if !claimed {
		m.cfg.Logger.Debug("maintenance window already run", "job", job, "window", run.WindowStart)
		return Report{Run: run, Skipped: true}, nil
	}
	run.ID = id
	defer m.working(id)()
	rctx := ctx
	if s.Budget.MaxDuration > 0 {
		var cancel context.CancelFunc
		rctx, cancel = context.WithTimeout(ctx, s.Budget.MaxDuration)
		defer cancel()
	}
	actor := "maintenance:" + job
	if o.Actor != "" {
		actor += " by " + o.Actor
	}
	res, runErr := s.Job.Run(rctx, Run{Now: now, Project: o.Project, DryRun: o.DryRun, OlderThan: o.OlderThan, Budget: s.Budget, Actor: actor})
	finished := m.cfg.Clock.Now().UTC()
	run.FinishedAt = &finished
	run.Examined, run.Changed, run.LLMCalls, run.Tokens = res.Examined, res.Changed, res.LLMCalls, res.Tokens
	switch {
	case runErr != nil:
		run.Outcome, run.Error = "failed", runErr.Error()
	case res.Partial:
		run.Outcome = "partial"
	default:
		run.Outcome = "ok"
	}
	if err := m.store.FinishRun(context.WithoutCancel(ctx), run); err != nil {
		return Report{Run: run, Result: res}, errors.Join(runErr, err)
	}
	if runErr == nil {
		m.cfg.Logger.Info("maintenance run", "job", job, "trigger", trigger, "examined", res.Examined, "changed", res.Changed, "outcome", run.Outcome)
	}
	return Report{Run: run, Result: res}, runErr
}
