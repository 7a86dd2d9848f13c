package openaicompat

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/plugins/worker-openaicompat/internal/fakeopenai"
	"github.com/memhost/memhost/sdk/worker"
)

func TestSchemaTravelsAsJSONSchemaResponseFormat(t *testing.T) {
	t.Parallel()
	srv, w, _ := start(t, fakeopenai.Options{Mode: fakeopenai.JSONSchema})
	tk := task(kitSchema)
	a, err := w.Run(t.Context(), tk)
	require.NoError(t, err)
	require.JSONEq(t, `{"summary":"we use pnpm, not npm, in this repo"}`, string(a.JSON))
	require.Equal(t, "fake-model", a.Model)

	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	r := reqs[0]
	require.Equal(t, "Bearer "+testKey, r.Authorization)
	require.Equal(t, "json_schema", r.ResponseFormat)
	require.JSONEq(t, kitSchema, string(r.Schema))
	require.True(t, r.Strict)
	require.False(t, r.Stream, "Run never streams")
	require.Equal(t, []fakeopenai.Message{{Role: "system", Content: tk.Instructions}, {Role: "user", Content: tk.Input}}, r.Messages)
	// The output cap is the budget less the prompt estimate, schema included.
	require.Equal(t, tk.TokenBudget-estimateTokens(tk.Instructions, tk.Input)-estimateTokens(kitSchema), r.MaxTokens)

	// Usage is the runtime's, not an estimate.
	prompt := fakeopenai.Tokens(tk.Instructions) + fakeopenai.Tokens(tk.Input)
	require.Equal(t, &worker.Usage{InputTokens: prompt, OutputTokens: fakeopenai.Tokens(a.Text)}, a.Usage)
}

func TestFreeTextTaskSendsNoResponseFormat(t *testing.T) {
	t.Parallel()
	srv, w, _ := start(t, fakeopenai.Options{Mode: fakeopenai.JSONSchema})
	a, err := w.Run(t.Context(), task(""))
	require.NoError(t, err)
	require.Equal(t, "we use pnpm, not npm, in this repo", a.Text)
	require.Equal(t, []string{""}, formats(srv))
}

// TestFallsBackFromJSONSchema: a runtime that refuses json_schema is asked
// with json_object at once, the schema in the system message, and the
// process remembers: the next task starts there.
func TestFallsBackFromJSONSchema(t *testing.T) {
	t.Parallel()
	srv, w, logs := start(t, fakeopenai.Options{Mode: fakeopenai.NoJSONSchema})
	a, err := w.Run(t.Context(), task(kitSchema))
	require.NoError(t, err)
	require.JSONEq(t, `{"summary":"we use pnpm, not npm, in this repo"}`, string(a.JSON))
	require.Equal(t, []string{"json_schema", "json_object"}, formats(srv))
	last := srv.Requests()[1]
	require.Contains(t, last.Messages[0].Content, kitSchema, "the schema moves into the system message")
	require.Contains(t, logs.String(), "refuses a response_format")

	_, err = w.Run(t.Context(), task(kitSchema))
	require.NoError(t, err)
	require.Equal(t, []string{"json_schema", "json_object", "json_object"}, formats(srv))
}

func TestFallsBackToNoResponseFormat(t *testing.T) {
	t.Parallel()
	srv, w, _ := start(t, fakeopenai.Options{Mode: fakeopenai.NoResponseFormat})
	a, err := w.Run(t.Context(), task(kitSchema))
	require.NoError(t, err)
	require.JSONEq(t, `{"summary":"we use pnpm, not npm, in this repo"}`, string(a.JSON))
	require.Equal(t, []string{"json_schema", "json_object", ""}, formats(srv))

	_, err = w.Run(t.Context(), task(kitSchema))
	require.NoError(t, err)
	require.Equal(t, []string{"json_schema", "json_object", "", ""}, formats(srv))
}

func TestDigsJSONOutOfProseAndFences(t *testing.T) {
	t.Parallel()
	for _, mode := range []fakeopenai.Mode{fakeopenai.Prose, fakeopenai.Fenced} {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			_, w, _ := start(t, fakeopenai.Options{Mode: mode})
			a, err := w.Run(t.Context(), task(kitSchema))
			require.NoError(t, err)
			require.Equal(t, `{"summary":"we use pnpm, not npm, in this repo"}`, a.Text)
		})
	}
}

func TestAnswerMissingTheSchemaIsBadAnswer(t *testing.T) {
	t.Parallel()
	_, w, _ := start(t, fakeopenai.Options{Mode: fakeopenai.Prose})
	_, err := w.Run(t.Context(), task(`{"type":"object","required":["verdict"]}`))
	require.ErrorIs(t, err, worker.ErrBadAnswer)
	require.Contains(t, err.Error(), "does not satisfy the task's schema")
}

func TestRateLimitHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	srv, w, logs := start(t, fakeopenai.Options{Mode: fakeopenai.RateLimitedOnce, RetryAfter: "1"})
	began := time.Now()
	_, err := w.Run(t.Context(), task(kitSchema))
	require.NoError(t, err)
	require.GreaterOrEqual(t, time.Since(began), time.Second, "waited as long as Retry-After said, not the 5ms backoff")
	require.Len(t, formats(srv), 2)
	require.Contains(t, logs.String(), "retrying the chat completion")
}

// TestRateLimitPastTheDeadline: a Retry-After that outlasts the deadline
// ends the call at once with ErrRateLimited instead of sleeping into a
// timeout.
func TestRateLimitPastTheDeadline(t *testing.T) {
	t.Parallel()
	srv, w, _ := start(t, fakeopenai.Options{Mode: fakeopenai.RateLimitedOnce, RetryAfter: "30"})
	tk := task(kitSchema)
	tk.Deadline = time.Now().Add(5 * time.Second)
	began := time.Now()
	_, err := w.Run(t.Context(), tk)
	require.ErrorIs(t, err, worker.ErrRateLimited)
	require.Less(t, time.Since(began), 2*time.Second)
	require.Contains(t, err.Error(), "would pass the deadline")
	require.Len(t, formats(srv), 1)
}

func TestPersistentServerErrorIsUnavailableAfterRetries(t *testing.T) {
	t.Parallel()
	srv, w, _ := start(t, fakeopenai.Options{Mode: fakeopenai.ServerError})
	_, err := w.Run(t.Context(), task(kitSchema))
	require.ErrorIs(t, err, worker.ErrUnavailable)
	require.Contains(t, err.Error(), "HTTP 500")
	require.Len(t, formats(srv), w.retry.Attempts)
}

func TestSlowRuntimeTimesOut(t *testing.T) {
	t.Parallel()
	t.Run("task deadline", func(t *testing.T) {
		t.Parallel()
		_, w, _ := start(t, fakeopenai.Options{Mode: fakeopenai.Slow})
		tk := task(kitSchema)
		tk.Deadline = time.Now().Add(200 * time.Millisecond)
		began := time.Now()
		_, err := w.Run(t.Context(), tk)
		require.ErrorIs(t, err, worker.ErrTimeout)
		require.Less(t, time.Since(began), 2*time.Second)
	})
	t.Run("worker timeout", func(t *testing.T) {
		t.Parallel()
		_, w, _ := start(t, fakeopenai.Options{Mode: fakeopenai.Slow})
		w.cfg.Timeout = 200 * time.Millisecond
		began := time.Now()
		_, err := w.Run(t.Context(), task(kitSchema))
		require.ErrorIs(t, err, worker.ErrTimeout)
		require.Less(t, time.Since(began), 2*time.Second)
	})
	t.Run("cancelled", func(t *testing.T) {
		t.Parallel()
		_, w, _ := start(t, fakeopenai.Options{Mode: fakeopenai.Slow})
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(100*time.Millisecond, cancel)
		_, err := w.Run(ctx, task(kitSchema))
		require.ErrorIs(t, err, context.Canceled)
	})
}

func TestMalformedBodyIsBadAnswer(t *testing.T) {
	t.Parallel()
	_, w, _ := start(t, fakeopenai.Options{Mode: fakeopenai.Malformed})
	_, err := w.Run(t.Context(), task(kitSchema))
	require.ErrorIs(t, err, worker.ErrBadAnswer)
	require.Contains(t, err.Error(), "not a chat completion")
}

// TestRejectedKeyIsRefusedAndNeverQuoted: the runtime's 401 quotes the key
// it got; the worker's error names the variable, not the key.
func TestRejectedKeyIsRefusedAndNeverQuoted(t *testing.T) {
	t.Parallel()
	srv, w, logs := start(t, fakeopenai.Options{Mode: fakeopenai.JSONSchema, Key: "sk-the-runtime-wants-another"})
	_, err := w.Run(t.Context(), task(kitSchema))
	require.ErrorIs(t, err, worker.ErrRefused)
	require.Contains(t, err.Error(), "TEST_OPENAI_KEY")
	require.NotContains(t, err.Error(), testKey)
	require.Equal(t, "Bearer "+testKey, srv.Requests()[0].Authorization)

	herr := w.Health(t.Context())
	require.ErrorIs(t, herr, worker.ErrRefused)
	require.NotContains(t, herr.Error(), testKey)
	require.NotContains(t, logs.String(), testKey)
}

// TestKeyNeverLeaks sends the key on every request and never lets it into
// an error or a log line, whatever the runtime does, including quoting it
// back in an error body.
func TestKeyNeverLeaks(t *testing.T) {
	t.Parallel()
	modes := []fakeopenai.Mode{
		fakeopenai.JSONSchema, fakeopenai.NoJSONSchema, fakeopenai.NoResponseFormat, fakeopenai.RateLimitedOnce,
		fakeopenai.ServerError, fakeopenai.Slow, fakeopenai.Malformed, fakeopenai.MaxCompletionTokensOnly,
	}
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			srv, w, logs := start(t, fakeopenai.Options{Mode: mode, RetryAfter: "0"})
			tk := task(kitSchema)
			tk.Deadline = time.Now().Add(300 * time.Millisecond)
			_, err := w.Run(t.Context(), tk)
			if err != nil {
				require.NotContains(t, err.Error(), testKey)
			}
			require.NoError(t, w.Health(t.Context()))
			require.NotContains(t, logs.String(), testKey)
			for _, r := range srv.Requests() {
				require.Equal(t, "Bearer "+testKey, r.Authorization, "%s %s", r.Method, r.Path)
			}
		})
	}
}

func TestBudget(t *testing.T) {
	t.Parallel()
	t.Run("prompt alone does not fit", func(t *testing.T) {
		t.Parallel()
		srv, w, _ := start(t, fakeopenai.Options{Mode: fakeopenai.JSONSchema})
		tk := task(kitSchema)
		tk.TokenBudget = estimateTokens(tk.Instructions, tk.Input) + estimateTokens(kitSchema) + minOutputTokens - 1
		_, err := w.Run(t.Context(), tk)
		require.ErrorIs(t, err, worker.ErrOverBudget)
		require.Contains(t, err.Error(), "token budget of")
		require.Empty(t, srv.Requests(), "nothing is spent on a task that cannot fit")
	})
	t.Run("answer cut at the cap", func(t *testing.T) {
		t.Parallel()
		srv, w, _ := start(t, fakeopenai.Options{Mode: fakeopenai.JSONSchema})
		tk := task("")
		tk.Input = strings.Repeat("word ", 200)
		tk.TokenBudget = estimateTokens(tk.Instructions, tk.Input) + 20
		_, err := w.Run(t.Context(), tk)
		require.ErrorIs(t, err, worker.ErrOverBudget)
		require.Contains(t, err.Error(), "cut off")
		require.Equal(t, 20, srv.Requests()[0].MaxTokens)
	})
}

// TestSwitchesToMaxCompletionTokens: a runtime that refuses max_tokens is
// asked with max_completion_tokens, from then on.
func TestSwitchesToMaxCompletionTokens(t *testing.T) {
	t.Parallel()
	srv, w, _ := start(t, fakeopenai.Options{Mode: fakeopenai.MaxCompletionTokensOnly})
	for range 2 {
		_, err := w.Run(t.Context(), task(kitSchema))
		require.NoError(t, err)
	}
	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	require.Positive(t, reqs[0].MaxTokens)
	for _, r := range reqs[1:] {
		require.Zero(t, r.MaxTokens)
		require.Equal(t, reqs[0].MaxTokens, r.MaxCompletionTokens)
	}
}

func TestHealth(t *testing.T) {
	t.Parallel()
	t.Run("models listed", func(t *testing.T) {
		t.Parallel()
		_, w, _ := start(t, fakeopenai.Options{Mode: fakeopenai.JSONSchema})
		require.NoError(t, w.Health(t.Context()))
	})
	t.Run("no models endpoint is still reachable", func(t *testing.T) {
		t.Parallel()
		srv, w, _ := start(t, fakeopenai.Options{Mode: fakeopenai.JSONSchema, NoModels: true})
		require.NoError(t, w.Health(t.Context()))
		require.Equal(t, "/v1/models", srv.Requests()[0].Path)
	})
	t.Run("unreachable", func(t *testing.T) {
		t.Parallel()
		w, _ := newTestWorker(t, "http://127.0.0.1:1/v1")
		err := w.Health(t.Context())
		require.ErrorIs(t, err, worker.ErrUnavailable)
		_, err = w.Run(t.Context(), task(""))
		require.ErrorIs(t, err, worker.ErrUnavailable)
	})
	t.Run("a runtime that never answers is the worker's verdict, before the host's deadline", func(t *testing.T) {
		t.Parallel()
		srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
		t.Cleanup(srv.Close)
		w, _ := newTestWorker(t, srv.URL+"/v1")
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		err := w.Health(ctx)
		require.NoError(t, ctx.Err(), "answered while the host still waits")
		require.ErrorIs(t, err, worker.ErrUnavailable)
		require.ErrorContains(t, err, "did not answer GET /models within")
	})
}

func TestUnservedKindAndBadTaskAreInvalidInput(t *testing.T) {
	t.Parallel()
	srv, w, _ := start(t, fakeopenai.Options{Mode: fakeopenai.JSONSchema})
	tk := task("")
	tk.Kind = "translate"
	_, err := w.Run(t.Context(), tk)
	require.ErrorIs(t, err, worker.ErrInvalidInput)
	tk = task(`{"$ref":"https://example.com/schema.json"}`)
	_, err = w.Run(t.Context(), tk)
	require.ErrorIs(t, err, worker.ErrInvalidInput)
	require.Empty(t, srv.Requests())
}
