package server

import (
	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/core/redact"
)

// RefuseSecrets is config.RefuseSecrets with the host's one secret detector (core/redact), for
// the validations of a configuration whose plugins are about to start: boot, reload, the
// commands that open the core or launch plugins, and `memhost config check`. The detector is
// built (about 25 ms, once per process) only when an api_key_env asks for it.
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
