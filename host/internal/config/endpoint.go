package config

import "github.com/memhost/memhost/sdk/openaihttp"

// The settings of a model endpoint that [workers.NAME] and [embedders.NAME] tables share.

// baseURL checks an endpoint's base_url with the plugins' own check (openaihttp.ParseBaseURL),
// so what config check accepts is what the plugin will take: http or https, a host, a port of
// 1..65535 when there is one, no credentials.
func (v *validator) baseURL(key, s string) {
	if s == "" {
		return
	}
	if _, err := openaihttp.ParseBaseURL(s, "api_key_env"); err != nil {
		v.add(key, err.Error())
	}
}

// keyEnv checks an api_key_env: the NAME of the variable holding the key. A key pasted there
// instead is refused, with a problem that does not quote it, so the host does not start (or
// reload) with it and no plugin is told it; `memhost config check` redacts its settings table.
func (v *validator) keyEnv(key, name string) {
	switch {
	case name == "":
	case !envName.MatchString(name):
		v.add(key, "must be the NAME of an environment variable holding the key, not the key")
	case v.isSecret != nil && v.isSecret(name):
		v.add(key, "holds what looks like a key, not the NAME of an environment variable: remove it from the configuration, "+
			"revoke it if it was shared, put the key in a variable and name that variable here (e.g. OPENAI_API_KEY)")
	}
}
