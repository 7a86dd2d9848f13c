package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memhost/memhost/host/internal/wire"
)

// capable is a request that knows its client's capabilities.
type capable interface {
	ClientCapabilities() *mcp.ClientCapabilities
}

// wantsStructured reports whether the calling client asked for structured output, at
// initialize or (2026-07-28, stateless) in the request's _meta.
func wantsStructured(req capable) bool { return wire.AsksStructured(req.ClientCapabilities()) }

// leanToolList leaves each tool's outputSchema out of tools/list for a client that did not ask
// for structured output: a tool that declares one must return structuredContent, and the
// schemas would only cost the model bytes.
func leanToolList(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		list, ok := res.(*mcp.ListToolsResult)
		lr, isList := req.(*mcp.ListToolsRequest)
		if err != nil || !ok || !isList || wantsStructured(lr) {
			return res, err
		}
		lean := *list
		lean.Tools = make([]*mcp.Tool, len(list.Tools))
		for i, t := range list.Tools {
			c := *t
			c.OutputSchema = nil
			lean.Tools[i] = &c
		}
		return &lean, nil
	}
}
