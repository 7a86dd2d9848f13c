package mcpserver

import (
	"context"
	"errors"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memhost/memhost/host/internal/auth"
)

// Serve serves one MCP client in process over any transport (e.g. mcp.NewInMemoryTransports)
// until it disconnects or ctx ends. Every call runs as principal; when the principal is not
// bound to a project and a call names no project or cwd, defaultProject is used. `memhost mcp`
// does not use it: it forwards to the running host (package hostclient).
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
