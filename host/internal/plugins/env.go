package plugins

import (
	"os"
	"strings"
)

// PluginEnvPrefix marks host environment variables passed through to plugins, for settings an
// operator wants a plugin to see (MEMHOST_PLUGIN_OPENAI_KEY, say).
const PluginEnvPrefix = "MEMHOST_PLUGIN_"

// inheritedEnv are the variables a plugin process needs to run like any program: finding
// binaries and temp space, locale and time zone, TLS roots and proxies for plugins that call out.
var inheritedEnv = map[string]bool{
	"PATH": true, "HOME": true, "TMPDIR": true, "TZ": true, "LANG": true, "LC_ALL": true, "LC_CTYPE": true,
	"SSL_CERT_FILE": true, "SSL_CERT_DIR": true,
	"HTTP_PROXY": true, "HTTPS_PROXY": true, "NO_PROXY": true, "http_proxy": true, "https_proxy": true, "no_proxy": true,
}

// pluginEnv is the environment a plugin starts with. Plugins are third-party code: they do not
// get the host's environment, which holds the database URL and other secrets, only the
// variables above and those starting with PluginEnvPrefix. go-plugin adds its handshake
// variables itself.
func pluginEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if inheritedEnv[k] || strings.HasPrefix(k, PluginEnvPrefix) {
			env = append(env, kv)
		}
	}
	return env
}
