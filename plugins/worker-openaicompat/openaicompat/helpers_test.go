package openaicompat

import (
	"bytes"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/memhost/memhost/plugins/worker-openaicompat/internal/fakeopenai"
	"github.com/memhost/memhost/sdk/openaihttp"
	"github.com/memhost/memhost/sdk/worker"
)

// testKey is the API key the tests configure; no error or log line may
// contain it.
const testKey = "sk-test-4c1d9e0b7a2f-never-print-me"

// kitSchema is the shape the fake answers when JSON is asked for.
const kitSchema = `{"type":"object","required":["summary"],"properties":{"summary":{"type":"string"}},"additionalProperties":false}`

// syncBuffer is a log sink safe for the worker's goroutines.
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

// newTestWorker returns a worker pointed at srv with the test key, fast
// retries and its log captured.
func newTestWorker(t *testing.T, baseURL string) (*Worker, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	transport := &http.Transport{}
	t.Cleanup(transport.CloseIdleConnections)
	w, err := New(Config{
		Name:          "test",
		Model:         "fake-model",
		BaseURL:       baseURL,
		APIKey:        testKey,
		APIKeyEnv:     "TEST_OPENAI_KEY",
		Timeout:       30 * time.Second,
		MaxInputBytes: 64 << 10,
		Locality:      worker.LocalityLocal,
		HTTPClient:    &http.Client{Transport: transport},
		Logger:        hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Trace}),
	})
	if err != nil {
		t.Fatal(err)
	}
	w.retry = openaihttp.RetryPolicy{Attempts: 3, Base: 5 * time.Millisecond, Max: 20 * time.Millisecond}
	return w, logs
}

// start runs a fake runtime in mode with the test key and a worker on it.
func start(t *testing.T, opts fakeopenai.Options) (*fakeopenai.Server, *Worker, *syncBuffer) {
	t.Helper()
	if opts.Key == "" {
		opts.Key = testKey
	}
	srv := fakeopenai.Start(t, opts)
	w, logs := newTestWorker(t, srv.URL)
	return srv, w, logs
}

// task is a task with a schema when schema is set.
func task(schema string) worker.Task {
	return worker.Task{
		Kind:         worker.TaskSessionSummary,
		Instructions: "Summarise the input in one sentence.",
		Input:        "we use pnpm, not npm, in this repo. The API listens on port 8080",
		Schema:       schema,
		Deadline:     time.Now().Add(30 * time.Second),
		TokenBudget:  4096,
	}
}

// formats lists the response_format of each chat request srv received.
func formats(srv *fakeopenai.Server) []string {
	var out []string
	for _, r := range srv.Requests() {
		if r.Path == "/v1/chat/completions" {
			out = append(out, r.ResponseFormat)
		}
	}
	return out
}
