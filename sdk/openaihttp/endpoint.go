package openaihttp

import (
	"fmt"
	"strings"
	"time"
)

// EndpointVars names the environment variables of a plugin's endpoint settings, e.g.
// MEMHOST_WORKER_NAME, MEMHOST_WORKER_MODEL, MEMHOST_WORKER_BASE_URL and
// MEMHOST_WORKER_API_KEY_ENV.
type EndpointVars struct {
	Name, Model, BaseURL, APIKeyEnv string
}

// Endpoint is the part of its settings every plugin that calls an OpenAI-compatible API reads
// the same way: its name, the model it asks, the API root and the key.
type Endpoint struct {
	Name    string
	Model   string
	BaseURL string
	// APIKey is sent as a bearer token when set; it does not print.
	APIKey Secret
	// APIKeyEnv names the variable APIKey came from.
	APIKeyEnv string
}

// EndpointFromEnv reads an endpoint from getenv (os.Getenv in the plugin), each value trimmed:
// its name, defaultName when unset; the API root and the model, both required (model says in
// the error what the model is for, e.g. "the embedding model to ask"); and the key from the
// variable vars.APIKeyEnv names (KeyFromEnv). On an error it returns what it read so far. Its
// errors name the variable at fault and never quote the key.
func EndpointFromEnv(getenv func(string) string, vars EndpointVars, defaultName, model string) (Endpoint, error) {
	e := Endpoint{
		Name:      defaultName,
		Model:     strings.TrimSpace(getenv(vars.Model)),
		BaseURL:   strings.TrimSpace(getenv(vars.BaseURL)),
		APIKeyEnv: strings.TrimSpace(getenv(vars.APIKeyEnv)),
	}
	if s := strings.TrimSpace(getenv(vars.Name)); s != "" {
		e.Name = s
	}
	if e.BaseURL == "" {
		return e, fmt.Errorf("%s is not set: the runtime's API root, e.g. http://127.0.0.1:11434/v1", vars.BaseURL)
	}
	if e.Model == "" {
		return e, fmt.Errorf("%s is not set: %s", vars.Model, model)
	}
	var err error
	e.APIKey, err = KeyFromEnv(getenv, vars.APIKeyEnv, e.APIKeyEnv)
	return e, err
}

// DurationFromEnv reads the positive Go duration the variable env of getenv holds, def when it
// is unset or empty. Its error names env.
func DurationFromEnv(getenv func(string) string, env string, def time.Duration) (time.Duration, error) {
	s := strings.TrimSpace(getenv(env))
	if s == "" {
		return def, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return def, fmt.Errorf("%s %q: must be a positive Go duration such as %s", env, s, def)
	}
	return d, nil
}
