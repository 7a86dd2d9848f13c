package agentcli

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The environment variables the plugin reads; the host sets them from the
// worker's [workers.NAME] configuration.
const (
	envName          = "MEMHOST_WORKER_NAME"
	envModel         = "MEMHOST_WORKER_MODEL"
	envTimeout       = "MEMHOST_WORKER_TIMEOUT"
	envMaxInputBytes = "MEMHOST_WORKER_MAX_INPUT_BYTES"
	envCLI           = "MEMHOST_WORKER_CLI"
	envCLIPath       = "MEMHOST_WORKER_CLI_PATH"
)

// Defaults for the optional variables.
const (
	DefaultName          = "agentcli"
	DefaultTimeout       = 120 * time.Second
	DefaultMaxInputBytes = 256 << 10
	// maxMaxInputBytes keeps a configured limit within what the plugin
	// holds in memory for one task without thought.
	maxMaxInputBytes = 16 << 20
)

// CLI names an agent CLI the plugin can run.
type CLI string

// The CLIs served.
const (
	Claude CLI = "claude"
	Gemini CLI = "gemini"
	Codex  CLI = "codex"
)

// Config is one worker's configuration.
type Config struct {
	// Name is the worker's name in Describe.
	Name string
	// Model is passed to the CLI's model flag; empty keeps the CLI's default.
	Model string
	// Timeout bounds one call; a task's sooner deadline wins.
	Timeout time.Duration
	// MaxInputBytes is the largest task (instructions plus input) taken.
	MaxInputBytes int
	// CLI is the agent CLI run.
	CLI CLI
	// Path is the CLI's executable; empty looks CLI up on the PATH of Env.
	Path string
	// Env is the environment the CLI's own is built from (see childEnv):
	// the plugin's, which holds HOME, PATH and the CLI's credentials.
	Env []string
}

// ConfigFromEnv reads the plugin's configuration from environ. Its errors
// name the variable at fault and what it must be.
func ConfigFromEnv(environ []string) (Config, error) {
	get := func(k string) string { return lookup(environ, k) }
	c := Config{
		Name:          get(envName),
		Model:         get(envModel),
		Timeout:       DefaultTimeout,
		MaxInputBytes: DefaultMaxInputBytes,
		CLI:           CLI(get(envCLI)),
		Path:          get(envCLIPath),
		Env:           environ,
	}
	if c.Name == "" {
		c.Name = DefaultName
	}
	if s := get(envTimeout); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return Config{}, fmt.Errorf("%s %q: must be a positive Go duration such as 120s or 5m", envTimeout, s)
		}
		c.Timeout = d
	}
	if s := get(envMaxInputBytes); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 || n > maxMaxInputBytes {
			return Config{}, fmt.Errorf("%s %q: must be a whole number of bytes from 1 to %d", envMaxInputBytes, s, maxMaxInputBytes)
		}
		c.MaxInputBytes = n
	}
	return c, c.validate()
}

// validate checks what ConfigFromEnv cannot have checked for a Config built
// in code.
func (c Config) validate() error {
	switch c.CLI {
	case Claude, Gemini, Codex:
	case "":
		return fmt.Errorf("%s is not set: want claude, gemini or codex", envCLI)
	default:
		return fmt.Errorf("%s %q: want claude, gemini or codex", envCLI, c.CLI)
	}
	switch {
	case c.Path != "" && !filepath.IsAbs(c.Path):
		return fmt.Errorf("%s %q: must be an absolute path", envCLIPath, c.Path)
	case c.Timeout <= 0:
		return fmt.Errorf("%s %s: must be positive", envTimeout, c.Timeout)
	case c.MaxInputBytes <= 0 || c.MaxInputBytes > maxMaxInputBytes:
		return fmt.Errorf("%s %d: must be from 1 to %d", envMaxInputBytes, c.MaxInputBytes, maxMaxInputBytes)
	case strings.ContainsAny(c.Model, "\x00\n\r"):
		return fmt.Errorf("%s: must be one line", envModel)
	}
	return nil
}

// lookup returns the last value of key in environ, as the process itself
// would see it.
func lookup(environ []string, key string) string {
	v := ""
	for _, kv := range environ {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}
