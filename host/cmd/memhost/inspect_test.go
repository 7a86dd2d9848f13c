package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
)

// TestPluginsTableKeepsOneLinePerPlugin: a plugin that fails to start carries go-plugin's
// multi-line diagnosis; the table still has one line per plugin.
func TestPluginsTableKeepsOneLinePerPlugin(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testplugins.Install(t, dir, "memhost-embedder-bm25", testplugins.BM25(t))
	testplugins.WriteScript(t, filepath.Join(dir, "memhost-embedder-bogus"), "#!/bin/sh\necho 'not a handshake'\n")

	out, err := run(t, "plugins", "--config", writeConfig(t, dir, ""))
	require.NoError(t, err, out)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 7, "a source line, the header, one line per plugin, the cut error whole, and the embedder choice with its reason:\n%s", out)
	require.Contains(t, lines[0], "probed locally")
	require.Regexp(t, `^embedder\s+bm25-v1-384\s+\S+\s+ready\s+\d+\s+0\s+`, lines[2])
	require.Regexp(t, `^embedder\s+bogus\s+-\s+failed\s+-\s+0\s+\S+\s+start: launch: Unrecognized remote plugin message`, lines[3])
	require.LessOrEqual(t, len(lines[3]), 250)
	require.Regexp(t, `^embedder bogus: start: launch: Unrecognized remote plugin message: not a handshake This usually means`, lines[4],
		"the whole error, which the table cut, on its own line")
	require.Regexp(t, `^embedder:\s+bm25-v1-384 \(configured: auto\)$`, lines[5])
	require.Contains(t, lines[6], "BM25: no embedding endpoint configured — semantic memory is off")
}

func TestPrintPluginsFlattensWhatPluginsChose(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	printPlugins(&out, []plugins.Status{{Kind: "embedder", Name: "evil\nname", Version: "1\t2", State: plugins.StateUnhealthy,
		LastError: "Embed: line one\nline two\n\n  Path: /somewhere"}})
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 2, out.String())
	require.Contains(t, lines[1], "evil name")
	require.Contains(t, lines[1], "Embed: line one line two Path: /somewhere")
}
