package openaicompat

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"

	"github.com/memhost/memhost/sdk/worker"
)

// callError is what a failed request told us, read out of go-openai's error
// types. Its message came from the runtime: it is redacted and bounded
// before anything quotes it.
type callError struct {
	// status is the HTTP status, 0 when no response arrived.
	status int
	// message is the runtime's explanation (or the transport's).
	message string
	// detail joins the error body's message, type, code and param, which
	// is where runtimes say which request field they rejected.
	detail string
}

// classify fills c from err and the response header, and reports false when
// err is neither an HTTP error status nor a transport failure: a 2xx whose
// body did not decode.
func (w *Worker) classify(err error, c *callError) bool {
	var reqErr *openai.RequestError
	var apiErr *openai.APIError
	var urlErr *url.Error
	switch {
	case errors.As(err, &reqErr):
		// A body that is not {"error": {...}}: quote the body itself.
		c.status = reqErr.HTTPStatusCode
		c.message = string(reqErr.Body)
	case errors.As(err, &apiErr):
		c.status = apiErr.HTTPStatusCode
		c.message = apiErr.Message
		param := ""
		if apiErr.Param != nil {
			param = *apiErr.Param
		}
		c.detail = fmt.Sprint(apiErr.Message, " ", apiErr.Type, " ", apiErr.Code, " ", param)
	case errors.As(err, &urlErr):
		c.message = urlErr.Err.Error()
	default:
		return false
	}
	if c.detail == "" {
		c.detail = c.message
	}
	c.message = bounded(w.redact(c.message))
	c.detail = strings.ToLower(c.detail)
	return true
}

// rejects reports whether the runtime refused the request as malformed
// (400, or 422 from validating frameworks) naming one of the given request
// fields: how a runtime says it lacks a feature.
func (c callError) rejects(fields ...string) bool {
	if c.status != http.StatusBadRequest && c.status != http.StatusUnprocessableEntity {
		return false
	}
	for _, f := range fields {
		if strings.Contains(c.detail, f) {
			return true
		}
	}
	return false
}

// retryable: the runtime asked to slow down or failed on its side.
func (c callError) retryable() bool {
	return c.status == http.StatusTooManyRequests || c.status >= 500
}

// typed maps the failure to the worker's errors. keyEnv names the variable
// holding the key, so that a rejected key can be pointed at without being
// quoted.
func (c callError) typed(keyEnv string) error {
	switch {
	case c.status == 0:
		return fmt.Errorf("%w: cannot reach the runtime: %s", worker.ErrUnavailable, c.message)
	case c.status == http.StatusUnauthorized || c.status == http.StatusForbidden:
		// The runtime's message is left out: some quote part of the key.
		where := "no API key is configured (" + EnvAPIKeyEnv + ")"
		if keyEnv != "" {
			where = "check the key in " + keyEnv
		}
		return fmt.Errorf("%w: the runtime rejected the credentials (HTTP %d); %s", worker.ErrRefused, c.status, where)
	case c.status == http.StatusTooManyRequests:
		return fmt.Errorf("%w: the runtime answered HTTP 429: %s", worker.ErrRateLimited, c.message)
	case c.status >= 500:
		return fmt.Errorf("%w: the runtime failed with HTTP %d: %s", worker.ErrUnavailable, c.status, c.message)
	case c.rejects("context length", "context_length", "context size", "context window"):
		return fmt.Errorf("%w: the runtime says the task exceeds the model's context (HTTP %d): %s", worker.ErrOverBudget, c.status, c.message)
	case c.status == http.StatusNotFound:
		return fmt.Errorf("%w: the runtime has no such model or endpoint (HTTP 404): %s", worker.ErrUnavailable, c.message)
	default:
		return fmt.Errorf("%w: the runtime refused the request (HTTP %d): %s", worker.ErrInvalidInput, c.status, c.message)
	}
}

// maxQuoted bounds what an error quotes from the runtime, so that an error
// page cannot flood the host's log.
const maxQuoted = 300

func bounded(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= maxQuoted {
		return s
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}
