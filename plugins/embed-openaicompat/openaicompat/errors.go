package openaicompat

import (
	"fmt"
	"net/http"

	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/openaihttp"
)

// contextWords are how runtimes say an input is longer than the model's
// context (vLLM, OpenAI, Ollama, TEI).
var contextWords = []string{"context length", "context_length", "maximum context", "too long", "input length", "exceeds the context", "token limit"}

// typed maps a failed request to the embedder's errors: what the host
// should retry later (ErrUnavailable: the runtime is down, overloaded or
// without the model) and what is permanent (ErrInvalidInput).
func (e *Embedder) typed(c openaihttp.CallError) error {
	switch {
	case c.Status == 0:
		return fmt.Errorf("%w: cannot reach the runtime at %s: %s", embedder.ErrUnavailable, e.cfg.BaseURL, c.Message)
	case c.Unauthorized():
		return fmt.Errorf("%w: the runtime rejected the credentials (HTTP %d); %s", embedder.ErrUnavailable, c.Status, openaihttp.KeyAdvice(EnvAPIKeyEnv, e.cfg.APIKeyEnv))
	case c.Retryable():
		return fmt.Errorf("%w: the runtime answered HTTP %d: %s", embedder.ErrUnavailable, c.Status, c.Message)
	case c.Rejects(contextWords...):
		return fmt.Errorf("%w: the runtime refused input longer than the model's context (HTTP %d: %s); set %s (now %d) to the model's context",
			embedder.ErrInvalidInput, c.Status, c.Message, EnvMaxInputTokens, e.cfg.MaxInputTokens)
	case c.Status == http.StatusNotFound:
		return fmt.Errorf("%w: the runtime has no model %q or no /embeddings endpoint (HTTP 404): %s", embedder.ErrUnavailable, e.cfg.Model, c.Message)
	default:
		return fmt.Errorf("%w: the runtime refused the request (HTTP %d): %s", embedder.ErrInvalidInput, c.Status, c.Message)
	}
}
