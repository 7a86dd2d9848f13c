package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestBrainKeysLoadAndAreBounded(t *testing.T) {
	t.Parallel()
	cfg := load(t, LoadOptions{ConfigPath: writeConfig(t, "[brain]\nmap_max_age = \"2h\"\nbanner_budget = 900\n")})
	require.Equal(t, 2*time.Hour, cfg.Brain.MapMaxAge)
	require.Equal(t, 900, cfg.Brain.BannerBudget)
	require.Empty(t, cfg.Validate())

	cfg.Brain.MapMaxAge, cfg.Brain.BannerBudget = time.Second, 100
	var keys []string
	for _, p := range cfg.Validate() {
		keys = append(keys, p.Key)
	}
	require.Equal(t, []string{"brain.banner_budget", "brain.map_max_age"}, keys)
}
