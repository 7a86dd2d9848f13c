package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/memhost/memhost/host/internal/config"
)

// configHint says how to point a command at the host's configuration when it found none:
// outside the checkout MEMHOST_CONFIG unset means no file at all, so no database.url, and
// "configure database.url" sends a new user looking for a key in a file memhost never read.
// "" when a file was read (its own problems say what is wrong in it).
func configHint(cfg *config.Config) string {
	if cfg.Path() != "" {
		return ""
	}
	return "no config file was read (MEMHOST_CONFIG is unset and there is no ./" + config.LocalConfigPath +
		" here): set MEMHOST_CONFIG to the host's memhost.toml, e.g. export MEMHOST_CONFIG=/path/to/checkout/" +
		config.LocalConfigPath + ", or pass --config FILE"
}

// errNoToken is why a command that needs a project token has none: no database to mint one
// and no --token, with the fix.
func errNoToken(cfg *config.Config) error {
	if hint := configHint(cfg); hint != "" {
		return errors.New("no token: " + hint + "; or pass --token (default $MEMHOST_TOKEN) with a project-bound token")
	}
	return fmt.Errorf("no token: %s sets no database.url to mint one per project; set it there, or pass --token (default $MEMHOST_TOKEN) with a project-bound token", cfg.Path())
}

// noTokens is the token source of a spawn with neither a database nor a token: every grant
// fails with the fix, which memhost run prints before starting the CLI without memory.
type noTokens struct{ err error }

func (n noTokens) Grant(context.Context, string, string) (string, func(context.Context) error, error) {
	return "", nil, n.err
}
