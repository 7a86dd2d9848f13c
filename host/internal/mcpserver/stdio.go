package mcpserver

import (
	"context"
	"errors"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memhost/memhost/host/internal/auth"
)

// ServeStdio serves one MCP client over stdin/stdout until it disconnects or ctx ends, as
// `memhost mcp` does. Every call runs as principal; when the principal is not bound to a
// project and a call names no project or cwd, defaultProject (the key of the process's
// working directory) is used. Nothing but MCP messages is written to stdout: logs go to the
// Options.Logger, which must not write to stdout.
func (s *Server) ServeStdio(ctx context.Context, principal auth.Principal, defaultProject string) error {
	return s.Serve(ctx, &mcp.StdioTransport{}, principal, defaultProject)
}

// Serve is ServeStdio over any transport (e.g. mcp.NewInMemoryTransports in tests).
func (s *Server) Serve(ctx context.Context, t mcp.Transport, principal auth.Principal, defaultProject string) error {
	srv := s.newMCP(func(req *mcp.CallToolRequest) (caller, bool) {
		return caller{principal: principal, defaultProject: defaultProject, client: clientName(req)}, true
	})
	err := srv.Run(ctx, t)
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
