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

// TestAKeyPastedIntoAPIKeyEnvIsNeverEchoed: a key pasted where the NAME of its variable
// belongs (api_key_env of a worker or an embedder) is a valid variable name, so only the
// secret detector tells it apart: config check refuses it naming the key, and neither its
// problem list, its settings table nor a refused boot's error quotes the value (config check
// printed it in its table; boot accepted it and the plugin logged "names ghp_... which is not
// set" at every start).
func TestAKeyPastedIntoAPIKeyEnvIsNeverEchoed(t *testing.T) {
	t.Parallel()
	pasted := "ghp_" + "Zq8XvN2LmP4rT6yW1bC3dF5gH7jK9sA0eUiO" // built at runtime: no key in the source
	aws := "AKIA" + "Q3EGRJ7XHZK5V2MN"
	for table, extra := range map[string]string{
		"workers.remote.api_key_env":  "[workers.remote]\nplugin = \"openaicompat\"\nbase_url = \"https://api.example.com/v1\"\nmodel = \"m\"\napi_key_env = \"" + pasted + "\"\n",
		"embedders.cloud.api_key_env": "[embedders.cloud]\nplugin = \"openaicompat\"\nbase_url = \"https://api.example.com/v1\"\nmodel = \"m\"\napi_key_env = \"" + aws + "\"\n",
	} {
		path := writeConfig(t, t.TempDir(), extra)
		out, err := run(t, "config", "check", "--no-plugins", "--config", path)
		require.Error(t, err, out)
		require.Contains(t, out, table+": holds what looks like a key, not the NAME of an environment variable", out)
		require.Regexp(t, regexpQuote(table)+`\s+\[REDACTED:`, out, "the settings table shows the value redacted")
		for _, key := range []string{pasted, aws} {
			require.NotContains(t, out, key)
		}

		for _, cmd := range []string{"serve", "plugins"} { // the commands that start the plugins it names
			out, err = run(t, cmd, "--config", path)
			require.Error(t, err, "%s does not start with it", cmd)
			require.Contains(t, err.Error(), table+": holds what looks like a key", cmd)
			for _, key := range []string{pasted, aws} {
				require.NotContains(t, err.Error()+out, key, cmd)
			}
		}
	}

	out, err := run(t, "config", "check", "--no-plugins", "--config", writeConfig(t, t.TempDir(),
		"[workers.remote]\nplugin = \"openaicompat\"\nbase_url = \"https://api.example.com/v1\"\nmodel = \"m\"\napi_key_env = \"OPENAI_API_KEY\"\n"))
	require.NoError(t, err, "a variable's name is what belongs there: %s", out)
	require.Regexp(t, `workers\.remote\.api_key_env\s+OPENAI_API_KEY\s+file `, out)
}

// TestConfigCheckRefusesABaseURLThePluginWouldRefuse: a worker's base_url gets the embedders'
// check, the plugins' own (openaihttp.ParseBaseURL): file:// and gopher:// passed config check
// for workers, and an empty port passed for both.
func TestConfigCheckRefusesABaseURLThePluginWouldRefuse(t *testing.T) {
	t.Parallel()
	for base, want := range map[string]string{
		"file:///etc/passwd":             `scheme "file": must be http or https`,
		"gopher://127.0.0.1:70/_payload": `scheme "gopher": must be http or https`,
		"http://127.0.0.1:/v1":           "has an empty port",
		"http://127.0.0.1:99999/v1":      "port 99999: must be 1..65535",
	} {
		for _, table := range []string{"workers.w", "embedders.e"} {
			extra := fmt.Sprintf("[%s]\nplugin = \"openaicompat\"\nbase_url = %q\nmodel = \"m\"\n", table, base)
			out, err := run(t, "config", "check", "--no-plugins", "--config", writeConfig(t, t.TempDir(), extra))
			require.Error(t, err, "%s %s: %s", table, base, out)
			require.Contains(t, out, table+".base_url: "+want, base)
		}
	}
	for _, base := range []string{"http://127.0.0.1:11434/v1", "https://api.example.com/v1", "http://localhost/v1"} {
		extra := fmt.Sprintf("[workers.w]\nplugin = \"openaicompat\"\nbase_url = %q\nmodel = \"m\"\n", base)
		out, err := run(t, "config", "check", "--no-plugins", "--config", writeConfig(t, t.TempDir(), extra))
		require.NoError(t, err, "%s: %s", base, out)
	}
}
