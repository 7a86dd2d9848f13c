package access

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"syscall"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/memhost/memhost/host/internal/api/auth"
)

// ErrUnavailable is a dependency of the front door itself (the token store, the database)
// that cannot answer right now.
var ErrUnavailable = errors.New("unavailable")

// Retry hints: an embedder plugin is restarted with backoff within seconds; a database
// outage is the operator's to end, so clients are asked to come back a little later.
const (
	embedderRetry = 5 * time.Second
	databaseRetry = 10 * time.Second
)

// RateLimited is a call refused by a per-token rate limit, with the time after which a
// retry can succeed.
type RateLimited struct {
	After time.Duration
	Token string // the token's name, for the message
	Limit string // the limit, as auth.Limiter states it ("600 writes per minute (bursts of 60)")
}

func (e *RateLimited) Error() string {
	return fmt.Sprintf("rate limit: token %q is over its limit of %s; nothing was done, retry after %ds", e.Token, e.Limit, RetrySeconds(e.After))
}

// Limit takes one call from p's bucket of l; nil when the call may go ahead.
func Limit(l *auth.Limiter, p auth.Principal) error {
	if ok, after := l.Allow(p.TokenID); !ok {
		return &RateLimited{After: after, Token: p.Name, Limit: l.String()}
	}
	return nil
}

// Problem is an error as every surface shows it.
type Problem struct {
	Status     int           // HTTP status
	Code       string        // stable machine-readable code
	Field      string        // the input field at fault, when there is one
	Message    string        // safe to show: no paths, SQL or Go type names
	RetryAfter time.Duration // > 0 when retrying later can succeed
	// Internal is set for errors nobody anticipated: surfaces log the error in full with Ref
	// and show only the generic message and the reference.
	Internal bool
	Ref      string
}

// SafeMessenger is an error whose message was written for the user (what is missing or
// refused, and what to do): Classify shows it instead of its class's generic message.
type SafeMessenger interface{ SafeMessage() string }

// Classify maps any error a request can end in to its Problem.
func Classify(err error) Problem {
	p := classify(err)
	var sm SafeMessenger
	if !p.Internal && p.Code != "invalid_argument" && errors.As(err, &sm) {
		p.Message = sm.SafeMessage()
	}
	return p
}

func classify(err error) Problem {
	var fe *rules.FieldError
	var rl *RateLimited
	var le *rules.LimitError
	switch {
	case errors.As(err, &fe):
		return Problem{Status: http.StatusBadRequest, Code: "invalid_argument", Field: fe.Field, Message: fe.Error()}
	case errors.As(err, &rl):
		return Problem{Status: http.StatusTooManyRequests, Code: "rate_limited", Message: rl.Error(), RetryAfter: rl.After}
	case errors.As(err, &le):
		return Problem{Status: http.StatusTooManyRequests, Code: "limit_reached", Message: le.Message, RetryAfter: le.Retry}
	case errors.Is(err, auth.ErrUnauthenticated):
		return Problem{Status: http.StatusUnauthorized, Code: "unauthenticated", Message: err.Error()}
	case errors.Is(err, auth.ErrForbidden), errors.Is(err, rules.ErrForbidden):
		return Problem{Status: http.StatusForbidden, Code: "forbidden", Message: err.Error()}
	case errors.Is(err, rules.ErrNotFound):
		return Problem{Status: http.StatusNotFound, Code: "not_found", Message: "not found: no such memory in this project"}
	case errors.Is(err, rules.ErrConflict):
		return Problem{Status: http.StatusConflict, Code: "conflict", Message: "conflict: another live memory already has this text; search for it instead"}
	case errors.Is(err, rules.ErrRejected):
		return Problem{Status: http.StatusUnprocessableEntity, Code: "rejected", Message: "rejected: the embedder refused this text; retrying the same text will not help"}
	case errors.Is(err, rules.ErrUnavailable):
		return Problem{Status: http.StatusServiceUnavailable, Code: "unavailable", RetryAfter: embedderRetry,
			Message: fmt.Sprintf("unavailable: the embedder cannot serve right now; nothing was changed, retry in %ds", RetrySeconds(embedderRetry))}
	case errors.Is(err, ErrUnavailable), databaseUnavailable(err):
		return Problem{Status: http.StatusServiceUnavailable, Code: "unavailable", RetryAfter: databaseRetry,
			Message: fmt.Sprintf("unavailable: memhost cannot reach its database right now; retry in %ds", RetrySeconds(databaseRetry))}
	case errors.Is(err, context.DeadlineExceeded):
		return Problem{Status: http.StatusServiceUnavailable, Code: "unavailable", RetryAfter: embedderRetry,
			Message: "unavailable: the request timed out inside memhost; retry shortly"}
	case errors.Is(err, context.Canceled):
		// The caller went away; nobody reads this, but it is not a server fault.
		return Problem{Status: 499, Code: "cancelled", Message: "cancelled: the request was cancelled before it finished"}
	}
	return Problem{Status: http.StatusInternalServerError, Code: "internal", Internal: true,
		Message: "internal error; see the memhost host log"}
}

// RetrySeconds rounds a retry delay up to whole seconds, at least 1.
func RetrySeconds(d time.Duration) int { return max(1, int(math.Ceil(d.Seconds()))) }

// databaseUnavailable reports whether err means Postgres could not be reached or is shutting
// down, rather than a bug or bad data.
func databaseUnavailable(err error) bool {
	var ce *pgconn.ConnectError
	var ne net.Error
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &ce), errors.As(err, &ne), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), pgconn.Timeout(err):
		return true
	case errors.As(err, &pe):
		// Class 08: connection exception; 57P01-57P03: admin shutdown, crash shutdown,
		// cannot connect now (starting up or in recovery).
		return pe.Code[:2] == "08" || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
	}
	// A connection that broke mid-request ends in an unexpected EOF; one that never sent
	// anything is safe to retry by pgconn's own judgement.
	return pgconn.SafeToRetry(err) || errors.Is(err, io.ErrUnexpectedEOF)
}

// NewRef returns a short random reference that ties an internal error's log line to what the
// caller was shown.
func NewRef() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Error makes a Problem usable as a command's error: its message alone, safe to print.
func (p Problem) Error() string { return p.Message }
