package openaicompat

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/hashicorp/go-hclog"
	openai "github.com/sashabaranov/go-openai"

	"github.com/memhost/memhost/sdk/openaihttp"
	"github.com/memhost/memhost/sdk/worker"
)

// Version is the plugin's release.
const Version = "0.1.0"

// healthTimeout bounds Health's request, so that a runtime that accepts the
// connection and never answers reads as unhealthy rather than stalling the
// host's health loop.
const healthTimeout = 5 * time.Second

// Worker answers tasks through one OpenAI-compatible runtime. It is safe for
// concurrent use.
type Worker struct {
	cfg Config
	// cfgErr, when set, is why the configuration cannot work: every method
	// reports it instead of calling anything.
	cfgErr error
	info   worker.Info
	client *openai.Client
	log    hclog.Logger
	caps   capabilities
	retry  openaihttp.RetryPolicy
}

var _ worker.Worker = (*Worker)(nil)

// New returns a Worker for cfg, or an error naming the setting that cannot
// work.
func New(cfg Config) (*Worker, error) {
	w := newWorker(cfg, cfg.validate())
	if w.cfgErr != nil {
		return nil, w.cfgErr
	}
	return w, nil
}

// FromEnv returns the plugin's Worker, configured from getenv (see
// ConfigFromEnv). A bad configuration still yields a Worker, one whose
// Describe, Health and Run report the variable at fault, so the operator
// sees the reason in the host rather than a plugin that will not start.
func FromEnv(getenv func(string) string, log hclog.Logger) *Worker {
	cfg, err := ConfigFromEnv(getenv)
	cfg.Logger = log
	return newWorker(cfg, err)
}

func newWorker(cfg Config, cfgErr error) *Worker {
	if cfg.Name == "" {
		cfg.Name = DefaultName
	}
	w := &Worker{
		cfg:    cfg,
		cfgErr: cfgErr,
		log:    cfg.Logger,
		retry:  openaihttp.DefaultRetry,
		info: worker.Info{
			Name:        cfg.Name,
			Version:     Version,
			Description: "answers tasks through an OpenAI-compatible chat completions API",
			TaskKinds: []worker.TaskKind{
				worker.TaskMerge, worker.TaskConflicts, worker.TaskSessionSummary,
				worker.TaskExtract, worker.TaskPlanDrift, worker.TaskGatekeeper,
			},
			Locality:      cfg.Locality,
			Model:         cfg.Model,
			MaxInputBytes: cfg.MaxInputBytes,
		},
	}
	if w.log == nil {
		w.log = hclog.NewNullLogger()
	}
	if w.cfgErr == nil {
		if err := w.info.Validate(); err != nil {
			w.cfgErr = fmt.Errorf("%s: %w", EnvName, err)
		}
	}
	if w.cfgErr != nil {
		return w
	}
	w.client = openaihttp.NewClient(cfg.BaseURL, cfg.APIKey, cfg.HTTPClient)
	return w
}

// Describe returns the worker's Info, or the configuration error.
func (w *Worker) Describe(ctx context.Context) (worker.Info, error) {
	if err := ctx.Err(); err != nil {
		return worker.Info{}, err
	}
	if w.cfgErr != nil {
		return worker.Info{}, fmt.Errorf("%w: %w", worker.ErrInvalidInput, w.cfgErr)
	}
	return w.info, nil
}

// Health asks the runtime for GET {base}/models, the cheapest request every
// runtime understands. A 404 counts as reachable, since some runtimes do not
// serve the list; a rejected key or an unreachable runtime does not.
func (w *Worker) Health(ctx context.Context) error {
	if w.cfgErr != nil {
		return w.cfgErr
	}
	budget := openaihttp.HealthBudget(ctx, healthTimeout)
	hctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	_, err := w.client.ListModels(hctx)
	if err == nil {
		return nil
	}
	if hctx.Err() != nil && ctx.Err() == nil {
		return fmt.Errorf("runtime at %s: %w: it did not answer GET /models within %s", w.cfg.BaseURL, worker.ErrUnavailable, budget.Round(time.Millisecond))
	}
	if ctx.Err() != nil {
		return fmt.Errorf("health check: %w", ctx.Err())
	}
	c, ok := openaihttp.Classify(err, w.cfg.APIKey)
	if !ok {
		// The runtime answered 2xx with a body that is not a model list:
		// it is up, which is all Health asks.
		return nil
	}
	if c.Status == http.StatusNotFound {
		return nil
	}
	return fmt.Errorf("runtime at %s: GET /models: %w", w.cfg.BaseURL, typed(c, w.cfg.APIKeyEnv))
}

// errConfig is Run's refusal when the configuration cannot work.
func (w *Worker) errConfig() error {
	return fmt.Errorf("%w: worker not configured: %w", worker.ErrInvalidInput, w.cfgErr)
}
