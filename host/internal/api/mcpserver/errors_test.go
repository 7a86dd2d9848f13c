package mcpserver_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/mcpserver"
	"github.com/memhost/memhost/host/internal/core/memory"
)

// TestInternalErrorsDoNotLeak breaks the memories table under a live server (tokens still
// authenticate): the model gets a generic message with a reference, the host log gets the
// cause.
func TestInternalErrorsDoNotLeak(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cs := b.connect(t, b.token(t, "agent", writeScopes, projectA), "claude-code", "")
	stored := ok[memory.StoreResult](t, cs, mcpserver.ToolStore, map[string]any{"text": "Cache keys include the schema version."})

	_, err := b.pool.Exec(context.Background(), "ALTER TABLE memories RENAME TO memories_gone")
	require.NoError(t, err)
	msg := toolErr(t, cs, mcpserver.ToolGet, map[string]any{"id": stored.ID.String()})
	require.Regexp(t, `^internal error \(ref [0-9a-f]{8}\); see the memhost host log$`, msg)
	require.Contains(t, b.logs.String(), "mcp tool failed")
	require.Contains(t, b.logs.String(), `relation \"memories\" does not exist`)
}
