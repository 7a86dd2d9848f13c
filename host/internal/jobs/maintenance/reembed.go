package maintenance

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"
	"golang.org/x/time/rate"

	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
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
// Use it through a pointer: it keeps the backoff state between runs.
type Reembed struct {
	Store     *pgstore.Store
	Embedders memory.EmbedderSource
	// Batch is how many texts go in one embedder call (at most the embedder's MaxBatch).
	Batch int
	// Rate bounds the rows embedded per second; 0 leaves them unbounded.
	Rate       float64
	BackoffMin time.Duration
	BackoffMax time.Duration

	mu       sync.Mutex
	limiter  *rate.Limiter
	failures int
	retryAt  time.Time
	lastErr  string
}

// ReembedName is the job's name: River's kind is "maintenance.reembed".
const ReembedName = "reembed"

// defaultReembedBatch is Batch when unset: a dense endpoint takes a few dozen texts per call
// at close to the cost of one.
const defaultReembedBatch = 64

// Name implements Job.
func (*Reembed) Name() string { return ReembedName }

// Run implements Job. Each batch is embedded and stored before the next is read; a dry run
// embeds nothing and reports the rows it would embed.
func (j *Reembed) Run(ctx context.Context, r Run) (Result, error) {
	if until, waiting := j.backingOff(r.Now); waiting {
		return Result{Partial: true}, fmt.Errorf("%w: embedder failing, next try after %s (%s)", rules.ErrUnavailable, until.Format(time.RFC3339), j.lastError())
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

// converge embeds the rows lacking a vector of info's embedder, up to the row budget.
func (j *Reembed) converge(ctx context.Context, r Run, e embedder.Embedder, info embedder.Info) (Result, error) {
	var res Result
	limit := r.Budget.MaxRows
	if limit <= 0 {
		limit = defaultMaxRows
	}
	batch := j.Batch
	if batch <= 0 {
		batch = defaultReembedBatch
	}
	batch = min(batch, max(info.MaxBatch, 1))
	limiter := j.rateLimiter(batch)
	after := uuid.Nil
	for {
		if res.Examined >= int64(limit) {
			res.Partial = true
			return res, nil
		}
		rows, err := j.Store.Unembedded(ctx, info.Name, r.Project, after, min(batch, limit-int(res.Examined)))
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
				res.add(Item{ID: u.ID.String(), Action: "embed", Reason: info.Name})
			}
			continue
		}
		vecs, refused, err := embedBatch(ctx, e, info, rows)
		if err != nil {
			if ctx.Err() != nil {
				res.Partial = true
				return res, nil
			}
			return res, j.failed(r.Now, err)
		}
		for _, id := range refused {
			// Listed, not counted as changed: the embedder refuses the text for good, and the
			// row stays lexical-only (and keeps the vectors of other embedders it has).
			if len(res.Items) < maxItems {
				res.Items = append(res.Items, Item{ID: id.String(), Action: "skip", Reason: "refused by " + info.Name})
			}
		}
		n, err := j.Store.PutVectors(ctx, info.Name, vecs)
		if err != nil {
			return res, err
		}
		res.Changed += int64(n)
		j.succeeded()
	}
}

// embedBatch embeds rows' texts in one call. When the embedder refuses the batch for good
// (ErrInvalidInput), each text is tried alone, so one text it refuses does not hold the rest
// back; those are returned as refused. Any other failure is an outage, returned as the error.
func embedBatch(ctx context.Context, e embedder.Embedder, info embedder.Info, rows []pgstore.Unembedded) ([]pgstore.Embedded, []uuid.UUID, error) {
	texts := make([]string, len(rows))
	for i, u := range rows {
		texts[i] = u.Text
	}
	vecs, err := e.Embed(ctx, embedder.PurposeDocument, texts)
	if err == nil {
		if len(vecs) != len(rows) {
			return nil, nil, fmt.Errorf("embedder %s returned %d vectors for %d texts", info.Name, len(vecs), len(rows))
		}
		out := make([]pgstore.Embedded, len(rows))
		for i, u := range rows {
			out[i] = pgstore.Embedded{ID: u.ID, Hash: u.Hash, Vector: store.Vector{Embedder: info.Name, Dimensions: info.Dimensions, Values: vecs[i]}}
		}
		return out, nil, nil
	}
	if !errors.Is(err, embedder.ErrInvalidInput) || len(rows) == 1 {
		if errors.Is(err, embedder.ErrInvalidInput) {
			return nil, []uuid.UUID{rows[0].ID}, nil
		}
		return nil, nil, fmt.Errorf("embed with %s: %w", info.Name, err)
	}
	var out []pgstore.Embedded
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

// ReembedProgress is how far the memories have converged on the active embedder's vectors.
type ReembedProgress struct {
	Embedder string `json:"embedder"`
	Total    int64  `json:"total"`
	// Missing is the rows left: memories without a vector of the active embedder. They are
	// found lexically meanwhile.
	Missing int64 `json:"missing"`
	// RatePerSecond is rows embedded per second of wall time over the last RateWindow of runs
	// (0 when none ran), and ETASeconds the time left at that rate (absent when unknown).
	RatePerSecond float64  `json:"rate_per_second"`
	ETASeconds    *float64 `json:"eta_seconds,omitempty"`
	// RetryAt is set while this host's runs back off after embedder failures, LastError why.
	RetryAt   *time.Time `json:"retry_at,omitempty"`
	LastError string     `json:"last_error,omitempty"`
}

// RateWindow is how far back ReembedProgress looks for its rate.
const RateWindow = 15 * time.Minute

// Progress reports the convergence on the active embedder at now.
func (j *Reembed) Progress(ctx context.Context, now time.Time) (ReembedProgress, error) {
	_, info, err := j.Embedders.Active(ctx)
	if err != nil {
		return ReembedProgress{}, fmt.Errorf("re-embed progress: %w", err)
	}
	cov, err := j.Store.VectorCoverage(ctx, info.Name)
	if err != nil {
		return ReembedProgress{}, err
	}
	p := ReembedProgress{Embedder: info.Name, Total: cov.Total, Missing: cov.Missing}
	changed, first, err := j.Store.JobThroughput(ctx, ReembedName, now.Add(-RateWindow))
	if err != nil {
		return p, err
	}
	if span := now.Sub(first); changed > 0 && span > 0 {
		p.RatePerSecond = float64(changed) / span.Seconds()
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
