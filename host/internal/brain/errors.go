package brain

import (
	"fmt"

	"github.com/memhost/memhost/host/internal/core/memory"
)

// Error is a refusal or absence worded for the user: what is missing or refused and what to do
// about it (access.Classify shows it through SafeMessage). Kind is the class surfaces map to a status (memory.ErrNotFound, ErrConflict,
// ErrForbidden); the message replaces the class's generic one.
type Error struct {
	Kind error
	Msg  string
}

func (e *Error) Error() string       { return e.Msg }
func (e *Error) Unwrap() error       { return e.Kind }
func (e *Error) SafeMessage() string { return e.Msg }

func notFound(format string, args ...any) error {
	return &Error{Kind: memory.ErrNotFound, Msg: fmt.Sprintf(format, args...)}
}

func conflict(format string, args ...any) error {
	return &Error{Kind: memory.ErrConflict, Msg: fmt.Sprintf(format, args...)}
}

func forbidden(format string, args ...any) error {
	return &Error{Kind: memory.ErrForbidden, Msg: fmt.Sprintf(format, args...)}
}

func fieldErr(field, format string, args ...any) error {
	return &memory.FieldError{Field: field, Message: fmt.Sprintf(format, args...)}
}
