package plugins

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrNotFound is wrapped by Supervisor.Find for names no plugin answers to.
var ErrNotFound = errors.New("plugin not found")

// ErrIdentityChanged is wrapped by the error of a plugin that came back from
// a restart reporting another name or shape than before.
var ErrIdentityChanged = errors.New("plugin identity changed")

// UnavailableError is returned by calls refused without reaching a plugin
// process, and by Find for a plugin that never started. Its message is short
// and safe to show a caller; the cause (which may name paths) is only
// wrapped, for errors.Is and for operators, and is in Status.LastError.
type UnavailableError struct {
	Kind, Name string
	State      State
	// Attempt is the restart attempt under way (state restarting).
	Attempt int
	// Cause is the plugin's last error.
	Cause error
	// sentinel is the kind's unavailable error (Adapter.Sentinel).
	sentinel error
	// detail is Cause in the operator's terms (Plugin.Explain).
	detail string
}

func (e *UnavailableError) Error() string {
	prefix := e.Kind + " plugin " + e.Name
	switch e.State {
	case StateRestarting:
		return fmt.Sprintf("%s is restarting (attempt %d)", prefix, e.Attempt)
	case StateFailed:
		return prefix + " has failed and will not be restarted"
	default:
		return prefix + " is " + string(e.State)
	}
}

func (e *UnavailableError) Unwrap() []error { return nonNil(e.sentinel, e.Cause) }

// callError is what a call that reached a plugin returns when it did not
// succeed for a reason other than the caller's own context. Like
// UnavailableError it says what happened in a few words and only wraps the
// detail.
type callError struct {
	kind, name string
	msg        string
	sentinel   error
	cause      error
	// detail is cause in the operator's terms (Plugin.Explain).
	detail string
}

func (e *callError) Error() string   { return e.kind + " plugin " + e.name + " " + e.msg }
func (e *callError) Unwrap() []error { return nonNil(e.sentinel, e.cause) }

func nonNil(errs ...error) []error {
	out := errs[:0:0]
	for _, err := range errs {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}

// maxReasonBytes bounds a plugin-supplied reason quoted to a caller.
const maxReasonBytes = 200

// OneLine flattens s (a plugin's message, a multi-line go-plugin diagnosis)
// to one line of at most max bytes: runs of whitespace and control
// characters become one space, and a cut is marked with "...".
func OneLine(s string, max int) string {
	var b strings.Builder
	space := false
	for _, r := range strings.TrimSpace(s) {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	out := b.String()
	if len(out) <= max {
		return out
	}
	cut := max - len("...")
	for cut > 0 && !utf8.RuneStart(out[cut]) {
		cut--
	}
	return out[:cut] + "..."
}

// Diagnosis is the detail a short call error wraps, for operators: what the plugin answered
// (a model endpoint's refusal, a CLI's last words), or why its process is not usable. It is
// "" for an error that holds none, such as the caller's own context ending.
//
// It is told in the operator's terms: a configured instance's setting variables are named as
// the keys the operator sets (Plugin.Explain).
func Diagnosis(err error) string {
	var ce *callError
	if errors.As(err, &ce) {
		return ce.detail
	}
	var ue *UnavailableError
	if errors.As(err, &ue) {
		return ue.detail
	}
	return ""
}
