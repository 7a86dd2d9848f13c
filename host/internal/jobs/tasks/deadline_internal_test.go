package tasks

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/worker"
)

// TestAWorkerEndingAtTheDeadlineIsTheDeadline: a worker that stops at the task's deadline may
// answer before this process has run the context's timer (a loaded machine runs it late: the
// real Gemini CLI's worker did so once in CI). The run still says the task's deadline passed,
// read off the clock, rather than that no worker answered; a worker that fails before the
// deadline is still "no answer".
func TestAWorkerEndingAtTheDeadlineIsTheDeadline(t *testing.T) {
	t.Parallel()
	// Armed, the clock reads past the deadline once the worker has been called.
	var armed, late atomic.Bool
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		late.Store(armed.Load())
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":{"message":"no","type":"invalid_request_error"}}`))
	}))
	t.Cleanup(api.Close)
	pool, _ := testdb.Migrated(t)
	cfg := config.Default()
	cfg.Plugins.Dirs = []string{testplugins.Workers(t)}
	cfg.Log.Level = "error"
	cfg.Workers.Defined = map[string]config.Worker{"only": {Plugin: "openaicompat", BaseURL: api.URL + "/v1", Model: "m"}}
	require.Empty(t, cfg.Validate())
	r, err := Open(t.Context(), Options{Config: cfg, Pool: pool, Log: slog.New(slog.DiscardHandler), Registerer: prometheus.NewRegistry(),
		LookPath: func(string) (string, error) { return "", errors.New("none") }, Environ: func(string) (string, bool) { return "", false }})
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, r.Close(ctx))
	})
	r.now = func() time.Time {
		if late.Load() {
			return time.Now().Add(time.Hour)
		}
		return time.Now()
	}
	task := func() worker.Task {
		return worker.Task{Instructions: "Merge these memories into one.", Input: "1. We use pnpm.\n2. Never npm.",
			Schema:   `{"type":"object","required":["text"],"properties":{"text":{"type":"string"}},"additionalProperties":false}`,
			Deadline: time.Now().Add(time.Minute)}
	}

	_, _, err = r.Run(t.Context(), worker.TaskMerge, task())
	require.ErrorIs(t, err, ErrNoAnswer, "failed before the deadline")
	require.NotErrorIs(t, err, context.DeadlineExceeded)

	armed.Store(true)
	_, _, err = r.Run(t.Context(), worker.TaskMerge, task())
	require.ErrorIs(t, err, context.DeadlineExceeded, "ended at the deadline, by the clock")
}
