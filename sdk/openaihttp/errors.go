package openaihttp

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/memhost/memhost/sdk/internal/textcut"
	openai "github.com/sashabaranov/go-openai"
)

// CallError is what a failed request told us, read out of go-openai's error
// types.
type CallError struct {
	// Status is the HTTP status, 0 when no response arrived.
	Status int
	// Message is the runtime's explanation (or the transport's), redacted
	// and bounded: safe to quote.
	Message string
	// Detail joins the error body's message, type, code and param in lower
	// case, which is where runtimes say which request field they rejected.
	// It is for matching, never for quoting.
	Detail string
}

// Classify reads err and reports false when err is neither an HTTP error
// status nor a transport failure (a 2xx whose body did not decode, or an
// error go-openai raised itself). key is scrubbed from the message.
func Classify(err error, key Secret) (CallError, bool) {
	var c CallError
	var reqErr *openai.RequestError
	var apiErr *openai.APIError
	var urlErr *url.Error
	switch {
	case errors.As(err, &reqErr):
		// A body that is not {"error": {...}}: quote the body itself.
		c.Status = reqErr.HTTPStatusCode
		c.Message = string(reqErr.Body)
	case errors.As(err, &apiErr):
		c.Status = apiErr.HTTPStatusCode
		c.Message = apiErr.Message
		param := ""
		if apiErr.Param != nil {
			param = *apiErr.Param
		}
		c.Detail = fmt.Sprint(apiErr.Message, " ", apiErr.Type, " ", apiErr.Code, " ", param)
	case errors.As(err, &urlErr):
		c.Message = urlErr.Err.Error()
	default:
		return CallError{}, false
	}
	if c.Detail == "" {
		c.Detail = c.Message
	}
	c.Message = Bounded(key.Redact(c.Message))
	c.Detail = strings.ToLower(key.Redact(c.Detail))
	return c, true
}

// Rejects reports whether the runtime refused the request as malformed
// (400, or 422 from validating frameworks) naming one of the given words,
// e.g. a request field: how a runtime says it lacks a feature.
func (c CallError) Rejects(words ...string) bool {
	if c.Status != http.StatusBadRequest && c.Status != http.StatusUnprocessableEntity {
		return false
	}
	for _, w := range words {
		if strings.Contains(c.Detail, w) {
			return true
		}
	}
	return false
}

// Retryable reports whether the runtime asked to slow down or failed on its
// side.
func (c CallError) Retryable() bool {
	return c.Status == http.StatusTooManyRequests || c.Status >= 500
}

// Unauthorized reports whether the runtime rejected the credentials.
func (c CallError) Unauthorized() bool {
	return c.Status == http.StatusUnauthorized || c.Status == http.StatusForbidden
}

// KeyAdvice says where to look when the runtime rejected the credentials,
// naming the variable (keyEnv) that holds the key, or the setting
// (keyEnvVar) that would name one. The runtime's own message is left out:
// some quote part of the key.
func KeyAdvice(keyEnvVar, keyEnv string) string {
	if keyEnv != "" {
		return "check the key in " + keyEnv
	}
	return "no API key is configured (" + keyEnvVar + ")"
}

// maxQuoted bounds what an error quotes from the runtime, so that an error
// page cannot flood the host's log.
const maxQuoted = 300

// Bounded squeezes s's whitespace and cuts it, on a rune boundary, to a
// length fit to quote in an error.
func Bounded(s string) string { return textcut.Line(s, maxQuoted) }
