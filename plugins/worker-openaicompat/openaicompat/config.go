package openaicompat

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/memhost/memhost/sdk/openaihttp"
	"github.com/memhost/memhost/sdk/worker"
)

// The environment variables the plugin reads, and nothing else.
const (
	EnvName          = "MEMHOST_WORKER_NAME"
	EnvModel         = "MEMHOST_WORKER_MODEL"
	EnvTimeout       = "MEMHOST_WORKER_TIMEOUT"
	EnvMaxInputBytes = "MEMHOST_WORKER_MAX_INPUT_BYTES"
	EnvBaseURL       = "MEMHOST_WORKER_BASE_URL"
	EnvAPIKeyEnv     = "MEMHOST_WORKER_API_KEY_ENV"
	EnvLocality      = "MEMHOST_WORKER_LOCALITY"
)

// endpointVars are the variables of the settings every OpenAI-compatible plugin reads alike.
var endpointVars = openaihttp.EndpointVars{Name: EnvName, Model: EnvModel, BaseURL: EnvBaseURL, APIKeyEnv: EnvAPIKeyEnv}

// Defaults for the optional settings.
const (
	DefaultName          = "openaicompat"
	DefaultTimeout       = 120 * time.Second
	DefaultMaxInputBytes = 256 << 10
)

// Config is one configured worker.
type Config struct {
	// Name is Describe's name.
	Name string
	// Model is sent as the request's model and reported by Describe.
	Model string
	// BaseURL is the API root that /chat/completions and /models hang off,
	// e.g. http://127.0.0.1:11434/v1.
	BaseURL string
	// APIKey is sent as a bearer token when set. Its String and GoString
	// print a placeholder, so that printing a Config cannot leak it.
	APIKey Secret
	// APIKeyEnv names the variable APIKey came from; errors about the key
	// name the variable, never the key.
	APIKeyEnv string
	// Timeout bounds one Run, retries included; a task's sooner deadline
	// wins.
	Timeout time.Duration
	// MaxInputBytes is Describe's limit on instructions plus input.
	MaxInputBytes int
	// Locality is where the model runs.
	Locality worker.Locality
	// HTTPClient makes the requests; nil means a client of its own.
	HTTPClient *http.Client
	// Logger receives retries and capability fallbacks; nil discards them.
	Logger hclog.Logger
}

// Secret is a credential that does not print.
type Secret = openaihttp.Secret

// ConfigFromEnv reads the worker's settings from getenv (os.Getenv in the
// plugin), reading the API key from the variable EnvAPIKeyEnv names. Its
// errors name the variable at fault and never quote the key.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	ep, err := openaihttp.EndpointFromEnv(getenv, endpointVars, DefaultName, "the model to ask")
	if err != nil {
		return Config{}, err
	}
	c := Config{Name: ep.Name, Model: ep.Model, BaseURL: ep.BaseURL, APIKey: ep.APIKey, APIKeyEnv: ep.APIKeyEnv,
		MaxInputBytes: DefaultMaxInputBytes}
	if c.Timeout, err = openaihttp.DurationFromEnv(getenv, EnvTimeout, DefaultTimeout); err != nil {
		return Config{}, err
	}
	if s := strings.TrimSpace(getenv(EnvMaxInputBytes)); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			return Config{}, fmt.Errorf("%s %q: must be a positive number of bytes", EnvMaxInputBytes, s)
		}
		c.MaxInputBytes = n
	}
	switch s := strings.TrimSpace(getenv(EnvLocality)); s {
	case "":
		loopback, err := openaihttp.IsLoopback(c.BaseURL, EnvAPIKeyEnv)
		if err != nil {
			return Config{}, fmt.Errorf("%s: %w", EnvBaseURL, err)
		}
		c.Locality = worker.LocalityRemote
		if loopback {
			c.Locality = worker.LocalityLocal
		}
	case "local":
		c.Locality = worker.LocalityLocal
	case "remote":
		c.Locality = worker.LocalityRemote
	default:
		return Config{}, fmt.Errorf("%s %q: must be local or remote", EnvLocality, s)
	}
	return c, c.validate()
}

// validate reports the first setting of c that cannot work.
func (c Config) validate() error {
	if _, err := openaihttp.ParseBaseURL(c.BaseURL, EnvAPIKeyEnv); err != nil {
		return fmt.Errorf("%s: %w", EnvBaseURL, err)
	}
	switch {
	case c.Model == "":
		return fmt.Errorf("%s is not set: the model to ask", EnvModel)
	case c.Timeout <= 0:
		return fmt.Errorf("%s %s: must be positive", EnvTimeout, c.Timeout)
	case c.MaxInputBytes <= 0:
		return fmt.Errorf("%s %d: must be positive", EnvMaxInputBytes, c.MaxInputBytes)
	}
	return nil
}
