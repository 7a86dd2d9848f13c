// Package rules owns what every wing agrees a caller's input may be, and the kinds of error
// every surface maps: the text rules (CheckText for memory text, queries, goals and plans;
// CheckLine for the short one-line fields; Hidden, IsBidi; CheckJSON for a body a decoder would
// silently change), the one escape of stored text shown to a reader (Printable), and the error
// kinds (FieldError naming the field and the limit, LimitError, ErrNotFound, ErrConflict,
// ErrForbidden, ErrUnavailable, ErrRejected). It imports nothing of memhost's, so the store,
// the services, the jobs, the surfaces and the client all share one copy (River keeps such
// shared types in rivertype).
package rules
