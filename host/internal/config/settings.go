package config

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Setting is one configuration value and where it came from, for `memhost config check`.
type Setting struct {
	Key string
	// Value is the value as loaded, with any password in database.url masked.
	Value string
	// Origin is "default", "file PATH", "env VARIABLE" or "flag --NAME".
	Origin string
}

// Settings lists every value Load gathered, sorted by key, with its origin.
func (c *Config) Settings() []Setting { return slices.Clone(c.settings) }

// passwordParam matches a password in a key=value connection string.
var passwordParam = regexp.MustCompile(`(?i)(password\s*=\s*)('[^']*'|\S+)`)

// render prints a loaded value; database.url loses its password, which must not reach a
// terminal or a pasted bug report.
func render(key string, v any) string {
	var s string
	switch x := v.(type) {
	case []string:
		s = strings.Join(x, ",")
	case []any:
		parts := make([]string, len(x))
		for i, p := range x {
			parts[i] = fmt.Sprint(p)
		}
		s = strings.Join(parts, ",")
	default:
		s = fmt.Sprint(v)
	}
	if key == "database.url" {
		return maskPassword(s)
	}
	return s
}

func maskPassword(dsn string) string {
	scheme, rest, isURL := strings.Cut(dsn, "://")
	if !isURL {
		return passwordParam.ReplaceAllString(dsn, "${1}xxxxx")
	}
	// Not url.Parse: a password holding '/' or '@' makes it fail or split wrongly. The user
	// information ends at the last '@'.
	at := strings.LastIndexByte(rest, '@')
	if at < 0 {
		return dsn
	}
	user, _, hasPassword := strings.Cut(rest[:at], ":")
	if !hasPassword {
		return dsn
	}
	return scheme + "://" + user + ":xxxxx" + rest[at:]
}
