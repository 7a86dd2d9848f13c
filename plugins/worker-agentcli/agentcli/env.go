package agentcli

import (
	"sort"
	"strings"

	"github.com/memhost/memhost/sdk/worker"
)

// WorkerMarker is set to 1 in the environment of every CLI the plugin runs,
// so that memhost's own hooks, should one still fire inside such a run, can
// tell a worker's run from a user's session and do nothing.
const WorkerMarker = worker.RunMarkerEnv

// childEnv is the environment a CLI runs with: the plugin's own (HOME, PATH,
// the CLI's credentials and proxies) without anything of memhost's (no
// MEMHOST_* variable: no token, no configuration, no worker settings; none
// of go-plugin's handshake variables), plus WorkerMarker, no colours, a dumb
// terminal and the CLI's own variables in set, which win.
func childEnv(base []string, set map[string]string) []string {
	vars := map[string]string{}
	for _, kv := range base {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.HasPrefix(k, "MEMHOST_") || strings.HasPrefix(k, "PLUGIN_") {
			continue
		}
		vars[k] = v
	}
	vars[WorkerMarker] = "1"
	vars["NO_COLOR"] = "1"
	vars["TERM"] = "dumb"
	for k, v := range set {
		vars[k] = v
	}
	env := make([]string, 0, len(vars))
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	return env
}
