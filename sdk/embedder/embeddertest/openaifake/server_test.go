package openaifake_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/memhost/memhost/sdk/embedder/embeddertest/openaifake"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

// TestModelIsSemantic: the pairs an agent's queries need are nearer than
// unrelated facts, at both widths the benchmarks use.
func TestModelIsSemantic(t *testing.T) {
	t.Parallel()
	for _, dims := range []int{768, 1024} {
		v := func(s string) []float32 { return openaifake.Vector(s, dims) }
		for _, c := range []struct{ query, near, far string }{
			{"which package manager do we use", "we use pnpm, not npm, in this repo", "the API listens on port 8080"},
			{"should I add tests for my change", "don't write specs unless asked", "deploys go through staging first"},
			{"should I use mockk", "prefer fakes over mocks", "we use pnpm, not npm, in this repo"},
		} {
			near, far := cosine(v(c.query), v(c.near)), cosine(v(c.query), v(c.far))
			require.Greater(t, near, far+0.2, "%d dims: %q near %q (%.2f) vs %q (%.2f)", dims, c.query, c.near, near, c.far, far)
		}
		require.InDelta(t, 1, cosine(v("pnpm"), v("pnpm")), 1e-6)
		require.Len(t, v(""), dims)
	}
}

// TestSharedDirectionLiftsUnrelatedTexts: with Shared, unrelated texts sit near that cosine,
// as a real model's do, while related ones stay nearer.
func TestSharedDirectionLiftsUnrelatedTexts(t *testing.T) {
	t.Parallel()
	s := openaifake.Start(t, openaifake.Options{Shared: 0.5})
	unrelated := cosine(s.Embed("who handles quixlet"), s.Embed("the API listens on port 8080"))
	require.InDelta(t, 0.5, unrelated, 0.05)
	related := cosine(s.Embed("which package manager do we use"), s.Embed("we use pnpm, not npm, in this repo"))
	require.Greater(t, related, unrelated+0.2)
	require.InDelta(t, 1, cosine(s.Embed("pnpm"), s.Embed("pnpm")), 1e-6)
}

type response struct {
	Data []struct {
		Index     int             `json:"index"`
		Embedding json.RawMessage `json:"embedding"`
	} `json:"data"`
	Error *struct {
		Message string `json:"message"`
		Code    string `json:"code"`
	} `json:"error"`
}

// oneShot opens a connection per request: a connection kept alive across an outage that closes
// it would answer the next POST with EOF (the transport does not retry a POST), which is the
// client's concern, not the runtime's.
var oneShot = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

func post(t *testing.T, s *openaifake.Server, body map[string]any) (*http.Response, response) {
	t.Helper()
	b, err := json.Marshal(body)
	require.NoError(t, err)
	resp, err := oneShot.Post(s.URL()+"/embeddings", "application/json", bytes.NewReader(b))
	require.NoError(t, err)
	defer resp.Body.Close()
	var r response
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&r))
	return resp, r
}

func TestFloatAndBase64(t *testing.T) {
	t.Parallel()
	s := openaifake.Start(t, openaifake.Options{Dimensions: 1024})
	resp, r := post(t, s, map[string]any{"model": openaifake.DefaultModel, "input": []string{"a", "search_query: pnpm"}, "encoding_format": "float"})
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Len(t, r.Data, 2)
	var v []float32
	require.NoError(t, json.Unmarshal(r.Data[1].Embedding, &v))
	require.Equal(t, openaifake.Vector("pnpm", 1024), v, "the prefix is recognised, not embedded")

	_, r = post(t, s, map[string]any{"model": openaifake.DefaultModel, "input": "pnpm", "encoding_format": "base64"})
	var enc string
	require.NoError(t, json.Unmarshal(r.Data[0].Embedding, &enc))
	raw, err := base64.StdEncoding.DecodeString(enc)
	require.NoError(t, err)
	require.Len(t, raw, 4*1024)
	require.Equal(t, []string{"float", "base64"}, []string{s.Requests()[0].EncodingFormat, s.Requests()[1].EncodingFormat})
}

func TestTruncate256(t *testing.T) {
	t.Parallel()
	s := openaifake.Start(t, openaifake.Options{Truncate256: true})
	_, r := post(t, s, map[string]any{"model": openaifake.DefaultModel, "input": "pnpm", "encoding_format": "float"})
	var v []float32
	require.NoError(t, json.Unmarshal(r.Data[0].Embedding, &v))
	require.Len(t, v, 256)
}

func TestOverLong(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 20) + "pnpm"
	refuses := openaifake.Start(t, openaifake.Options{MaxInputTokens: 10})
	resp, r := post(t, refuses, map[string]any{"model": openaifake.DefaultModel, "input": long})
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Equal(t, "context_length_exceeded", r.Error.Code)

	cuts := openaifake.Start(t, openaifake.Options{MaxInputTokens: 10, OverLong: openaifake.OverLongCut})
	_, r = post(t, cuts, map[string]any{"model": openaifake.DefaultModel, "input": []string{long, strings.Repeat("word ", 20) + "yarn"}})
	var a, b []float32
	require.NoError(t, json.Unmarshal(r.Data[0].Embedding, &a))
	require.NoError(t, json.Unmarshal(r.Data[1].Embedding, &b))
	require.Equal(t, a, b, "what follows the limit is silently dropped")
}

func TestOutagesAndRateLimits(t *testing.T) {
	t.Parallel()
	s := openaifake.Start(t, openaifake.Options{RetryAfter: "2"})
	body := map[string]any{"model": openaifake.DefaultModel, "input": "x"}

	s.RateLimit(1)
	resp, _ := post(t, s, body)
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	require.Equal(t, "2", resp.Header.Get("Retry-After"))
	resp, _ = post(t, s, body)
	require.Equal(t, http.StatusOK, resp.StatusCode)

	s.SetOutage(openaifake.Unavailable)
	resp, _ = post(t, s, body)
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)

	s.SetOutage(openaifake.Refused)
	_, err := oneShot.Post(s.URL()+"/embeddings", "application/json", strings.NewReader("{}"))
	require.ErrorContains(t, err, "connection refused")

	s.SetOutage(openaifake.Up)
	resp, _ = post(t, s, body)
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

func TestKeyAndModel(t *testing.T) {
	t.Parallel()
	s := openaifake.Start(t, openaifake.Options{Key: "k", Model: "nomic-embed-text"})
	resp, _ := post(t, s, map[string]any{"model": "nomic-embed-text", "input": "x"})
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
}

// TestSerialCPUModel: with LatencyPerInput and Serial the fake is a model on one CPU thread: a
// batch costs its inputs' time, and a request waits for the one being answered.
func TestSerialCPUModel(t *testing.T) {
	t.Parallel()
	s := openaifake.Start(t, openaifake.Options{LatencyPerInput: 40 * time.Millisecond, Serial: true})
	start := time.Now()
	body := `{"model":"` + openaifake.DefaultModel + `","input":["a","b","c"]}`
	done := make(chan time.Duration, 2)
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			resp, err := oneShot.Post(s.URL()+"/embeddings", "application/json", strings.NewReader(body))
			if err == nil {
				err = resp.Body.Close()
			}
			errs <- err
			done <- time.Since(start)
		}()
	}
	first, second := <-done, <-done
	require.NoError(t, <-errs)
	require.NoError(t, <-errs)
	require.GreaterOrEqual(t, first, 120*time.Millisecond, "three inputs cost three times one")
	require.GreaterOrEqual(t, second, 240*time.Millisecond, "the second request waited for the first")
}

// TestStalled: a stalled fake answers nothing until the outage ends, then serves what waited;
// a client that gives up meanwhile gets no answer.
func TestStalled(t *testing.T) {
	t.Parallel()
	s := openaifake.Start(t, openaifake.Options{})
	s.SetOutage(openaifake.Stalled)
	impatient := &http.Client{Timeout: 100 * time.Millisecond, Transport: &http.Transport{DisableKeepAlives: true}}
	body := `{"model":"` + openaifake.DefaultModel + `","input":["a"]}`
	_, err := impatient.Post(s.URL()+"/embeddings", "application/json", strings.NewReader(body))
	require.Error(t, err, "no answer while stalled")
	done := make(chan int, 1)
	go func() {
		resp, err := oneShot.Post(s.URL()+"/embeddings", "application/json", strings.NewReader(body))
		if err != nil {
			done <- 0
			return
		}
		_ = resp.Body.Close()
		done <- resp.StatusCode
	}()
	time.Sleep(50 * time.Millisecond)
	s.SetOutage(openaifake.Up)
	require.Equal(t, http.StatusOK, <-done, "what waited is served once the outage ends")
}
