package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// TestMemoryStoreKeepsPathsBidiAndDullKeysApart: through MCP memory_store against the real
// host (issue 25): a path is a specific, so "./dist/app" does not fold into "/dist/app" while
// the same sentence again does; a bidi override is refused naming the field; and a key of a
// provider's exact shape is redacted however dull (AWS's documentation key id, a sequential
// GitHub token).
func TestMemoryStoreKeepsPathsBidiAndDullKeysApart(t *testing.T) {
	t.Parallel()
	h := newHost(t)
	h.start()
	cs := connect(t, h, h.token("--name", "e2e-rules", "--project", "github.com/acme/rules"))

	abs := callTool[stored](t, cs, "memory_store", map[string]any{"text": "Build output goes to /dist/app"})
	rel := callTool[stored](t, cs, "memory_store", map[string]any{"text": "Build output goes to ./dist/app"})
	require.False(t, rel.Folded, "./dist/app is not /dist/app")
	require.NotEqual(t, abs.ID, rel.ID)
	again := callTool[stored](t, cs, "memory_store", map[string]any{"text": "build output goes to /dist/app."})
	require.True(t, again.Folded, "the same path folds")
	require.Equal(t, abs.ID, again.ID)

	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "memory_store",
		Arguments: map[string]any{"text": "access is \u202e)lanretni( only"}})
	require.NoError(t, err)
	require.True(t, res.IsError)
	msg := fmt.Sprint(res.Content[0].(*mcp.TextContent).Text)
	require.Contains(t, msg, "text")
	require.Contains(t, msg, "bidi control characters")
	require.Contains(t, msg, "U+202E")

	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	for _, key := range []string{"AKIA" + "IOSFODNN7EXAMPLE", "ghp_" + alnum[:36]} {
		out := callTool[map[string]any](t, cs, "memory_store", map[string]any{"text": "CI signs in with " + key + " for the artifacts"})
		raw, err := json.Marshal(out)
		require.NoError(t, err)
		require.NotContains(t, string(raw), key)
		require.True(t, strings.Contains(string(raw), "[REDACTED:"), string(raw))
	}
}
