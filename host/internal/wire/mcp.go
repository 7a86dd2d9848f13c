package wire

import "github.com/modelcontextprotocol/go-sdk/mcp"

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
