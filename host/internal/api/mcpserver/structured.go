package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StructuredOutputExtension is the client extension (capabilities.extensions, MCP 2025-11-25
// and later; any value) with which a client asks for each tool's outputSchema in tools/list and
// structuredContent in its results. Without it a client gets the compact text only: Claude Code
// and Codex hand a model the structured output instead of the text whenever there is one (four
// to five times the bytes, without the framing of stored notes as data), so it goes only to
// programs that read it. REST is unaffected.
const StructuredOutputExtension = "memhost/structured-output"

// StructuredClient is the capabilities a Go program (mcp.ClientOptions.Capabilities) declares
// to receive structured output.
func StructuredClient() *mcp.ClientCapabilities {
	c := &mcp.ClientCapabilities{}
	c.AddExtension(StructuredOutputExtension, nil)
	return c
}

// AsksStructured reports whether capabilities ask for structured output (`memhost mcp` asks
// the host for it when the CLI behind it did).
func AsksStructured(caps *mcp.ClientCapabilities) bool {
	if caps == nil {
		return false
	}
	_, ok := caps.Extensions[StructuredOutputExtension]
	return ok
}

// capable is a request that knows its client's capabilities.
type capable interface {
	ClientCapabilities() *mcp.ClientCapabilities
}

// wantsStructured reports whether the calling client asked for structured output, at
// initialize or (2026-07-28, stateless) in the request's _meta.
func wantsStructured(req capable) bool { return AsksStructured(req.ClientCapabilities()) }

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
