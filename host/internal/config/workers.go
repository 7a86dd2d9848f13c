package config

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Workers are the LLM workers the host runs tasks through (issue 17 §4): the [workers.NAME]
// tables and the [workers.chains] table. The names are the operator's, so the section is
// decoded by hand (decodeWorkers) like the other user-keyed tables; every key is still a
// dotted key settable from the file, the environment (MEMHOST_WORKERS__LOCAL__MODEL) and
// --set.
type Workers struct {
	// Defined maps a worker's name to its settings.
	Defined map[string]Worker
	// Chains maps a task kind to the workers tried for it, in order. A kind without a chain
	// uses every defined worker in name order; with no worker defined, the agent CLIs found on
	// the host's PATH (claude, gemini, codex).
	Chains map[string][]string
}

// Worker is one [workers.NAME] table: which plugin runs it and what that plugin is told (its
// MEMHOST_WORKER_* environment).
type Worker struct {
	// Plugin is the worker plugin binary's name part: memhost-worker-<plugin> in plugins.dirs.
	Plugin string
	// BaseURL, APIKeyEnv and Locality are for openaicompat: the API root, the NAME of the
	// variable holding the key (the host passes that variable through, never the key in
	// config), and local|remote.
	BaseURL   string
	APIKeyEnv string
	Locality  string
	// Model is the model to ask (required for openaicompat).
	Model string
	// CLI and CLIPath are for agentcli: claude, gemini or codex, and optionally its path.
	CLI     string
	CLIPath string
	// Timeout bounds one call; 0 leaves the plugin's default (120s).
	Timeout time.Duration
	// MaxInputBytes is the largest task the worker takes; 0 leaves the plugin's default.
	MaxInputBytes int
	// DailyTokens is the most tokens the worker may spend in 24 hours; 0 is no limit.
	DailyTokens int
	// Env names host environment variables passed through to the worker's plugin (and, for
	// agentcli, to its CLI): what the CLI's own configuration reads, such as the key a Codex
	// model provider's env_key names. Names only, never values.
	Env []string
}

// workersKey is the section decoded by hand; chainsName is its reserved table.
const (
	workersKey = "workers"
	chainsName = "chains"
)

// TaskKinds are the task kinds a chain may be given (sdk/worker's TaskKind values).
var TaskKinds = []string{"merge", "conflicts", "session_summary", "extract", "plan_drift", "gatekeeper"}

// AgentCLIs are the CLIs the agentcli plugin runs, in the default chain's order.
var AgentCLIs = []string{"claude", "gemini", "codex"}

// workerName is what a worker may be called: it becomes a config key, an environment variable
// part and a metrics label, so no dots, and lower case.
var workerName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)

// workerFields are the keys of a [workers.NAME] table.
var workerFields = []string{"plugin", "base_url", "api_key_env", "locality", "model", "cli", "cli_path", "timeout", "max_input_bytes", "daily_tokens", "env"}

// decodeWorkers reads the workers section (key "workers.NAME.FIELD" -> value). Values of the
// wrong type are problems for Validate, not load failures, so `memhost config check` lists
// them with everything else.
func decodeWorkers(all map[string]any) (Workers, []Problem) {
	w := Workers{Defined: map[string]Worker{}, Chains: map[string][]string{}}
	chains := func(name, field string, v any) bool {
		if name != chainsName {
			return false
		}
		w.Chains[field] = decodeList(v)
		return true
	}
	problems := namedTables(workersKey, "a worker", all, workerFields, chains, func(name, field string, v any) string {
		wk := w.Defined[name]
		defer func() { w.Defined[name] = wk }()
		var err error
		switch field {
		case "plugin":
			wk.Plugin = fmt.Sprint(v)
		case "base_url":
			wk.BaseURL = fmt.Sprint(v)
		case "api_key_env":
			wk.APIKeyEnv = fmt.Sprint(v)
		case "locality":
			wk.Locality = fmt.Sprint(v)
		case "model":
			wk.Model = fmt.Sprint(v)
		case "cli":
			wk.CLI = fmt.Sprint(v)
		case "cli_path":
			wk.CLIPath = fmt.Sprint(v)
		case "timeout":
			wk.Timeout, err = time.ParseDuration(strings.TrimSpace(fmt.Sprint(v)))
			if err != nil {
				return fmt.Sprintf("%q is not a valid duration (e.g. 90s)", fmt.Sprint(v))
			}
		case "max_input_bytes":
			wk.MaxInputBytes, err = decodeInt(v)
		case "daily_tokens":
			wk.DailyTokens, err = decodeInt(v)
		case "env":
			wk.Env = decodeList(v)
		}
		if err != nil {
			return fmt.Sprintf("%q is not a valid whole number", fmt.Sprint(v))
		}
		return ""
	})
	return w, problems
}

// decodeList takes a TOML array, or a comma-separated string from the environment or --set.
func decodeList(v any) []string {
	switch x := v.(type) {
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			out = append(out, strings.TrimSpace(fmt.Sprint(e)))
		}
		return out
	case []string:
		return x
	}
	return splitList(fmt.Sprint(v))
}

func decodeInt(v any) (int, error) {
	switch x := v.(type) {
	case int64:
		return int(x), nil
	case float64:
		if x == float64(int(x)) {
			return int(x), nil
		}
	case string:
		return strconv.Atoi(strings.TrimSpace(x))
	}
	return 0, fmt.Errorf("%v is not a whole number", v)
}

// validateWorkers checks the [workers] section: names, plugins and what each plugin
// requires, and that chains name task kinds and defined workers.
func (v *validator) validateWorkers(w Workers) {
	for _, name := range sortedKeys(w.Defined) {
		wk, key := w.Defined[name], workersKey+"."+name
		if !workerName.MatchString(name) {
			v.add(key, "worker names are 1-63 lower-case letters, digits, '_' or '-'")
		}
		switch wk.Plugin {
		case "openaicompat":
			if wk.BaseURL == "" {
				v.add(key+".base_url", "is required for plugin openaicompat (e.g. http://127.0.0.1:11434/v1)")
			}
			if wk.Model == "" {
				v.add(key+".model", "is required for plugin openaicompat")
			}
		case "agentcli":
			if !slices.Contains(AgentCLIs, wk.CLI) {
				v.add(key+".cli", fmt.Sprintf("%q is not one of %s", wk.CLI, strings.Join(AgentCLIs, ", ")))
			}
		case "":
			v.add(key+".plugin", "is required: the worker plugin's name (memhost-worker-<plugin>), e.g. openaicompat or agentcli")
		default:
			if !workerName.MatchString(wk.Plugin) {
				v.add(key+".plugin", fmt.Sprintf("%q is not a plugin name (memhost-worker-<plugin>)", wk.Plugin))
			}
		}
		v.baseURL(key+".base_url", wk.BaseURL)
		if wk.Locality != "" && wk.Locality != "local" && wk.Locality != "remote" {
			v.add(key+".locality", fmt.Sprintf("%q is not local or remote", wk.Locality))
		}
		v.keyEnv(key+".api_key_env", wk.APIKeyEnv)
		if wk.Timeout != 0 {
			v.duration(key+".timeout", wk.Timeout, time.Second, time.Hour)
		}
		if wk.MaxInputBytes != 0 {
			v.intRange(key+".max_input_bytes", wk.MaxInputBytes, 1024, 64<<20)
		}
		v.intRange(key+".daily_tokens", wk.DailyTokens, 0, 1_000_000_000)
		v.workerEnv(key+".env", wk.Env)
	}
	for _, kind := range sortedKeys(w.Chains) {
		key := workersKey + "." + chainsName + "." + kind
		if !slices.Contains(TaskKinds, kind) {
			v.add(key, fmt.Sprintf("unknown task kind (valid: %s)", strings.Join(TaskKinds, ", ")))
			continue
		}
		if msg := ChainProblem(w.Defined, w.Chains[kind]); msg != "" {
			v.add(key, msg)
		}
	}
}

// ChainProblem says what is wrong with chain given the defined workers, or "". It is the one
// rule for a chain, whether it comes from the config or is changed at runtime.
func ChainProblem(defined map[string]Worker, chain []string) string {
	if len(chain) == 0 {
		return "must name at least one worker"
	}
	seen := map[string]bool{}
	for _, name := range chain {
		if _, ok := defined[name]; !ok {
			if len(defined) == 0 {
				return fmt.Sprintf("names %q, but no [workers.NAME] table is defined", name)
			}
			return fmt.Sprintf("names %q, which is not a defined worker (defined: %s)", name, strings.Join(sortedKeys(defined), ", "))
		}
		if seen[name] {
			return fmt.Sprintf("names %q twice", name)
		}
		seen[name] = true
	}
	return ""
}

// envName is an environment variable's name.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// workerEnv checks a worker's env list: names of variables, none of memhost's own. A value is
// never quoted back: an entry that is not a name may be a pasted key.
func (v *validator) workerEnv(key string, names []string) {
	for i, name := range names {
		switch {
		case !envName.MatchString(name):
			v.add(key, fmt.Sprintf("entry %d is not a variable NAME (letters, digits and '_'): list the names of variables to pass, never their values", i+1))
		case strings.HasPrefix(name, "MEMHOST_"):
			v.add(key, fmt.Sprintf("%s: memhost's own variables never reach a worker", name))
		}
	}
}
