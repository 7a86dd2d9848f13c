package openaicompat

import (
	"bytes"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/memhost/memhost/sdk/embedder/embeddertest/openaifake"
	"github.com/memhost/memhost/sdk/openaihttp"
)

// testKey is the API key the tests configure; no error or log line may
// contain it.
const testKey = "sk-test-81f0c2-never-print-me"

// syncBuffer is a log sink safe for the embedder's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// start runs a fake runtime that demands the test key and an embedder on
// it, with fast retries and its log captured; edit adjusts the embedder's
// configuration.
func start(t *testing.T, opts openaifake.Options, edit func(*Config)) (*openaifake.Server, *Embedder, *syncBuffer) {
	t.Helper()
	if opts.Key == "" {
		opts.Key = testKey
	}
	srv := openaifake.Start(t, opts)
	logs := &syncBuffer{}
	transport := &http.Transport{}
	t.Cleanup(transport.CloseIdleConnections)
	cfg := Config{
		Name:           "test",
		Model:          srv.Model(),
		BaseURL:        srv.URL(),
		APIKey:         testKey,
		APIKeyEnv:      "TEST_EMBED_KEY",
		MaxInputTokens: DefaultMaxInputTokens,
		MaxBatch:       DefaultMaxBatch,
		Timeout:        30 * time.Second,
		FoldThreshold:  DefaultFoldThreshold,
		HTTPClient:     &http.Client{Transport: transport},
		Logger:         hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Trace}),
	}
	if edit != nil {
		edit(&cfg)
	}
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.retry = openaihttp.RetryPolicy{Attempts: 3, Base: 5 * time.Millisecond, Max: 20 * time.Millisecond}
	return srv, e, logs
}

// embedded lists the inputs of every embeddings request srv received.
func embedded(srv *openaifake.Server) []string {
	var out []string
	for _, r := range srv.Requests() {
		out = append(out, r.Inputs...)
	}
	return out
}
