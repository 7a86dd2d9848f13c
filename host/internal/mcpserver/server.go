package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memhost/memhost/host/internal/auth"
	"github.com/memhost/memhost/host/internal/memory"
	"github.com/memhost/memhost/host/internal/project"
)

// Options configures a Server.
type Options struct {
	// Limiter bounds writes (memory_store, memory_archive, memory_restore) per token.
	// Nil means no limit.
	Limiter *auth.WriteLimiter
	// Logger receives internal errors and transport logs. Nil discards them.
	Logger *slog.Logger
	// Version is the server version reported to clients (serverInfo.version).
	Version string
}

// Server is memhost's MCP surface over one memory.Service.
type Server struct {
	svc  *memory.Service
	opts Options
	log  *slog.Logger
	http *mcp.Server // principals come from the bearer token of each HTTP request
}

// New builds the MCP server and registers the memory tools.
func New(svc *memory.Service, opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	s := &Server{svc: svc, opts: opts, log: opts.Logger}
	s.http = s.newMCP(callerFromToken)
	return s
}

// instructions is what clients may show the model about the whole server.
const instructions = `memhost is the shared, durable memory of this project, used by every coding agent that works on it.
Search it (memory_search) before starting work that depends on project conventions, past decisions or known pitfalls.
Save (memory_store) one durable fact per call when you learn something a future session would need: a convention, decision, gotcha, error and its fix, preference or reference.
Do not save ephemeral task state, secrets, or things obvious from the code.
Archive (memory_archive) a memory that has become wrong; restore it with memory_restore if that was a mistake.`

// newMCP builds one mcp.Server whose tools learn who is calling through identify.
func (s *Server) newMCP(identify identifyFunc) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "memhost", Title: "memhost project memory", Version: s.opts.Version},
		&mcp.ServerOptions{Instructions: instructions, Logger: s.log})
	t := &tools{svc: s.svc, limiter: s.opts.Limiter, log: s.log, identify: identify, limits: limitReplacer(s.svc.Config())}
	t.register(srv)
	return srv
}

// caller is who is calling a tool: the token's principal, the project to fall back on when
// the call names none (stdio: the process's working directory), and the client's name.
type caller struct {
	principal      auth.Principal
	defaultProject string
	client         string
}

// identifyFunc finds the caller of a tool call. ok is false when the request carries no
// authenticated principal (a wiring bug: the transport must authenticate first).
type identifyFunc func(req *mcp.CallToolRequest) (c caller, ok bool)

// maxCwdBytes bounds the cwd argument (PATH_MAX on Linux).
const maxCwdBytes = 4096

// principalKey is the TokenInfo.Extra key holding the auth.Principal.
const principalKey = "memhost.principal"

// callerFromToken reads the principal the bearer middleware put into the request's TokenInfo.
func callerFromToken(req *mcp.CallToolRequest) (caller, bool) {
	if req.Extra == nil || req.Extra.TokenInfo == nil {
		return caller{}, false
	}
	p, ok := req.Extra.TokenInfo.Extra[principalKey].(auth.Principal)
	if !ok {
		return caller{}, false
	}
	return caller{principal: p, client: clientName(req)}, true
}

// clientName is the MCP client's name from initialize (or, on 2026-07-28, from the
// request's _meta), e.g. "claude-code".
func clientName(req *mcp.CallToolRequest) string {
	if info := req.ClientInfo(); info != nil {
		return info.Name
	}
	return ""
}

// can reports whether the principal holds scope (admin implies every scope).
func (c caller) can(scope auth.Scope) bool { return c.principal.Has(scope) }

// access resolves the project of one call and builds the service's Access.
//
// A token bound to a project always gets that project; a project or cwd argument that
// names another project is an error naming both. Otherwise the project argument (a key)
// wins, then cwd (resolved on the host like the CLI does), then the caller's default.
func (c caller) access(projectArg, cwd string) (memory.Access, error) {
	a := memory.Access{Admin: c.principal.Has(auth.ScopeAdmin), Actor: c.principal.Name}
	projectArg = strings.TrimSpace(projectArg)
	if projectArg != "" {
		if err := project.ValidateKey(projectArg); err != nil {
			return a, &memory.FieldError{Field: "project", Message: strings.TrimPrefix(err.Error(), "project: ")}
		}
	}
	if len(cwd) > maxCwdBytes || !utf8.ValidString(cwd) || strings.ContainsRune(cwd, 0) {
		return a, &memory.FieldError{Field: "cwd", Message: fmt.Sprintf("must be a valid UTF-8 path without NUL, at most %d bytes", maxCwdBytes)}
	}
	cwdKey, cwdErr := "", error(nil)
	if cwd != "" {
		var id project.Identity
		if id, cwdErr = project.Resolve(cwd); cwdErr == nil {
			cwdKey = id.Key
		}
	}
	if bound := c.principal.ProjectKey; bound != "" {
		switch {
		case projectArg != "" && projectArg != bound:
			return a, fmt.Errorf("%w: this token is bound to project %q; the project argument names %q", auth.ErrForbidden, bound, projectArg)
		case cwdKey != "" && cwdKey != bound:
			return a, fmt.Errorf("%w: this token is bound to project %q; cwd %q is project %q", auth.ErrForbidden, bound, cwd, cwdKey)
		}
		// An unresolvable cwd (a path on the client's machine, not the host's) is only a
		// hint next to the binding, so it is ignored.
		a.Project = bound
		return a, nil
	}
	requested := projectArg
	switch {
	case projectArg != "" && cwdKey != "" && cwdKey != projectArg:
		return a, &memory.FieldError{Field: "project", Message: fmt.Sprintf("%q disagrees with cwd %q, which is project %q; pass one of them", projectArg, cwd, cwdKey)}
	case projectArg != "":
	case cwd != "" && cwdErr != nil:
		return a, &memory.FieldError{Field: "cwd", Message: fmt.Sprintf("cannot resolve a project from %q on the memhost host (%v); pass project (the project key) instead", cwd, cwdErr)}
	case cwdKey != "":
		requested = cwdKey
	default:
		requested = c.defaultProject
	}
	if requested == "" {
		return a, &memory.FieldError{Field: "project", Message: "is required: pass project (a project key) or cwd (the working directory), or use a token bound to a project"}
	}
	resolved, err := c.principal.ResolveProject(requested)
	if err != nil {
		return a, err
	}
	a.Project = resolved
	return a, nil
}

// toolError is an error the model should read: it becomes a tool result with IsError set.
type toolError struct{ msg string }

func (e *toolError) Error() string { return e.msg }

func toolErrorf(format string, args ...any) error {
	return &toolError{msg: fmt.Sprintf(format, args...)}
}

func retrySeconds(secs float64) int { return max(1, int(math.Ceil(secs))) }

// reportable turns any error from resolving or serving a call into a message for the model.
// Unexpected errors are logged in full and reported generically, so SQL and internals never
// reach a client.
func (t *tools) reportable(ctx context.Context, tool, projectKey string, err error) error {
	var te *toolError
	var fe *memory.FieldError
	switch {
	case errors.As(err, &te):
		return te
	case errors.As(err, &fe):
		return toolErrorf("invalid argument %s: %s", fe.Field, fe.Message)
	case errors.Is(err, memory.ErrNotFound):
		// The store's wording is internal; memories of other projects are reported the same
		// way as missing ones, so nothing is revealed about them.
		return toolErrorf("not found: no memory with this id in project %q", projectKey)
	case errors.Is(err, memory.ErrForbidden), errors.Is(err, auth.ErrForbidden):
		return toolErrorf("%v", err)
	case errors.Is(err, memory.ErrConflict):
		return toolErrorf("conflict: another live memory already has this text; search for it instead")
	case errors.Is(err, memory.ErrUnavailable):
		t.log.WarnContext(ctx, "mcp tool unavailable", "tool", tool, "err", err)
		return toolErrorf("unavailable: the embedder cannot serve right now; nothing was changed, retry in a few seconds")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return toolErrorf("cancelled: the call was cancelled or timed out before it finished")
	}
	ref := errorRef()
	t.log.ErrorContext(ctx, "mcp tool failed", "tool", tool, "ref", ref, "err", err)
	return toolErrorf("internal error (ref %s); see the memhost host log", ref)
}

func errorRef() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
