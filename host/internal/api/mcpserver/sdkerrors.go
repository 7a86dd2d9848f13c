package mcpserver

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memhost/memhost/host/internal/api/access"
)

// maxBodyBytes bounds an MCP request body (the SDK's default, set explicitly so the refusal
// can name it).
const maxBodyBytes = mcp.DefaultMaxRequestBodyBytes

// maxHeldError bounds how much of an SDK error text is held to be rewritten.
const maxHeldError = 4096

// jsonErrors gives the MCP SDK's own refusals (written with http.Error as plain text: a
// session opened by another token, an oversized body, an unknown session) the error shape of
// every other HTTP answer, so a client parses one format whoever refused it.
func jsonErrors(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rw := &errorRewriter{ResponseWriter: w}
		next.ServeHTTP(rw, r)
		if rw.status != 0 {
			p := sdkProblem(rw.status, strings.TrimSpace(rw.held.String()))
			if p.Internal {
				p.Ref = access.NewRef()
				log.ErrorContext(r.Context(), "mcp transport failed", "ref", p.Ref, "status", rw.status, "err", rw.held.String())
			}
			w.Header().Del("X-Content-Type-Options")
			p.WriteHTTP(w)
		}
	})
}

// sdkProblem is the Problem of an SDK refusal with status and text.
func sdkProblem(status int, text string) access.Problem {
	switch {
	case status == http.StatusForbidden && text == "session user mismatch":
		return access.Problem{Status: status, Code: "forbidden",
			Message: "forbidden: this MCP session was opened with another token; start a new session (initialize) with this one"}
	case status == http.StatusRequestEntityTooLarge:
		return access.Problem{Status: status, Code: "invalid_argument", Field: "body",
			Message: fmt.Sprintf("body: is larger than the limit of %d bytes", maxBodyBytes)}
	case status == http.StatusUnauthorized:
		return access.Problem{Status: status, Code: "unauthenticated", Message: "unauthenticated: " + text}
	case status == http.StatusForbidden:
		return access.Problem{Status: status, Code: "forbidden", Message: "forbidden: " + text}
	case status == http.StatusNotFound:
		return access.Problem{Status: status, Code: "not_found", Message: "not found: " + text + "; start a new session (initialize)"}
	case status < http.StatusInternalServerError:
		return access.Problem{Status: status, Code: "invalid_argument", Message: "invalid request: " + text}
	}
	return access.Problem{Status: status, Code: "internal", Internal: true, Message: "internal error; see the memhost host log"}
}

// errorRewriter holds back a plain-text error response so jsonErrors can rewrite it; any other
// response passes through untouched (and unbuffered: streams are flushed as they are written).
type errorRewriter struct {
	http.ResponseWriter
	status int // an error response being held back
	held   bytes.Buffer
}

func (w *errorRewriter) WriteHeader(code int) {
	if code >= http.StatusBadRequest && strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		w.status = code
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *errorRewriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		return w.ResponseWriter.Write(b)
	}
	if room := maxHeldError - w.held.Len(); room > 0 {
		w.held.Write(b[:min(len(b), room)])
	}
	return len(b), nil
}

// Flush passes a stream's flushes on.
func (w *errorRewriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok && w.status == 0 {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *errorRewriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
