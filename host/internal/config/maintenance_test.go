package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestMaintenanceKnobsTakeDaysAndSecondsAndAreChecked(t *testing.T) {
	t.Parallel()
	cfg := load(t, LoadOptions{ConfigPath: writeConfig(t, "[maintenance.stale]\nafter = \"30d\"\nevery = \"2s\"\nenabled = false\n")})
	require.Empty(t, cfg.Validate())
	require.Equal(t, 30*24*time.Hour, cfg.Maintenance.Stale.After)
	require.Equal(t, 2*time.Second, cfg.Maintenance.Stale.Every)
	require.False(t, cfg.Maintenance.Stale.Enabled)

	bad := load(t, LoadOptions{ConfigPath: writeConfig(t, "[maintenance.stale]\nevery = \"0s\"\nmax_rows = 0\n")})
	require.Equal(t, []Problem{
		{Key: "maintenance.stale.every", Message: "0s is out of range 1s..8760h0m0s"},
		{Key: "maintenance.stale.max_rows", Message: "0 is out of range 1..1000000"},
	}, bad.Validate())
}

func TestReembedKnobsAreChecked(t *testing.T) {
	t.Parallel()
	cfg := load(t, LoadOptions{ConfigPath: writeConfig(t, "[maintenance.reembed]\nbatch = 16\nrate = 2.5\nbackoff_min = \"10s\"\n")})
	require.Empty(t, cfg.Validate())
	require.Equal(t, 16, cfg.Maintenance.Reembed.Batch)
	require.Equal(t, 2.5, cfg.Maintenance.Reembed.Rate)
	require.Equal(t, 10*time.Second, cfg.Maintenance.Reembed.BackoffMin)

	bad := load(t, LoadOptions{ConfigPath: writeConfig(t, "[maintenance.reembed]\nbatch = 0\nrate = -1\nbackoff_min = \"1h\"\nbackoff_max = \"1m\"\n")})
	require.Equal(t, []Problem{
		{Key: "maintenance.reembed.backoff_max", Message: "1m0s is shorter than maintenance.reembed.backoff_min (1h0m0s)"},
		{Key: "maintenance.reembed.batch", Message: "0 is out of range 1..4096"},
		{Key: "maintenance.reembed.rate", Message: "-1 is out of range 0..1e+06"},
	}, bad.Validate())
}

// TestSummarizeKnobsAreChecked: [maintenance.summarize] loads its projects to exclude and its
// budgets, and names the key and the limit of a bad one.
func TestSummarizeKnobsAreChecked(t *testing.T) {
	t.Parallel()
	cfg := load(t, LoadOptions{ConfigPath: writeConfig(t, "[maintenance.summarize]\nexclude = [\"github.com/acme/secret\"]\nextract = false\nevery = \"30s\"\n")})
	require.Empty(t, cfg.Validate())
	require.Equal(t, []string{"github.com/acme/secret"}, cfg.Maintenance.Summarize.Exclude)
	require.False(t, cfg.Maintenance.Summarize.Extract)
	require.True(t, cfg.Maintenance.Summarize.Enabled, "on by default")
	require.Equal(t, 30*time.Second, cfg.Maintenance.Summarize.Every)

	bad := load(t, LoadOptions{ConfigPath: writeConfig(t, "[maintenance.summarize]\nmax_attempts = 0\nmax_llm_calls = 0\n")})
	require.Equal(t, []Problem{
		{Key: "maintenance.summarize.max_attempts", Message: "0 is out of range 1..100"},
		{Key: "maintenance.summarize.max_llm_calls", Message: "0 is out of range 1..1000000"},
	}, bad.Validate())
}

// TestGatekeeperIsOffAndBoundedTo500ms: the gatekeeper is off by default and its timeout may
// not exceed the hard 500 ms budget.
func TestGatekeeperIsOffAndBoundedTo500ms(t *testing.T) {
	t.Parallel()
	cfg := load(t, LoadOptions{})
	require.False(t, cfg.Maintenance.Gatekeeper.Enabled)
	require.Equal(t, 500*time.Millisecond, cfg.Maintenance.Gatekeeper.Timeout)
	bad := load(t, LoadOptions{ConfigPath: writeConfig(t, "[maintenance.gatekeeper]\nenabled = true\ntimeout = \"2s\"\n")})
	require.Equal(t, []Problem{{Key: "maintenance.gatekeeper.timeout", Message: "2s is out of range 1ms..500ms"}}, bad.Validate())
}

// TestConsolidateKnobsSayTheirOwnRange: near is held to 0.5..1 and to at most same; a bad
// same is reported once, not as the nonsense range "0.5..0.3" of near as well.
func TestConsolidateKnobsSayTheirOwnRange(t *testing.T) {
	t.Parallel()
	for body, want := range map[string][]Problem{
		"same = 0.3\nnear = 0.4\n": {
			{Key: "maintenance.consolidate.near", Message: "0.4 is out of range 0.5..1"},
			{Key: "maintenance.consolidate.same", Message: "0.3 is out of range 0.5..1"},
		},
		"same = 0.3\nnear = 0.6\n":  {{Key: "maintenance.consolidate.same", Message: "0.3 is out of range 0.5..1"}},
		"same = 0.9\nnear = 0.95\n": {{Key: "maintenance.consolidate.near", Message: "0.95 is above maintenance.consolidate.same (0.9)"}},
	} {
		bad := load(t, LoadOptions{ConfigPath: writeConfig(t, "[maintenance.consolidate]\n"+body)})
		require.Equal(t, want, bad.Validate(), body)
	}
}
