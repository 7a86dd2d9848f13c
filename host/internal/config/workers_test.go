package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestWorkersFromFileEnvAndFlag: [workers.NAME] tables and [workers.chains] come from the
// file, the environment and --set like every other key, with their origins recorded.
func TestWorkersFromFileEnvAndFlag(t *testing.T) {
	t.Parallel()
	path := writeConfig(t, `
[workers.local]
plugin = "openaicompat"
base_url = "http://127.0.0.1:11434/v1"
model = "qwen2.5:7b"
api_key_env = "LOCAL_KEY"
timeout = "90s"
daily_tokens = 50000
[workers.claude]
plugin = "agentcli"
cli = "claude"
[workers.chains]
merge = ["local", "claude"]
`)
	cfg := load(t, LoadOptions{ConfigPath: path,
		Environ: []string{"MEMHOST_WORKERS__LOCAL__MODEL=llama3", "MEMHOST_WORKERS__CHAINS__EXTRACT=claude,local"},
		Flags:   flags(t, "--set", "workers.chains.gatekeeper=claude", "--set", "workers.claude.max_input_bytes=4096")})
	require.Empty(t, cfg.Validate())
	require.Equal(t, Worker{Plugin: "openaicompat", BaseURL: "http://127.0.0.1:11434/v1", Model: "llama3", APIKeyEnv: "LOCAL_KEY",
		Timeout: 90 * time.Second, DailyTokens: 50000}, cfg.Workers.Defined["local"])
	require.Equal(t, Worker{Plugin: "agentcli", CLI: "claude", MaxInputBytes: 4096}, cfg.Workers.Defined["claude"])
	require.Equal(t, map[string][]string{"merge": {"local", "claude"}, "extract": {"claude", "local"}, "gatekeeper": {"claude"}}, cfg.Workers.Chains)
	origins := map[string]string{}
	for _, s := range cfg.Settings() {
		origins[s.Key] = s.Origin
	}
	require.Equal(t, "env MEMHOST_WORKERS__LOCAL__MODEL", origins["workers.local.model"])
	require.Equal(t, "file "+path, origins["workers.local.base_url"])
	require.Equal(t, "flag --set", origins["workers.chains.gatekeeper"])
}

// TestWorkersProblems: config check names each bad worker key and what is allowed.
func TestWorkersProblems(t *testing.T) {
	t.Parallel()
	cfg := load(t, LoadOptions{ConfigPath: writeConfig(t, `
[workers.local]
plugin = "openaicompat"
api_key_env = "sk-live-1234"
timeout = "soon"
colour = "blue"
[workers.cli]
plugin = "agentcli"
cli = "cursor"
[workers.Bad]
plugin = "agentcli"
cli = "codex"
[workers.chains]
merge = ["local", "nope"]
summarise = ["local"]
extract = ["cli", "cli"]
[tasks]
run_tokens = 10
`)})
	require.Equal(t, []Problem{
		{Key: "tasks.run_tokens", Message: "10 is out of range 256..1000000"},
		{Key: "workers.Bad", Message: "worker names are 1-63 lower-case letters, digits, '_' or '-'"},
		{Key: "workers.chains.extract", Message: `names "cli" twice`},
		{Key: "workers.chains.merge", Message: `names "nope", which is not a defined worker (defined: Bad, cli, local)`},
		{Key: "workers.chains.summarise", Message: "unknown task kind (valid: merge, conflicts, session_summary, extract, plan_drift, gatekeeper)"},
		{Key: "workers.cli.cli", Message: `"cursor" is not one of claude, gemini, codex`},
		{Key: "workers.local.api_key_env", Message: "must be the NAME of an environment variable holding the key, not the key"},
		{Key: "workers.local.base_url", Message: "is required for plugin openaicompat (e.g. http://127.0.0.1:11434/v1)"},
		{Key: "workers.local.colour", Message: "unknown key (a worker has plugin, base_url, api_key_env, locality, model, cli, cli_path, timeout, max_input_bytes, daily_tokens, env)"},
		{Key: "workers.local.model", Message: "is required for plugin openaicompat"},
		{Key: "workers.local.timeout", Message: `"soon" is not a valid duration (e.g. 90s)`},
	}, cfg.Validate())
}
