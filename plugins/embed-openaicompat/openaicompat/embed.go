package openaicompat

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/openaihttp"
)

// Embed embeds texts in one request (the SDK holds a call to MaxBatch),
// each prefixed for its purpose.
func (e *Embedder) Embed(ctx context.Context, purpose embedder.Purpose, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("embed: %w", err)
	}
	if e.cfgErr != nil {
		return nil, e.errConfig()
	}
	if len(texts) == 0 {
		return [][]float32{}, nil
	}
	var prefix string
	switch purpose {
	case embedder.PurposeQuery:
		prefix = e.cfg.QueryPrefix
	case embedder.PurposeDocument:
		prefix = e.cfg.DocumentPrefix
	default:
		return nil, fmt.Errorf("%w: unknown purpose %s", embedder.ErrInvalidInput, purpose)
	}
	ctx, cancel := context.WithTimeoutCause(ctx, e.cfg.Timeout, errOwnTimeout)
	defer cancel()
	if _, err := e.dimensions(ctx); err != nil {
		return nil, err
	}
	if err := e.checkLimit(ctx); err != nil {
		return nil, err
	}
	inputs := make([]string, len(texts))
	for i, t := range texts {
		// Runtimes refuse an empty input; a lone space embeds as nothing.
		if t == "" && prefix == "" {
			t = " "
		}
		inputs[i] = prefix + t
	}
	return e.request(ctx, inputs)
}

// request asks for the vectors of inputs as floats, retrying a 429 or a 5xx
// with backoff (or after the runtime's Retry-After) while attempts and the
// deadline allow, and checks every vector.
func (e *Embedder) request(ctx context.Context, inputs []string) ([][]float32, error) {
	// Float, not base64: some SDK and runtime pairs cut base64 vectors to
	// 256 values without a word.
	req := openai.EmbeddingRequestStrings{Input: inputs, Model: openai.EmbeddingModel(e.cfg.Model), EncodingFormat: openai.EmbeddingEncodingFormatFloat}
	// Only others' requests vouch for the runtime while under way (see Health): a probe the
	// host stopped waiting for may still be under way here when its next probe arrives.
	if !isProbe(ctx) {
		e.inflight.Add(1)
		defer e.inflight.Add(-1)
	}
	vecs, err := e.send(ctx, req, len(inputs))
	switch {
	case err == nil:
		e.lastFailed.Store(false)
		e.answered(ctx)
	case errors.Is(err, embedder.ErrInvalidInput):
		e.lastFailed.Store(false) // the runtime answered: it refused this input
	case errors.Is(err, context.Canceled),
		errors.Is(err, context.DeadlineExceeded) && !errors.Is(context.Cause(ctx), errOwnTimeout):
		// A caller that gave up, or whose own deadline passed (a probe's is the host's, which
		// may pass while it queues behind a busy model's batch), says nothing of the runtime.
	default:
		e.lastFailed.Store(true)
	}
	return vecs, err
}

// errOwnTimeout is the cause of an Embed's context ending at MEMHOST_EMBEDDER_TIMEOUT: the
// runtime's failure to answer in time, unlike a caller's own deadline.
var errOwnTimeout = errors.New("the embedder's timeout passed")

// send is one request's attempts.
func (e *Embedder) send(ctx context.Context, req openai.EmbeddingRequestStrings, n int) ([][]float32, error) {
	for attempt := 1; ; attempt++ {
		resp, err := e.client.CreateEmbeddings(ctx, req)
		if err == nil {
			return e.vectors(resp, n)
		}
		if ctx.Err() != nil {
			return nil, e.ctxErr(ctx)
		}
		c, ok := openaihttp.Classify(err, e.cfg.APIKey)
		if !ok {
			return nil, fmt.Errorf("the runtime's response is not a list of embeddings: %s", openaihttp.Bounded(e.cfg.APIKey.Redact(err.Error())))
		}
		if !c.Retryable() {
			return nil, e.typed(c)
		}
		err = e.retry.Pause(ctx, attempt, resp.Header(), e.typed(c), func(wait time.Duration) {
			e.log.Warn("retrying the embeddings request", "status", c.Status, "attempt", attempt, "wait", wait, "message", c.Message)
		})
		if ctx.Err() != nil {
			return nil, e.ctxErr(ctx)
		}
		if err != nil {
			return nil, err
		}
	}
}

// errBadAnswer marks an answer that broke the contract: the runtime is up
// but its vectors cannot be used. The host treats it as a failed call.
var errBadAnswer = errors.New("the runtime's answer cannot be used")

// vectors puts the response's vectors in input order and checks each: one
// per input, of the width the embedder describes, finite.
func (e *Embedder) vectors(resp openai.EmbeddingResponse, n int) ([][]float32, error) {
	if len(resp.Data) != n {
		return nil, fmt.Errorf("%w: %d vectors for %d inputs", errBadAnswer, len(resp.Data), n)
	}
	e.mu.Lock()
	want := e.dims
	e.mu.Unlock()
	out := make([][]float32, n)
	for i, d := range resp.Data {
		if d.Index < 0 || d.Index >= n || out[d.Index] != nil {
			return nil, fmt.Errorf("%w: vector index %d is out of range or repeated", errBadAnswer, d.Index)
		}
		v := d.Embedding
		switch {
		case want > 0 && len(v) != want:
			return nil, widthErr(len(v), want)
		case len(v) == 0:
			return nil, fmt.Errorf("%w: vector %d is empty", errBadAnswer, i)
		}
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("%w: vector %d has a component that is not finite", errBadAnswer, d.Index)
			}
		}
		out[d.Index] = v
	}
	return out, nil
}

// widthErr explains a vector of the wrong width, naming the known trap.
func widthErr(got, want int) error {
	hint := fmt.Sprintf("check that %s matches the model", EnvDimensions)
	if got == 256 {
		hint = "runtimes that cut base64-encoded vectors to 256 values do this; the plugin asks for float, so check the runtime or a proxy in front of it"
	}
	return fmt.Errorf("%w: the runtime answered a %d-dimensional vector where %d were expected: %s", errBadAnswer, got, want, hint)
}

// ctxErr is the error for a call whose context ended.
func (e *Embedder) ctxErr(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("no answer from the runtime within the deadline (at most %s a call, %s): %w", e.cfg.Timeout, EnvTimeout, ctx.Err())
	}
	return fmt.Errorf("embed cancelled: %w", ctx.Err())
}
