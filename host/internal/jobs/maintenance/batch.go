package maintenance

import (
	"context"
	"time"

	"github.com/memhost/memhost/host/internal/wire"

	"github.com/google/uuid"
)

// defaultMaxRows bounds a run whose budget names no row limit.
const defaultMaxRows = 1000

// eachDue is the deterministic jobs' one loop: find up to the row budget of due memories
// (find, asked for one more to tell a full batch from the last), then change each in its own
// short transaction (change re-checks the rule under the row lock and says whether it acted).
// A dry run changes nothing and reports every due memory; a budget or a cancelled context
// stops the run as partial, the next run carrying on.
func eachDue(ctx context.Context, r Run, action, reason string, find func(limit int) ([]uuid.UUID, error), change func(uuid.UUID) (bool, error)) (Result, error) {
	var res Result
	limit := r.Budget.MaxRows
	if limit <= 0 {
		limit = defaultMaxRows
	}
	ids, err := find(limit + 1)
	if err != nil {
		return res, err
	}
	if len(ids) > limit {
		ids, res.Partial = ids[:limit], true
	}
	for _, id := range ids {
		if ctx.Err() != nil {
			res.Partial = true
			return res, nil
		}
		res.Examined++
		changed := true
		if !r.DryRun {
			if changed, err = change(id); err != nil {
				return res, err
			}
		}
		if changed {
			res.add(wire.MaintenanceItem{ID: id.String(), Action: action, Reason: reason})
		}
	}
	return res, nil
}

// age is the run's age threshold when it names one (`--older-than`), else the job's.
func age(run, job time.Duration) time.Duration {
	if run > 0 {
		return run
	}
	return job
}
