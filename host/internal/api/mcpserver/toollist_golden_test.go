package mcpserver_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/tools_list.golden.json from the served tools")

// TestToolListIsTheGolden pins what every client reads before its first call: each tool's
// name, title, description, annotations and input and output schemas, byte for byte, and the
// server instructions. A change to a tool's declaration shows here as a diff of the golden
// file (go test -run TestToolListIsTheGolden -update rewrites it).
func TestToolListIsTheGolden(t *testing.T) {
	t.Parallel()
	b, _ := setupBrain(t)
	cs := b.connect(t, b.token(t, "agent", writeScopes, projectA), "claude-code", "")
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	got, err := json.MarshalIndent(map[string]any{"instructions": cs.InitializeResult().Instructions, "tools": res.Tools}, "", "  ")
	require.NoError(t, err)
	path := filepath.Join("testdata", "tools_list.golden.json")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, append(got, '\n'), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got)+"\n")
}
