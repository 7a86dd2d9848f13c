package mcpserver

import (
	"context"
	"errors"
	"io"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memhost/memhost/host/internal/auth"
)

// ServeStdio serves one MCP client over stdin/stdout until it disconnects or ctx ends, as
// `memhost mcp` does. Every call runs as principal; when the principal is not bound to a
// project and a call names no project or cwd, defaultProject (the key of the process's
// working directory) is used. Nothing but MCP messages is written to stdout: logs go to the
// Options.Logger, which must not write to stdout.
//
// Every request read before end of input is answered before ServeStdio returns.
func (s *Server) ServeStdio(ctx context.Context, principal auth.Principal, defaultProject string) error {
	return s.ServeStream(ctx, os.Stdin, os.Stdout, principal, defaultProject)
}

// ServeStream is ServeStdio over any reader and writer.
func (s *Server) ServeStream(ctx context.Context, in io.Reader, out io.Writer, principal auth.Principal, defaultProject string) error {
	d := newDrainingIO(ctx, in, out)
	return s.Serve(ctx, &mcp.IOTransport{Reader: d, Writer: d}, principal, defaultProject)
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
