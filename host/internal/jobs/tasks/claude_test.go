package tasks_test

import (
	"path/filepath"
	"testing"

	"github.com/memhost/memhost/host/internal/testkit/testplugins"
)

// fakeClaude writes an executable `claude` into a new folder and returns the folder. Like
// `claude -p --output-format=json` it reads its stdin to the end and prints one result object
// with the structured output; it also saves its environment in $dir/env.
func fakeClaude(t *testing.T, structured string) string {
	t.Helper()
	dir := t.TempDir()
	script := `#!/bin/sh
cat > /dev/null
env > "` + dir + `/env"
cat <<'JSON'
{"type":"result","subtype":"success","is_error":false,"result":"","structured_output":` + structured + `,"usage":{"input_tokens":40,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":12},"modelUsage":{"claude-fake-1":{}}}
JSON
`
	testplugins.WriteScript(t, filepath.Join(dir, "claude"), script)
	return dir
}
