package server

import (
	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/core/redact"
)

// RefuseSecrets is config.RefuseSecrets with the host's one secret detector (core/redact), for
// every validation of a configuration an operator wrote: boot and every other command that
// loads it, `memhost config check` and reload. The detector is built (tens of milliseconds,
// once per process) only when a value asks for it, so commands on the spawn path pay nothing
// unless an api_key_env is set.
func RefuseSecrets() config.ValidateOption {
	return config.RefuseSecrets(func(v string) bool {
		r, err := redact.New()
		if err != nil {
			// The detector is gitleaks' built-in ruleset: it fails to build only in a broken
			// binary, which boot reports anyway (Open builds the write path's redactor).
			return false
		}
		_, found := r.Redact(v)
		return len(found) > 0
	})
}
