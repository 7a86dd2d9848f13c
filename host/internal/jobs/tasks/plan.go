package tasks

import (
	"fmt"
	"os"
	"slices"
	"strconv"

	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/sdk/plugin"
)

// cliLogins are the variables each agent CLI finds its login and its model endpoint in,
// passed through to the agentcli worker running that CLI when the host has them, and to no
// other worker. (A worker's Claude Code reads no user settings, so an endpoint set only there
// does not reach it; one set in the environment does.)
var cliLogins = map[string][]string{
	"claude": {"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "CLAUDE_CONFIG_DIR"},
	"gemini": {"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL", "GEMINI_CLI_HOME"},
	"codex":  {"OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_HOME"},
}

// defined returns the configured workers, or with none configured the default ones: an
// agentcli worker for each agent CLI on the host's PATH, named after the CLI.
func defined(cfg config.Workers, lookPath func(string) (string, error)) map[string]config.Worker {
	if len(cfg.Defined) > 0 {
		return cfg.Defined
	}
	out := map[string]config.Worker{}
	for _, cli := range config.AgentCLIs {
		if path, err := lookPath(cli); err == nil {
			out[cli] = config.Worker{Plugin: "agentcli", CLI: cli, CLIPath: path}
		}
	}
	return out
}

// defaultChain is a kind's chain when the config gives it none: every worker, the agent CLIs
// in their order of preference first, then the others by name.
func defaultChain(ws map[string]config.Worker) []string {
	var chain []string
	for _, cli := range config.AgentCLIs {
		if w, ok := ws[cli]; ok && w.Plugin == "agentcli" {
			chain = append(chain, cli)
		}
	}
	for _, name := range sortedNames(ws) {
		if !slices.Contains(chain, name) {
			chain = append(chain, name)
		}
	}
	return chain
}

// candidates pairs each worker with its plugin binary among those discovered. A worker whose
// binary is missing is returned in missing with the reason.
func candidates(ws map[string]config.Worker, found []plugins.Candidate, environ func(string) (string, bool)) (cands []plugins.Candidate, missing map[string]string) {
	missing = map[string]string{}
	for _, name := range sortedNames(ws) {
		w := ws[name]
		c, ok := plugins.Instance(found, plugin.KindWorker, w.Plugin, name, workerEnv(name, w, environ))
		if !ok {
			missing[name] = fmt.Sprintf("plugin memhost-worker-%s is not in plugins.dirs", w.Plugin)
			continue
		}
		cands = append(cands, c)
	}
	return cands, missing
}

// passed are the host variables worker w is given when the host has them: its CLI's login
// variables (agentcli), the one holding its API key, and those its env table names.
func passed(w config.Worker) []string {
	var pass []string
	if w.Plugin == "agentcli" {
		pass = slices.Clone(cliLogins[w.CLI])
	}
	if w.APIKeyEnv != "" {
		pass = append(pass, w.APIKeyEnv)
	}
	return append(pass, w.Env...)
}

// Passed lists, sorted, the host variables the workers of cfg are given when the host has
// them (with no worker configured, those of the agent CLIs lookPath finds): what a service
// manager must hand the host for its workers to work as they do from a login shell.
func Passed(cfg config.Workers, lookPath func(string) (string, error)) []string {
	var names []string
	for _, w := range defined(cfg, lookPath) {
		names = append(names, passed(w)...)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// workerEnv is what worker name is told: its settings (the MEMHOST_WORKER_* contract of the
// worker plugins, each from its key in [workers.NAME]) and the host variables passed to it.
func workerEnv(name string, w config.Worker, environ func(string) (string, bool)) plugins.Configured {
	var timeout, maxInput string
	if w.Timeout > 0 {
		timeout = w.Timeout.String()
	}
	if w.MaxInputBytes > 0 {
		maxInput = strconv.Itoa(w.MaxInputBytes)
	}
	key := func(field string) string { return "workers." + name + "." + field }
	return plugins.Settings([]plugins.Setting{
		{Var: "MEMHOST_WORKER_NAME", Key: "[workers." + name + "]", Value: name},
		{Var: "MEMHOST_WORKER_MODEL", Key: key("model"), Value: w.Model},
		{Var: "MEMHOST_WORKER_TIMEOUT", Key: key("timeout"), Value: timeout},
		{Var: "MEMHOST_WORKER_MAX_INPUT_BYTES", Key: key("max_input_bytes"), Value: maxInput},
		{Var: "MEMHOST_WORKER_BASE_URL", Key: key("base_url"), Value: w.BaseURL},
		{Var: "MEMHOST_WORKER_API_KEY_ENV", Key: key("api_key_env"), Value: w.APIKeyEnv},
		{Var: "MEMHOST_WORKER_LOCALITY", Key: key("locality"), Value: w.Locality},
		{Var: "MEMHOST_WORKER_CLI", Key: key("cli"), Value: w.CLI},
		{Var: "MEMHOST_WORKER_CLI_PATH", Key: key("cli_path"), Value: w.CLIPath},
	}, passed(w), environ)
}

// hostEnviron looks a variable up in the host's environment.
func hostEnviron(k string) (string, bool) { return os.LookupEnv(k) }

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}
