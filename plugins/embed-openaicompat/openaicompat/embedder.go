package openaicompat

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	openai "github.com/sashabaranov/go-openai"

	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/openaihttp"
)

// Version is the plugin's release.
const Version = "0.1.0"

// probeTimeout bounds the requests Describe and Health make on their own,
// so that a runtime that accepts the connection and never answers reads as
// unavailable rather than stalling the host.
const probeTimeout = 10 * time.Second

// Embedder embeds texts through one OpenAI-compatible runtime. It is safe
// for concurrent use.
type Embedder struct {
	cfg Config
	// cfgErr, when set, is why the configuration cannot work: every method
	// reports it instead of calling anything.
	cfgErr error
	client *openai.Client
	log    hclog.Logger
	retry  openaihttp.RetryPolicy

	mu sync.Mutex
	// dims is the vectors' width: configured, or learnt from the runtime
	// once and then fixed for the life of the process.
	dims int
	// limitErr is the verdict of measuring the model's context against the
	// declared limit (see checkLimit); limitChecked says it is final.
	limitChecked bool
	limitErr     error
	// inflight counts requests to the runtime under way, Health's own aside: while one is, and
	// the last request got an answer, Health sends none.
	inflight atomic.Int64
	// lastFailed says the last request that ended found the runtime not answering: then
	// requests under way vouch for nothing, and Health asks the runtime itself.
	lastFailed atomic.Bool
	// answers is closed (and dropped) when a request succeeds: see nextAnswer.
	answerMu sync.Mutex
	answers  chan struct{}
}

var _ embedder.Embedder = (*Embedder)(nil)

// New returns an Embedder for cfg, or an error naming the setting that
// cannot work.
func New(cfg Config) (*Embedder, error) {
	e := newEmbedder(cfg, cfg.validate())
	if e.cfgErr != nil {
		return nil, e.cfgErr
	}
	return e, nil
}

// FromEnv returns the plugin's Embedder, configured from getenv (see
// ConfigFromEnv). A bad configuration still yields an Embedder, one whose
// methods report the variable at fault, so that the operator sees the
// reason in the host rather than a plugin that will not start.
func FromEnv(getenv func(string) string, log hclog.Logger) *Embedder {
	cfg, err := ConfigFromEnv(getenv)
	cfg.Logger = log
	return newEmbedder(cfg, err)
}

func newEmbedder(cfg Config, cfgErr error) *Embedder {
	if cfg.Name == "" {
		cfg.Name = DefaultName
	}
	e := &Embedder{cfg: cfg, cfgErr: cfgErr, log: cfg.Logger, retry: openaihttp.DefaultRetry, dims: cfg.Dimensions}
	if e.log == nil {
		e.log = hclog.NewNullLogger()
	}
	if cfgErr == nil {
		e.client = openaihttp.NewClient(cfg.BaseURL, cfg.APIKey, cfg.HTTPClient)
	}
	return e
}

// Describe returns the embedder's Info. Without a configured width it asks
// the runtime once, so it fails while the runtime is down: configure
// dimensions to start without it.
func (e *Embedder) Describe(ctx context.Context) (embedder.Info, error) {
	if err := ctx.Err(); err != nil {
		return embedder.Info{}, err
	}
	if e.cfgErr != nil {
		return embedder.Info{}, e.errConfig()
	}
	dims, err := e.dimensions(ctx)
	if err != nil {
		return embedder.Info{}, err
	}
	return e.info(dims), nil
}

func (e *Embedder) info(dims int) embedder.Info {
	return embedder.Info{
		Name:                   VectorSpace(e.cfg.Model, dims),
		Version:                Version,
		Description:            fmt.Sprintf("%s: %s at %s through the OpenAI-compatible embeddings API", e.cfg.Name, e.cfg.Model, e.cfg.BaseURL),
		Dimensions:             dims,
		MaxBatch:               e.cfg.MaxBatch,
		MaxInputBytes:          e.maxInputBytes(),
		SuggestedFoldThreshold: e.cfg.FoldThreshold,
	}
}

// maxInputBytes is the byte limit for a text: the model's context at
// BytesPerToken, less what a prefix takes.
func (e *Embedder) maxInputBytes() int {
	prefix := max(len(e.cfg.QueryPrefix), len(e.cfg.DocumentPrefix))
	return max(e.cfg.MaxInputTokens*BytesPerToken-prefix, 1)
}

var notInName = regexp.MustCompile(`[^a-z0-9._-]+`)

// VectorSpace is Info.Name for model at dims: the model's name in the
// store's alphabet, and the width, e.g. "nomic-embed-text-latest-768". A
// different model or width is a different vector space.
func VectorSpace(model string, dims int) string {
	suffix := "-" + strconv.Itoa(dims)
	name := strings.Trim(notInName.ReplaceAllString(strings.ToLower(model), "-"), "-._")
	if name == "" {
		name = "model"
	}
	if len(name)+len(suffix) > 63 {
		name = strings.TrimRight(name[:63-len(suffix)], "-._")
	}
	return name + suffix
}

// dimensions returns the vectors' width, asking the runtime for one vector
// the first time when none is configured.
func (e *Embedder) dimensions(ctx context.Context) (int, error) {
	e.mu.Lock()
	dims := e.dims
	e.mu.Unlock()
	if dims > 0 {
		return dims, nil
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	vecs, err := e.request(ctx, []string{"dimension probe"})
	if err != nil {
		return 0, fmt.Errorf("learn the model's width (set %s to start without the runtime): %w", EnvDimensions, err)
	}
	dims = len(vecs[0])
	if dims > MaxDimensions {
		return 0, fmt.Errorf("%w: %w", embedder.ErrInvalidInput, tooWide(e.cfg.Model, dims))
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.dims == 0 {
		e.dims = dims
	}
	return e.dims, nil
}

// Health checks that Embed can succeed: the runtime answers a one-word
// embedding of the expected width, and the model reads input to the
// declared limit (see checkLimit). An embedding, not GET /models, because
// only it shows that the model is loaded and answers what memhost stores.
//
// While a request is under way Health sends none: a runtime that answers
// one batch at a time (a CPU model) would queue the probe behind a batch
// that may take longer than the probe may wait, and a busy runtime is not
// a sick one. The request under way ends within the embedder's timeout and
// says itself whether the runtime answers. That holds only while the
// runtime's last word was an answer: after a request found it not
// answering (wedged, or down), requests under way are stuck, not busy,
// and Health asks the runtime itself.
func (e *Embedder) Health(ctx context.Context) error {
	if e.cfgErr != nil {
		return e.cfgErr
	}
	if e.inflight.Load() > 0 && !e.lastFailed.Load() {
		return nil
	}
	// The probe may still queue behind a batch sent after it started; the first answer to
	// another request then says the runtime answers, before the host's probe deadline passes.
	answered := e.nextAnswer()
	// The host's deadline bounds the probe when it sets one, probeTimeout otherwise.
	ceiling := probeTimeout
	if d, ok := ctx.Deadline(); ok {
		ceiling = time.Until(d)
	}
	pctx, cancel := context.WithTimeout(context.WithValue(ctx, probeKey{}, true), ceiling)
	defer cancel()
	probed := make(chan error, 1)
	go func() { probed <- e.probe(pctx) }()
	budget := openaihttp.HealthBudget(ctx, ceiling)
	timer := time.NewTimer(budget)
	defer timer.Stop()
	for {
		select {
		case err := <-probed:
			return err
		case <-answered:
			return nil
		case <-timer.C:
			// An answer that came as the budget ran out is still an answer.
			select {
			case err := <-probed:
				return err
			case <-answered:
				return nil
			default:
			}
			// A runtime that does not answer is this plugin's verdict to give, before the
			// host stops waiting (openaihttp.HealthBudget). A probe queued behind others'
			// requests that still get answers is left to the host's deadline, which defers
			// to them, unless one of them fails meanwhile: look again shortly.
			if e.inflight.Load() == 0 || e.lastFailed.Load() {
				e.lastFailed.Store(true)
				return fmt.Errorf("runtime at %s: %w: it did not answer the health probe within %s",
					e.cfg.BaseURL, embedder.ErrUnavailable, budget.Round(time.Millisecond))
			}
			timer.Reset(recheck)
		}
	}
}

// recheck is how often Health, leaving a probe queued behind others' requests to the host's
// deadline, looks whether one of them failed.
const recheck = 50 * time.Millisecond

// probeKey marks the context of Health's own requests, which do not count as the runtime
// answering others.
type probeKey struct{}

// nextAnswer is closed when a request other than a probe's next succeeds.
func (e *Embedder) nextAnswer() <-chan struct{} {
	e.answerMu.Lock()
	defer e.answerMu.Unlock()
	if e.answers == nil {
		e.answers = make(chan struct{})
	}
	return e.answers
}

// isProbe says whether ctx is a request of Health's own.
func isProbe(ctx context.Context) bool { return ctx.Value(probeKey{}) != nil }

// answered wakes the probes waiting for an answer.
func (e *Embedder) answered(ctx context.Context) {
	if isProbe(ctx) {
		return
	}
	e.answerMu.Lock()
	defer e.answerMu.Unlock()
	if e.answers != nil {
		close(e.answers)
		e.answers = nil
	}
}

// probe is Health's check of the runtime: the width, the declared input limit, an embedding.
func (e *Embedder) probe(ctx context.Context) error {
	if _, err := e.dimensions(ctx); err != nil {
		return fmt.Errorf("runtime at %s: %w", e.cfg.BaseURL, err)
	}
	if err := e.checkLimit(ctx); err != nil {
		if errors.Is(err, embedder.ErrInvalidInput) {
			return err // the verdict on the model's context names the setting to change
		}
		return fmt.Errorf("runtime at %s: %w", e.cfg.BaseURL, err)
	}
	if _, err := e.request(ctx, []string{"health"}); err != nil {
		return fmt.Errorf("runtime at %s: %w", e.cfg.BaseURL, err)
	}
	return nil
}

// errConfig is the refusal when the configuration cannot work.
func (e *Embedder) errConfig() error {
	return fmt.Errorf("%w: embedder not configured: %w", embedder.ErrInvalidInput, e.cfgErr)
}
