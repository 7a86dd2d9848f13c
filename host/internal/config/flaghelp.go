package config

import (
	"strconv"
	"strings"
)

// FlagValues are the values this configuration gives the settings RegisterFlags offers as
// flags, in the form pflag shows a default ("[a,b]" for a list): what `--help` shows as each
// flag's default instead of the built-in one, so a host configured on another port is not
// described as listening on 7420. database.url is left out: it may hold a password.
func (c *Config) FlagValues() map[string]string {
	return map[string]string{
		"server.listen":      c.Server.Listen,
		"database.max_conns": strconv.Itoa(c.Database.MaxConns),
		"plugins.dirs":       "[" + strings.Join(c.Plugins.Dirs, ",") + "]",
		"embedder.active":    c.Embedder.Active,
		"log.level":          c.Log.Level,
		"log.format":         c.Log.Format,
	}
}
