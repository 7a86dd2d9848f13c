package memory_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/memory"
)

func TestDroppedSpecifics(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		inputs []string
		merged string
		want   []string
	}{
		{"rewording keeps everything", []string{"CI runs on Buildkite", "Our CI is Buildkite"}, "CI runs on Buildkite", nil},
		{"not dropped", []string{"do not use npm", "npm is not used here"}, "use npm", []string{"negation"}},
		{"never dropped", []string{"never push to main"}, "push to main", []string{"negation"}},
		{"don't dropped", []string{"don't run migrations by hand"}, "run migrations by hand", []string{"negation"}},
		{"negation kept", []string{"don't run migrations by hand"}, "never run migrations by hand", nil},
		{"version changed", []string{"we build with Go 1.24"}, "we build with Go 1.23", []string{"1.24"}},
		{"version kept", []string{"we build with Go 1.24", "Go 1.24 builds it"}, "Go 1.24 builds the project", nil},
		{"number dropped", []string{"api-web runs 28 replicas", "api-web has 28 replicas"}, "api-web runs replicas", []string{"28"}},
		{"path dropped", []string{"config lives in /etc/memhost/config.toml"}, "config lives in /etc", []string{"etc/memhost/config.toml"}},
		{"identifier dropped", []string{"call parseHTTP before pg_stage"}, "call the parser before pg_stage", []string{"parsehttp"}},
		{"specifics of every input", []string{"port 8080", "listens on 8080 via nginx-proxy"}, "listens on 8080", []string{"nginx-proxy"}},
		{"added specific is fine", []string{"use pnpm"}, "use pnpm 9", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, memory.DroppedSpecifics(tc.inputs, tc.merged))
		})
	}
}
