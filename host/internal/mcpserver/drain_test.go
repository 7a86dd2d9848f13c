package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/testlog"
)

// TestStdioAnswersEveryRequestReadBeforeEOF pipes a whole session into the stdio server and
// closes input at once, as `printf ... | memhost mcp` does: every request gets its answer.
func TestStdioAnswersEveryRequestReadBeforeEOF(t *testing.T) {
	t.Parallel()
	b := setup(t)
	p := b.principal(t, "piped", writeScopes, "")
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	}
	for i := range 6 {
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"memory_store","arguments":{"text":"Piped fact number %d is about service %c."}}}`, 3+i, i, 'A'+i))
	}
	lines = append(lines, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"piped fact"}}}`)
	out := &testlog.Buffer{}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, b.server.ServeStream(ctx, strings.NewReader(strings.Join(lines, "\n")+"\n"), out, p, projectA))

	answered := map[int]bool{}
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), sc.Text())
		if m.ID != nil {
			require.Nil(t, m.Error, sc.Text())
			answered[*m.ID] = true
		}
	}
	for id := 1; id <= 9; id++ {
		require.True(t, answered[id], "request %d was read before end of input and must be answered; got %v", id, answered)
	}
	require.Equal(t, 6, b.countAll(t, projectA))
}
