package maintenance

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/memhost/memhost/host/internal/wire"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"
	"golang.org/x/time/rate"

	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/jobs/pace"
	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/sdk/embedder"
)

// Reembed gives every memory a vector of the active embedder: after an embedder switch the
// rows written before it hold only the old embedder's vectors, and are found lexically (and
// by the old embedder, if it is switched back) until this job embeds their texts again. It
// embeds in batches, at most Rate rows a second, and on one host at a time (River's leader,
// or whoever runs it by hand: the others skip while it runs). A run is resumable: what is
// left is read from the database, so a run cut short by its budget, a restart or an outage
// simply leaves the rest to the next one. While the embedder fails, runs back off: each
// consecutive failure doubles the wait before the next try, from BackoffMin to BackoffMax.
//
// Batches are sized by the embedder's measured speed: the first is small, and each next one
// holds as many texts as take about BatchTime at the time a text took so far, up to Batch. A
// model on a CPU (a few hundred milliseconds a text) gets a handful of texts a call, well
// within its timeout; a fast endpoint gets Batch.
//
// Use it through a pointer: it keeps the backoff state and the measured speed between runs.
type Reembed struct {
	Store     Store
	Embedders memory.EmbedderSource
	// Batch is the most texts one embedder call carries (at most the embedder's MaxBatch).
	Batch int
	// BatchTime is how long one embedder call should take; 0 is defaultBatchTime.
	BatchTime time.Duration
	// Rate bounds the rows embedded per second; 0 leaves them unbounded.
	Rate       float64
	BackoffMin time.Duration
	BackoffMax time.Duration
	// Pacer spaces the batches while agents are calling (nil: never).
	Pacer *pace.Pacer

	mu       sync.Mutex
	limiter  *rate.Limiter
	failures int
	retryAt  time.Time
	lastErr  string
	// perText is the time one text took the embedder speedOf, measured (zero until then).
	perText time.Duration
	speedOf string
	// running is this host's run under way: when it started and the rows it stored so far,
	// so that progress has a rate before the first run finishes; rested is how long it rested
	// for agents' calls so far, restEnd when its latest rest ends.
	running struct {
		started time.Time
		changed int64
		rested  time.Duration
		restEnd time.Time
	}
	// lastRested is how long this host's latest finished run rested for agents' calls.
	lastRested time.Duration
}

// ReembedName is the job's name: River's kind is "maintenance.reembed".
const ReembedName = "reembed"

// defaultReembedBatch is Batch when unset: a dense endpoint takes a few dozen texts per call
// at close to the cost of one.
const defaultReembedBatch = 64

// defaultBatchTime is BatchTime when unset: a sixth of an embedder's default timeout (30s), so
// a batch that takes twice the time its measured texts predict still ends well within it.
const defaultBatchTime = 5 * time.Second

// slowCall is how long a failed call must have taken for its time to be worth saying: it
// failed by its deadline rather than at once.
const slowCall = 100 * time.Millisecond

// firstBatch is how many texts a call carries while the embedder's speed is unknown: few
// enough for a model that takes half a second a text.
const firstBatch = 4

// Name implements Job.
func (*Reembed) Name() string { return ReembedName }

// Run implements Job. Each batch is embedded and stored before the next is read; a dry run
// embeds nothing and reports the rows it would embed.
func (j *Reembed) Run(ctx context.Context, r Run) (Result, error) {
	if until, waiting := j.backingOff(r.Now); waiting {
		// Not rules.ErrUnavailable, whose surfaces invite a retry in seconds: the next try
		// is the backoff's.
		wait := until.Sub(r.Now).Round(time.Second)
		return Result{Partial: true}, &rules.LimitError{Retry: wait, Message: fmt.Sprintf(
			"re-embed is backing off after the embedder failed (%s): nothing was changed; the next try is at %s (in %s)",
			j.lastError(), until.Format(time.RFC3339), wait)}
	}
	e, info, err := j.Embedders.Active(ctx)
	if err != nil {
		return Result{Partial: true}, j.failed(r.Now, err)
	}
	// Two counts settle the usual case, a converged database, without the anti-join's walk
	// of every memory.
	cov, err := j.Store.VectorCoverage(ctx, info.Name)
	if err != nil || cov.Missing == 0 {
		return Result{}, err
	}
	var res Result
	ran, err := j.Store.WithExclusive(ctx, ReembedName, func() error {
		var err error
		res, err = j.converge(ctx, r, e, info)
		return err
	})
	if !ran && err == nil {
		// Another host is re-embedding: this run has nothing to do.
		return Result{}, nil
	}
	return res, err
}

// converge embeds the rows lacking a vector of info's embedder, up to the row budget. An
// embedder failure after some rows were stored ends the run as partial, not failed: what was
// stored stays, and the backoff holds the next try.
func (j *Reembed) converge(ctx context.Context, r Run, e embedder.Embedder, info embedder.Info) (Result, error) {
	var res Result
	limit := r.Budget.MaxRows
	if limit <= 0 {
		limit = defaultMaxRows
	}
	most := j.Batch
	if most <= 0 {
		most = defaultReembedBatch
	}
	most = min(most, max(info.MaxBatch, 1))
	limiter := j.rateLimiter(most)
	if !r.DryRun {
		j.startRunning(r.Now)
		defer j.stopRunning()
	}
	after := uuid.Nil
	for {
		if ctx.Err() != nil {
			res.Partial = true
			return res, nil
		}
		if res.Examined >= int64(limit) {
			res.Partial = true
			return res, nil
		}
		batch := most
		if !r.DryRun {
			batch = j.batchSize(info.Name, most)
		}
		// busy is the batch's own time, its read, embedding and write: the pacer rests in
		// proportion to it, not to a wait on the rate limiter.
		busyStart := time.Now()
		rows, err := j.Store.Unembedded(ctx, store.UnembeddedQuery{Embedder: info.Name, Project: r.Project, After: after, Limit: min(batch, limit-int(res.Examined))})
		if err != nil {
			return res, err
		}
		if len(rows) == 0 {
			if !r.DryRun {
				j.succeeded()
			}
			return res, nil
		}
		after = rows[len(rows)-1].ID
		busy := time.Since(busyStart)
		if limiter != nil {
			if err := limiter.WaitN(ctx, len(rows)); err != nil {
				// The run's deadline falls before the next batch may start.
				res.Partial = true
				return res, nil
			}
		}
		if ctx.Err() != nil {
			res.Partial = true
			return res, nil
		}
		res.Examined += int64(len(rows))
		if r.DryRun {
			for _, u := range rows {
				res.add(wire.MaintenanceItem{ID: u.ID.String(), Action: "embed", Reason: info.Name})
			}
			continue
		}
		start := time.Now()
		vecs, refused, err := embedBatch(ctx, e, info, rows)
		took := time.Since(start)
		if err != nil {
			if ctx.Err() != nil {
				res.Partial = true
				return res, nil
			}
			j.measured(info.Name, len(rows), took, false)
			call := fmt.Sprintf("a call of %d texts", len(rows))
			if took >= slowCall {
				call += ", after " + took.Round(time.Millisecond).String()
			}
			err = j.failed(r.Now, fmt.Errorf("%w (%s)", err, call))
			if res.Changed > 0 {
				res.Partial = true
				return res, nil
			}
			return res, err
		}
		if len(refused) == 0 {
			j.measured(info.Name, len(rows), took, true)
		}
		for _, id := range refused {
			// Listed, not counted as changed: the embedder refuses the text for good, and the
			// row stays lexical-only (and keeps the vectors of other embedders it has).
			if len(res.Items) < maxItems {
				res.Items = append(res.Items, wire.MaintenanceItem{ID: id.String(), Action: "skip", Reason: "refused by " + info.Name})
			}
		}
		n, err := j.Store.PutVectors(ctx, info.Name, vecs)
		if err != nil {
			return res, err
		}
		res.Changed += int64(n)
		j.stored(int64(n))
		j.succeeded()
		busy += time.Since(start)
		if rest := j.Pacer.Decide(time.Now(), busy); rest > 0 {
			j.resting(rest)
			yieldCPU(ctx, rest)
		}
	}
}

// batchSize is how many texts the next call to the embedder name carries: about BatchTime's
// worth at its measured speed, from 1 to most; firstBatch while it is unmeasured.
func (j *Reembed) batchSize(name string, most int) int {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.speedOf != name || j.perText <= 0 {
		return min(most, firstBatch)
	}
	target := j.BatchTime
	if target <= 0 {
		target = defaultBatchTime
	}
	return max(1, min(most, int(target/j.perText)))
}

// measured records a call of n texts to the embedder name that took took: answered, its time
// per text joins the average; failed, the time per text is at least that (it had not finished),
// so the next batch is smaller, never larger.
func (j *Reembed) measured(name string, n int, took time.Duration, answered bool) {
	per := took / time.Duration(max(n, 1))
	j.mu.Lock()
	defer j.mu.Unlock()
	switch {
	case j.speedOf != name:
		j.speedOf, j.perText = name, per
	case answered:
		j.perText = (j.perText + per) / 2
	default:
		j.perText = max(j.perText, per)
	}
}

func (j *Reembed) startRunning(now time.Time) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.running.started, j.running.changed = now, 0
}

func (j *Reembed) stored(n int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.running.changed += n
}

// resting records that the run under way rests for rest, from now, for agents' calls.
func (j *Reembed) resting(rest time.Duration) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.running.rested += rest
	j.running.restEnd = time.Now().Add(rest)
}

func (j *Reembed) stopRunning() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.lastRested = j.running.rested
	j.running.started, j.running.changed, j.running.rested, j.running.restEnd = time.Time{}, 0, 0, time.Time{}
}

// embedBatch embeds rows' texts in one call. When the embedder refuses the batch for good
// (ErrInvalidInput), each text is tried alone, so one text it refuses does not hold the rest
// back; those are returned as refused. Any other failure is an outage, returned as the error.
func embedBatch(ctx context.Context, e embedder.Embedder, info embedder.Info, rows []store.Unembedded) ([]store.Embedded, []uuid.UUID, error) {
	texts := make([]string, len(rows))
	for i, u := range rows {
		texts[i] = u.Text
	}
	vecs, err := e.Embed(ctx, embedder.PurposeDocument, texts)
	if err == nil {
		if len(vecs) != len(rows) {
			return nil, nil, fmt.Errorf("embedder %s returned %d vectors for %d texts", info.Name, len(vecs), len(rows))
		}
		out := make([]store.Embedded, len(rows))
		for i, u := range rows {
			out[i] = store.Embedded{ID: u.ID, Hash: u.Hash, Vector: store.Vector{Embedder: info.Name, Dimensions: info.Dimensions, Values: vecs[i]}}
		}
		return out, nil, nil
	}
	if !errors.Is(err, embedder.ErrInvalidInput) || len(rows) == 1 {
		if errors.Is(err, embedder.ErrInvalidInput) {
			return nil, []uuid.UUID{rows[0].ID}, nil
		}
		return nil, nil, fmt.Errorf("embed with %s: %w", info.Name, err)
	}
	var out []store.Embedded
	var refused []uuid.UUID
	for i := range rows {
		v, r, err := embedBatch(ctx, e, info, rows[i:i+1])
		if err != nil {
			return nil, nil, err
		}
		out, refused = append(out, v...), append(refused, r...)
	}
	return out, refused, nil
}

// rateLimiter is the job's limiter (nil with no Rate), its burst one batch.
func (j *Reembed) rateLimiter(batch int) *rate.Limiter {
	if j.Rate <= 0 {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.limiter == nil || j.limiter.Burst() < batch {
		j.limiter = rate.NewLimiter(rate.Limit(j.Rate), max(batch, 1))
	}
	return j.limiter
}

// failed records an embedder failure at now and sets the next try after the backoff.
func (j *Reembed) failed(now time.Time, err error) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.failures++
	wait := j.BackoffMin
	if wait <= 0 {
		wait = time.Minute
	}
	for i := 1; i < j.failures && (j.BackoffMax <= 0 || wait < j.BackoffMax); i++ {
		wait *= 2
	}
	if j.BackoffMax > 0 {
		wait = min(wait, j.BackoffMax)
	}
	j.retryAt = now.Add(wait)
	j.lastErr = err.Error()
	if d := plugins.Diagnosis(err); d != "" {
		// What the plugin said, in the operator's keys: the short error names only the plugin.
		j.lastErr += ": " + plugins.OneLine(d, maxDiagnosis)
	}
	if errors.Is(err, rules.ErrUnavailable) {
		return fmt.Errorf("embedder failing, next try after %s: %w", wait, err)
	}
	return fmt.Errorf("%w: embedder failing, next try after %s: %w", rules.ErrUnavailable, wait, err)
}

// succeeded ends a backoff.
func (j *Reembed) succeeded() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.failures, j.retryAt, j.lastErr = 0, time.Time{}, ""
}

// backingOff reports whether now is before the next try after a failure, and when that is.
func (j *Reembed) backingOff(now time.Time) (time.Time, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.retryAt, now.Before(j.retryAt)
}

func (j *Reembed) lastError() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.lastErr
}

// maxDiagnosis bounds what a failure quotes of the plugin's own words.
const maxDiagnosis = 400

// yieldingFor is how long after its latest rest a run under way still counts as yielding to
// agents: the next batch's time, about.
const yieldingFor = time.Second

// RateWindow is how far back wire.ReembedProgress looks for its rate.
const RateWindow = 15 * time.Minute

// Progress reports the convergence on the active embedder at now.
func (j *Reembed) Progress(ctx context.Context, now time.Time) (wire.ReembedProgress, error) {
	_, info, err := j.Embedders.Active(ctx)
	if err != nil {
		return wire.ReembedProgress{}, fmt.Errorf("re-embed progress: %w", err)
	}
	cov, err := j.Store.VectorCoverage(ctx, info.Name)
	if err != nil {
		return wire.ReembedProgress{}, err
	}
	p := wire.ReembedProgress{Embedder: info.Name, Total: cov.Total, Missing: cov.Missing}
	changed, busy, err := j.Store.JobThroughput(ctx, ReembedName, now.Add(-RateWindow))
	if err != nil {
		return p, err
	}
	j.mu.Lock()
	if !j.running.started.IsZero() && j.running.changed > 0 {
		changed += j.running.changed
		busy += now.Sub(j.running.started)
	}
	p.YieldedSeconds = j.lastRested.Seconds()
	if !j.running.started.IsZero() {
		p.YieldedSeconds = j.running.rested.Seconds()
		// Resting now, or between two batches of a run that rests after each.
		p.Yielding = !j.running.restEnd.IsZero() && now.Before(j.running.restEnd.Add(yieldingFor))
	}
	j.mu.Unlock()
	if changed > 0 && busy > 0 {
		p.RatePerSecond = float64(changed) / busy.Seconds()
		eta := float64(p.Missing) / p.RatePerSecond
		p.ETASeconds = &eta
	}
	if p.Missing == 0 {
		zero := 0.0
		p.ETASeconds = &zero
	}
	if until, waiting := j.backingOff(now); waiting {
		p.RetryAt, p.LastError = &until, j.lastError()
	}
	return p, nil
}
