package brain

import (
	"fmt"

	"github.com/memhost/memhost/host/internal/core/rules"
)

// Error is a refusal or absence worded for the user: what is missing or refused and what to do
// about it (access.Classify shows it through SafeMessage). Kind is the class surfaces map to a status (rules.ErrNotFound, ErrConflict,
// ErrForbidden); the message replaces the class's generic one.
type Error struct {
	Kind error
	Msg  string
}

func (e *Error) Error() string       { return e.Msg }
func (e *Error) Unwrap() error       { return e.Kind }
func (e *Error) SafeMessage() string { return e.Msg }

func notFound(format string, args ...any) error {
	return &Error{Kind: rules.ErrNotFound, Msg: fmt.Sprintf(format, args...)}
}

func conflict(format string, args ...any) error {
	return &Error{Kind: rules.ErrConflict, Msg: fmt.Sprintf(format, args...)}
}

func forbidden(format string, args ...any) error {
	return &Error{Kind: rules.ErrForbidden, Msg: fmt.Sprintf(format, args...)}
}
