package openaicompat

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/embedder/calibration"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
	"github.com/memhost/memhost/sdk/embedder/embeddertest/openaifake"
)

// TestConformance runs the SDK's kit on the embedder, directly and over
// in-process gRPC, at both widths and with an asymmetric model's prefixes.
func TestConformance(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		opts  openaifake.Options
		model string
	}{
		{"768", openaifake.Options{Dimensions: 768}, ""},
		{"1024", openaifake.Options{Dimensions: 1024}, ""},
		{"nomic", openaifake.Options{Model: "nomic-embed-text:latest"}, "nomic-embed-text:latest"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, e, _ := start(t, c.opts, func(cfg *Config) {
				if c.model != "" {
					cfg.QueryPrefix, cfg.DocumentPrefix = defaultPrefixes(c.model)
				}
			})
			embeddertest.Exercise(t, e)
			embeddertest.Exercise(t, embeddertest.Serve(t, e))
		})
	}
}

// TestAsksForFloatAndChecksEveryWidth: the request asks for float vectors,
// and a runtime that answers 256 values (the base64 trap) is refused
// naming it, not stored.
func TestAsksForFloatAndChecksEveryWidth(t *testing.T) {
	t.Parallel()
	srv, e, _ := start(t, openaifake.Options{}, func(c *Config) { c.Dimensions = 768 })
	_, err := e.Embed(t.Context(), embedder.PurposeDocument, []string{"we use pnpm"})
	require.NoError(t, err)
	for _, r := range srv.Requests() {
		require.Equal(t, "float", r.EncodingFormat)
		require.Equal(t, "Bearer "+testKey, r.Authorization)
	}

	_, cut, _ := start(t, openaifake.Options{Truncate256: true}, func(c *Config) { c.Dimensions = 768 })
	_, err = cut.Embed(t.Context(), embedder.PurposeDocument, []string{"we use pnpm"})
	require.ErrorContains(t, err, "256-dimensional vector where 768 were expected")
	require.ErrorContains(t, err, "base64")
	require.ErrorContains(t, cut.Health(t.Context()), "256")
}

// TestPrefixesFollowThePurpose: an asymmetric model gets its query and
// document prefixes by purpose (its family's by default, the configured
// ones when set); a symmetric one gets none.
func TestPrefixesFollowThePurpose(t *testing.T) {
	t.Parallel()
	cases := []struct {
		model, query, document string
		env                    map[string]string
	}{
		{"nomic-embed-text:latest", "search_query: ", "search_document: ", nil},
		{"intfloat/multilingual-e5-large", "query: ", "passage: ", nil},
		{"bge-m3", "", "", nil},
		{"bge-m3", "Represent this sentence for searching relevant passages: ", "", map[string]string{EnvQueryPrefix: "Represent this sentence for searching relevant passages: "}},
	}
	for _, c := range cases {
		srv := openaifake.Start(t, openaifake.Options{Model: c.model})
		vars := map[string]string{EnvBaseURL: srv.URL(), EnvModel: c.model, EnvDimensions: "768", EnvMaxInputTokens: "16"}
		for k, v := range c.env {
			vars[k] = v
		}
		e := FromEnv(env(vars), nil)
		_, err := e.Embed(t.Context(), embedder.PurposeQuery, []string{"which package manager"})
		require.NoError(t, err)
		_, err = e.Embed(t.Context(), embedder.PurposeDocument, []string{"we use pnpm"})
		require.NoError(t, err)
		require.Equal(t, []string{c.query + "which package manager", c.document + "we use pnpm"}, embedded(srv), c.model)
	}
}

// TestSemanticNeighbours: through the plugin, the fake's model finds what
// an agent means, not only what it typed.
func TestSemanticNeighbours(t *testing.T) {
	t.Parallel()
	_, e, _ := start(t, openaifake.Options{Model: "nomic-embed-text"}, func(c *Config) {
		c.QueryPrefix, c.DocumentPrefix = defaultPrefixes(c.Model)
	})
	docs := []string{"we use pnpm, not npm, in this repo", "don't write specs unless asked", "prefer fakes over mocks", "the API listens on port 8080"}
	dv, err := e.Embed(t.Context(), embedder.PurposeDocument, docs)
	require.NoError(t, err)
	for want, q := range []string{"which package manager should I use", "should I add tests for my change", "should I use mockk"} {
		qv, err := e.Embed(t.Context(), embedder.PurposeQuery, []string{q})
		require.NoError(t, err)
		best, bestCos := -1, -2.0
		for i, d := range dv {
			if c := calibration.Cosine(qv[0], d); c > bestCos {
				best, bestCos = i, c
			}
		}
		require.Equal(t, want, best, "%q found %q", q, docs[best])
	}
}

// TestOverLongInputAgainstTheDeclaredLimit: a runtime that refuses, or one
// that silently cuts, input within the declared limit is caught by the
// measurement, and every Embed is refused naming the setting; within the
// model's real context the same runtimes serve.
func TestOverLongInputAgainstTheDeclaredLimit(t *testing.T) {
	t.Parallel()
	for _, mode := range []openaifake.OverLong{openaifake.OverLongError, openaifake.OverLongCut} {
		t.Run(fmt.Sprint(mode), func(t *testing.T) {
			t.Parallel()
			opts := openaifake.Options{MaxInputTokens: 100, OverLong: mode}
			_, tooHigh, logs := start(t, opts, func(c *Config) { c.MaxInputTokens = 512 })
			_, err := tooHigh.Embed(t.Context(), embedder.PurposeDocument, []string{"short"})
			require.ErrorIs(t, err, embedder.ErrInvalidInput)
			require.ErrorContains(t, err, "invalid input: "+EnvMaxInputTokens+"=512 is more than the model reads: set "+EnvMaxInputTokens+" to the model's real context",
				"the advice first, where a cut status line keeps it")
			herr := tooHigh.Health(t.Context())
			require.ErrorContains(t, herr, EnvMaxInputTokens)
			require.NotContains(t, herr.Error(), "runtime at", "the runtime answered: its URL is beside the point")
			require.Contains(t, logs.String(), "shorter than the declared limit")

			srv, fits, _ := start(t, opts, func(c *Config) { c.MaxInputTokens = 64 })
			require.NoError(t, fits.Health(t.Context()))
			info, err := fits.Describe(t.Context())
			require.NoError(t, err)
			require.Equal(t, 128, info.MaxInputBytes, "64 tokens at 2 bytes a token")
			text := strings.Repeat("x", info.MaxInputBytes)
			_, err = fits.Embed(t.Context(), embedder.PurposeDocument, []string{text})
			require.NoError(t, err)
			require.LessOrEqual(t, openaifake.Tokens(text), opts.MaxInputTokens)
			n := len(srv.Requests())
			require.NoError(t, fits.Health(t.Context()))
			require.Len(t, srv.Requests(), n+1, "the limit is measured once; Health asks for one word")
		})
	}
}

// TestWiderThanTheIndexIsRefused: a model wider than pgvector's HNSW limit
// is refused naming the limit, whether configured or learnt.
func TestWiderThanTheIndexIsRefused(t *testing.T) {
	t.Parallel()
	_, err := ConfigFromEnv(env(map[string]string{EnvBaseURL: "http://127.0.0.1:1/v1", EnvModel: "m", EnvDimensions: "3072"}))
	require.ErrorContains(t, err, "2000 dimensions")

	_, e, _ := start(t, openaifake.Options{Dimensions: 3072}, nil)
	_, err = e.Describe(t.Context())
	require.ErrorIs(t, err, embedder.ErrInvalidInput)
	require.ErrorContains(t, err, "3072-dimensional")
	require.ErrorContains(t, err, "2000 dimensions")
}

// TestLearnsTheWidthOnce: without a configured width the runtime is asked
// once, and the vector space is named after the model and the width.
func TestLearnsTheWidthOnce(t *testing.T) {
	t.Parallel()
	srv, e, _ := start(t, openaifake.Options{Dimensions: 1024, Model: "BAAI/bge-m3:Q8"}, nil)
	info, err := e.Describe(t.Context())
	require.NoError(t, err)
	require.Equal(t, 1024, info.Dimensions)
	require.Equal(t, "baai-bge-m3-q8-1024", info.Name)
	again, err := e.Describe(t.Context())
	require.NoError(t, err)
	require.Equal(t, info, again)
	require.Len(t, srv.Requests(), 1)
	long := VectorSpace("A/"+strings.Repeat("B", 80), 768)
	require.Len(t, long, 63, "the store's limit on an embedder's name")
	require.Equal(t, "a-bbb", long[:5])
	require.True(t, strings.HasSuffix(long, "b-768"))
}

// TestRetriesHonourRetryAfter: a 429 is retried after the runtime's
// Retry-After, not the short backoff.
func TestRetriesHonourRetryAfter(t *testing.T) {
	t.Parallel()
	srv, e, logs := start(t, openaifake.Options{RetryAfter: "1"}, func(c *Config) { c.Dimensions = 768 })
	srv.RateLimit(1)
	began := time.Now()
	vecs, err := e.Embed(t.Context(), embedder.PurposeDocument, []string{"we use pnpm"})
	require.NoError(t, err)
	require.Len(t, vecs, 1)
	require.GreaterOrEqual(t, time.Since(began), time.Second, "waited as long as Retry-After said")
	require.Contains(t, logs.String(), "retrying the embeddings request")
}

// TestOutageAndRecovery: a runtime answering 503 or refusing connections
// makes Embed ErrUnavailable (so the host degrades and retries), Describe
// keeps answering with a configured width, and the same embedder serves
// again once the runtime is back.
func TestOutageAndRecovery(t *testing.T) {
	t.Parallel()
	srv, e, _ := start(t, openaifake.Options{RetryAfter: "0"}, func(c *Config) { c.Dimensions = 768 })
	require.NoError(t, e.Health(t.Context()))
	for _, o := range []openaifake.Outage{openaifake.Unavailable, openaifake.Refused} {
		srv.SetOutage(o)
		_, err := e.Embed(t.Context(), embedder.PurposeDocument, []string{"x"})
		require.ErrorIs(t, err, embedder.ErrUnavailable, "outage %d", o)
		require.Error(t, e.Health(t.Context()))
		_, err = e.Describe(t.Context())
		require.NoError(t, err)
	}
	srv.SetOutage(openaifake.Up)
	_, err := e.Embed(t.Context(), embedder.PurposeDocument, []string{"x"})
	require.NoError(t, err)
}

// TestNotStartedRuntimeIsRetriedLater: a runtime down when the plugin first
// needs it leaves the width and the limit unmeasured, not refused.
func TestNotStartedRuntimeIsRetriedLater(t *testing.T) {
	t.Parallel()
	srv, e, _ := start(t, openaifake.Options{}, nil)
	srv.SetOutage(openaifake.Refused)
	_, err := e.Describe(t.Context())
	require.ErrorIs(t, err, embedder.ErrUnavailable)
	require.ErrorContains(t, err, EnvDimensions)
	srv.SetOutage(openaifake.Up)
	info, err := e.Describe(t.Context())
	require.NoError(t, err)
	require.Equal(t, openaifake.DefaultDimensions, info.Dimensions)
	require.NoError(t, e.Health(t.Context()))
}

// TestTheKeyNeverLeaks: a runtime that rejects the key and quotes it back
// leaves no trace of it in errors or logs, and the error names the
// variable to check.
func TestTheKeyNeverLeaks(t *testing.T) {
	t.Parallel()
	_, e, logs := start(t, openaifake.Options{Key: "another-key"}, func(c *Config) { c.Dimensions = 768 })
	_, err := e.Embed(t.Context(), embedder.PurposeDocument, []string{"x"})
	require.ErrorIs(t, err, embedder.ErrUnavailable)
	require.ErrorContains(t, err, "TEST_EMBED_KEY")
	require.NotContains(t, err.Error(), testKey)
	require.NotContains(t, e.Health(t.Context()).Error(), testKey)
	require.NotContains(t, logs.String(), testKey)
	require.NotContains(t, fmt.Sprintf("%v %+v %#v", e.cfg, e.cfg, e.cfg), testKey)
}

// TestCancelledWhileWaitingToRetry: a cancelled context ends the wait for a
// retry at once.
func TestCancelledWhileWaitingToRetry(t *testing.T) {
	t.Parallel()
	srv, e, _ := start(t, openaifake.Options{RetryAfter: "30"}, func(c *Config) { c.Dimensions = 768; c.MaxInputTokens = 16 })
	srv.RateLimit(10)
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	began := time.Now()
	_, err := e.Embed(ctx, embedder.PurposeDocument, []string{"x"})
	require.Error(t, err)
	require.Less(t, time.Since(began), 5*time.Second)
}

// sendBatch starts embedding n texts, one request to srv, and returns once the runtime has it;
// the channel has the call's outcome.
func sendBatch(t *testing.T, srv *openaifake.Server, e *Embedder, n int) <-chan error {
	t.Helper()
	before := len(srv.Requests())
	batch := make([]string, n)
	for i := range batch {
		batch[i] = fmt.Sprintf("fact number %d", i)
	}
	done := make(chan error, 1)
	go func() {
		_, err := e.Embed(context.Background(), embedder.PurposeDocument, batch)
		done <- err
	}()
	require.Eventually(t, func() bool { return len(srv.Requests()) == before+1 }, 5*time.Second, 5*time.Millisecond)
	return done
}

// TestHealthIsNotQueuedBehindABatch: against a runtime that answers one request at a time (a
// model on a CPU), a health check during a long batch does not wait behind it, and sends
// nothing; with nothing under way it asks the runtime again.
func TestHealthIsNotQueuedBehindABatch(t *testing.T) {
	t.Parallel()
	srv, e, _ := start(t, openaifake.Options{LatencyPerInput: 100 * time.Millisecond, Serial: true}, nil)
	require.NoError(t, e.Health(t.Context()))
	n := len(srv.Requests())
	done := sendBatch(t, srv, e, 20) // two seconds of work
	start := time.Now()
	require.NoError(t, e.Health(t.Context()))
	require.Less(t, time.Since(start), 500*time.Millisecond, "not queued behind the batch")
	require.Len(t, srv.Requests(), n+1, "nothing sent while the batch is under way")
	require.NoError(t, <-done)
	require.NoError(t, e.Health(t.Context()))
	require.Len(t, srv.Requests(), n+2, "idle, it asks the runtime")
}

// TestHealthAsksAStalledRuntimeItself: requests under way vouch for a runtime only while its
// last word was an answer. A probe the host stopped waiting for, still under way, vouches for
// nothing; nor does a write sent into a runtime the probes found not answering. Each would
// have had a wedged runtime read healthy between two failed checks. The verdict comes before
// the host's deadline: the host would read its own timeout as this process being wedged.
func TestHealthAsksAStalledRuntimeItself(t *testing.T) {
	t.Parallel()
	srv, e, _ := start(t, openaifake.Options{}, func(c *Config) { c.Dimensions = 768 })
	require.NoError(t, e.Health(t.Context()))
	srv.SetOutage(openaifake.Stalled)
	t.Cleanup(func() { srv.SetOutage(openaifake.Up) })

	// A probe still under way: the host gave up on it, the plugin has not yet.
	lingering := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		lingering <- e.Health(ctx)
	}()
	time.Sleep(200 * time.Millisecond)
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	herr := e.Health(ctx)
	require.NoError(t, ctx.Err(), "the verdict comes before the host stops waiting")
	cancel()
	require.ErrorIs(t, herr, embedder.ErrUnavailable, "another probe under way is no answer")
	require.ErrorContains(t, herr, "did not answer the health probe")
	require.NotErrorIs(t, herr, context.DeadlineExceeded)
	require.ErrorIs(t, <-lingering, embedder.ErrUnavailable)

	// A write sent into the runtime the probes found not answering, stuck there.
	stuck := make(chan error, 1)
	go func() {
		_, err := e.Embed(context.Background(), embedder.PurposeDocument, []string{"a write"})
		stuck <- err
	}()
	require.Eventually(t, func() bool { return e.inflight.Load() == 1 }, 5*time.Second, 5*time.Millisecond)
	ctx, cancel = context.WithTimeout(t.Context(), time.Second)
	require.ErrorIs(t, e.Health(ctx), embedder.ErrUnavailable, "a stuck write is no answer")
	cancel()

	// The runtime answers again: the write under way says so, and vouches again.
	srv.SetOutage(openaifake.Up)
	require.NoError(t, <-stuck)
	require.NoError(t, e.Health(t.Context()))
}

// TestOnlyTheRuntimesSilenceCountsAgainstIt: a request that ends at the embedder's own timeout
// says the runtime does not answer; one whose caller's deadline passed while it queued behind
// a busy model's batch says nothing, and the batch under way still vouches for the model.
func TestOnlyTheRuntimesSilenceCountsAgainstIt(t *testing.T) {
	t.Parallel()
	t.Run("the embedder's timeout", func(t *testing.T) {
		t.Parallel()
		srv, e, _ := start(t, openaifake.Options{}, func(c *Config) { c.Dimensions = 768; c.Timeout = 300 * time.Millisecond })
		require.NoError(t, e.Health(t.Context()))
		srv.SetOutage(openaifake.Stalled)
		t.Cleanup(func() { srv.SetOutage(openaifake.Up) })
		_, err := e.Embed(t.Context(), embedder.PurposeDocument, []string{"a write"})
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.True(t, e.lastFailed.Load())
	})
	t.Run("a caller's deadline behind a busy model", func(t *testing.T) {
		t.Parallel()
		srv, e, _ := start(t, openaifake.Options{LatencyPerInput: 100 * time.Millisecond, Serial: true}, func(c *Config) { c.Dimensions = 768 })
		require.NoError(t, e.Health(t.Context()))
		first := sendBatch(t, srv, e, 30) // three seconds of work
		ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
		_, err := e.Embed(ctx, embedder.PurposeQuery, []string{"a query"})
		cancel()
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.False(t, e.lastFailed.Load(), "a caller's deadline says nothing of the runtime")
		ctx, cancel = context.WithTimeout(t.Context(), time.Second)
		herr := e.Health(ctx)
		cancel()
		require.NoError(t, herr, "the batch under way vouches for a busy model")
		require.NoError(t, <-first)
	})
}
