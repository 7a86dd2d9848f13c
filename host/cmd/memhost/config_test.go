package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/testkit/testplugins"
)

// run runs the memhost command line with args and returns what it printed.
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	root := rootCmd()
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(&out)
	err := root.ExecuteContext(t.Context())
	return out.String(), err
}

// writeConfig writes a config file naming a database (never contacted) and dir as the
// plugin folder, plus extra TOML.
func writeConfig(t *testing.T, dir, extra string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "memhost.toml")
	body := fmt.Sprintf("[server]\nlisten = \"127.0.0.1:1\"\n[database]\nurl = \"postgres://memhost@db.invalid/memhost\"\n[plugins]\ndirs = [%q]\n%s", dir, extra)
	require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
	return path
}

// TestConfigCheckFindsTheEmbedder: config check fails for an embedder.active no plugin
// answers to (boot would fail), and accepts every name an operator may use.
func TestConfigCheckFindsTheEmbedder(t *testing.T) {
	t.Parallel()
	plugins := testplugins.Dir(t)

	out, err := run(t, "config", "check", "--config", writeConfig(t, plugins, "[embedder]\nactive = \"bm25-v2\"\n"))
	require.Error(t, err)
	require.Contains(t, out, `embedder.active: embedder.active is "bm25-v2" but no embedder plugin answers to that name (running: bm25-v1-384 from memhost-embedder-bm25)`)

	for _, name := range []string{"bm25-v1-384", "bm25", "memhost-embedder-bm25"} {
		path := writeConfig(t, plugins, fmt.Sprintf("[embedder]\nactive = %q\n", name))
		out, err := run(t, "config", "check", "--config", path)
		require.NoError(t, err, out)
		require.Contains(t, out, "config ok: "+path)
		require.Contains(t, out, "embedder: bm25-v1-384 from memhost-embedder-bm25")
		require.Regexp(t, `embedder\.active\s+`+name+`\s+file `+regexpQuote(path), out, "where the value came from")
	}

	out, err = run(t, "config", "check", "--config", writeConfig(t, t.TempDir(), ""))
	require.Error(t, err)
	require.Contains(t, out, "plugins.dirs: no embedder plugin found")

	out, err = run(t, "config", "check", "--no-plugins", "--config", writeConfig(t, t.TempDir(), ""))
	require.NoError(t, err, out)
}

func TestConfigCheckSaysWhereValuesCameFrom(t *testing.T) {
	t.Setenv("MEMHOST_EMBEDDER__FOLD_THRESHOLDS", "bm25-v1-384=0.8")
	path := writeConfig(t, t.TempDir(), "")
	out, err := run(t, "config", "check", "--no-plugins", "--config", path, "--set", "memory.ann_ef_search=400", "--log.level=debug")
	require.NoError(t, err, out)
	require.Regexp(t, `embedder\.fold_thresholds\.bm25-v1-384\s+0\.8\s+env MEMHOST_EMBEDDER__FOLD_THRESHOLDS`, out)
	require.Regexp(t, `memory\.ann_ef_search\s+400\s+flag --set`, out)
	require.Regexp(t, `log\.level\s+debug\s+flag --log\.level`, out)
	require.Regexp(t, `database\.url\s+postgres://memhost@db\.invalid/memhost\s+file `, out)
	require.NotContains(t, out, "memory.candidate_pool", "defaults only with --all")

	out, err = run(t, "config", "check", "--no-plugins", "--all", "--config", path)
	require.NoError(t, err, out)
	require.Regexp(t, `memory\.candidate_pool\s+100\s+default`, out)
}

func regexpQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// TestNoConfigSaysHowToPointAtOne: outside a checkout with MEMHOST_CONFIG unset no file is
// read, and the error names that fix rather than a database.url key in a file never read.
func TestNoConfigSaysHowToPointAtOne(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, env := range []string{"MEMHOST_CONFIG", "MEMHOST_DATABASE_URL", "MEMHOST_TOKEN"} {
		t.Setenv(env, "")
	}
	for _, args := range [][]string{{"mcp"}, {"project", "goal", "show", "--project", "k"}} {
		_, err := run(t, args...)
		require.Error(t, err, args)
		require.Contains(t, err.Error(), "no config file was read", args)
		require.Contains(t, err.Error(), "set MEMHOST_CONFIG to the host's memhost.toml", args)
	}
}
