package rules

import (
	"errors"
	"fmt"
	"time"
)

// FieldError is bad input: it names the field and the rule broken, and nothing was changed.
type FieldError struct {
	Field   string
	Message string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Message }

// Errf is a *FieldError naming field, its message formatted as fmt.Sprintf does.
func Errf(field, format string, args ...any) error {
	return &FieldError{Field: field, Message: fmt.Sprintf(format, args...)}
}

// LimitError is a write refused because the caller reached a limit that others free (a
// project's pending proposals wait for an operator): nothing was changed, and the same write
// may succeed after Retry. Message says which limit and what to do; surfaces show it as is.
type LimitError struct {
	Message string
	Retry   time.Duration
}

func (e *LimitError) Error() string { return e.Message }

// Errors the service returns; surfaces map them to status codes.
var (
	// ErrNotFound also covers memories of another project: their existence is not revealed.
	ErrNotFound = errors.New("memory not found")
	// ErrForbidden is a valid caller asking for something its grant does not cover.
	ErrForbidden = errors.New("forbidden")
	// ErrConflict is a change that would duplicate a live memory.
	ErrConflict = errors.New("conflicts with a live memory")
	// ErrUnavailable means the embedder cannot serve right now; retry later. Writes are not
	// downgraded to another embedder.
	ErrUnavailable = errors.New("embedder unavailable")
	// ErrRejected means the embedder refused the text for good (its own limit or rule): a
	// retry of the same text cannot succeed, so surfaces must not invite one.
	ErrRejected = errors.New("rejected by the embedder")
)
