package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/testkit/testlog"
)

// TestStdioMCPLogsOneInfoLinePerSession: a CLI's stdio server writes its log to the CLI's
// stderr, which some CLIs show the user; a whole session (handshake, a tool call, the end) logs
// at most one INFO line, the one saying which project and host it serves.
func TestStdioMCPLogsOneInfoLinePerSession(t *testing.T) {
	t.Parallel()
	h := newHost(t)
	h.start()
	cmd := h.mcpCommand(repo(t, "Quiet"), t.TempDir())
	stderr := &testlog.Buffer{}
	cmd.Stderr = stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "quiet-agent", Version: "1.0"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "memory_search", Arguments: map[string]any{"query": "anything"}})
	require.NoError(t, err)
	require.NoError(t, cs.Close())
	var info []string
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, "level=INFO") {
			info = append(info, line)
		}
	}
	require.LessOrEqual(t, len(info), 1, "INFO lines:\n%s", strings.Join(info, "\n"))
	require.NotContains(t, stderr.String(), "mh_", "no token in the log")
}
