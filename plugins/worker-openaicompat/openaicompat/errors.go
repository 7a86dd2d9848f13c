package openaicompat

import (
	"fmt"
	"net/http"

	"github.com/memhost/memhost/sdk/openaihttp"
	"github.com/memhost/memhost/sdk/worker"
)

// typed maps a failed request to the worker's errors. keyEnv names the
// variable holding the key, so that a rejected key can be pointed at without
// being quoted.
func typed(c openaihttp.CallError, keyEnv string) error {
	switch {
	case c.Status == 0:
		return fmt.Errorf("%w: cannot reach the runtime: %s", worker.ErrUnavailable, c.Message)
	case c.Unauthorized():
		return fmt.Errorf("%w: the runtime rejected the credentials (HTTP %d); %s", worker.ErrRefused, c.Status, openaihttp.KeyAdvice(EnvAPIKeyEnv, keyEnv))
	case c.Status == http.StatusTooManyRequests:
		return fmt.Errorf("%w: the runtime answered HTTP 429: %s", worker.ErrRateLimited, c.Message)
	case c.Status >= 500:
		return fmt.Errorf("%w: the runtime failed with HTTP %d: %s", worker.ErrUnavailable, c.Status, c.Message)
	case c.Rejects("context length", "context_length", "context size", "context window"):
		return fmt.Errorf("%w: the runtime says the task exceeds the model's context (HTTP %d): %s", worker.ErrOverBudget, c.Status, c.Message)
	case c.Status == http.StatusNotFound:
		return fmt.Errorf("%w: the runtime has no such model or endpoint (HTTP 404): %s", worker.ErrUnavailable, c.Message)
	default:
		return fmt.Errorf("%w: the runtime refused the request (HTTP %d): %s", worker.ErrInvalidInput, c.Status, c.Message)
	}
}
