package config

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/knadh/koanf/parsers/toml/v2"
	"github.com/knadh/koanf/providers/rawbytes"
	"github.com/knadh/koanf/v2"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/require"
)

func writeConfig(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "memhost.toml")
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

// load runs Load with an explicit, empty-by-default environment so tests never see the
// developer's MEMHOST_* variables or a .memhost directory in the package folder.
func load(t *testing.T, opts LoadOptions) *Config {
	t.Helper()
	if opts.Environ == nil {
		opts.Environ = []string{}
	}
	if opts.WorkDir == "" {
		opts.WorkDir = t.TempDir()
	}
	cfg, err := Load(context.Background(), opts)
	require.NoError(t, err)
	return cfg
}

func TestDefaultsAreValid(t *testing.T) {
	t.Parallel()
	cfg := load(t, LoadOptions{})
	require.Empty(t, cfg.Validate())
	require.Equal(t, Default().Server.Listen, cfg.Server.Listen)
	require.Equal(t, []string{"bin/plugins"}, cfg.Plugins.Dirs)
	require.Equal(t, 10*time.Second, cfg.Plugins.CallTimeout)
	require.InDelta(t, 90, cfg.Ranking.HalfLifeDays["error_pattern"], 0)
	require.Empty(t, cfg.Path())

	// Without a URL, only a command that needs the database complains.
	problems := cfg.Validate(RequireDatabase)
	require.Len(t, problems, 1)
	require.Equal(t, "database.url", problems[0].Key)
	require.Contains(t, problems[0].Message, "MEMHOST_DATABASE_URL")
}

// TestWritesAreFlushedUnlessTradedAway: every acknowledged write survives a crash of Postgres
// or the machine unless the operator opts out with memory.flush_writes = false (file or
// environment).
func TestWritesAreFlushedUnlessTradedAway(t *testing.T) {
	t.Parallel()
	require.True(t, load(t, LoadOptions{}).Memory.FlushWrites, "the default")
	require.True(t, load(t, LoadOptions{ConfigPath: writeConfig(t, Example())}).Memory.FlushWrites, "the example")
	require.False(t, load(t, LoadOptions{ConfigPath: writeConfig(t, "[memory]\nflush_writes = false\n")}).Memory.FlushWrites, "the opt-in")
	require.False(t, load(t, LoadOptions{Environ: []string{"MEMHOST_MEMORY__FLUSH_WRITES=false"}}).Memory.FlushWrites, "the opt-in from the environment")
}

func TestExampleLoadsAndValidates(t *testing.T) {
	t.Parallel()
	cfg := load(t, LoadOptions{ConfigPath: writeConfig(t, Example())})
	require.Empty(t, cfg.Validate(RequireDatabase))

	// The example documents every key the struct has, so it cannot fall behind.
	defaults := koanf.New(".")
	require.NoError(t, loadDefaults(defaults))
	ex := koanf.New(".")
	require.NoError(t, ex.Load(rawbytes.Provider([]byte(Example())), toml.Parser()))
	for _, key := range defaults.Keys() {
		if slices.Contains(mapKeys, key) {
			continue // empty maps are documented by their commented sample entries
		}
		require.True(t, ex.Exists(key), "memhost.example.toml lacks %s", key)
	}
	for _, key := range mapKeys {
		require.Contains(t, Example(), "["+key+"]")
	}
}

func TestPrecedenceFileEnvFlag(t *testing.T) {
	t.Parallel()
	path := writeConfig(t, `
[server]
listen = "127.0.0.1:1001"
read_timeout = "5s"
[database]
url = "postgres://file@localhost/file"
max_conns = 7
[log]
level = "warn"
[ranking.half_life_days]
fact = 30
`)
	// File only.
	cfg := load(t, LoadOptions{ConfigPath: path})
	require.Equal(t, "127.0.0.1:1001", cfg.Server.Listen)
	require.Equal(t, 5*time.Second, cfg.Server.ReadTimeout)
	require.Equal(t, 7, cfg.Database.MaxConns)
	require.Equal(t, "warn", cfg.Log.Level)
	require.InDelta(t, 30, cfg.Ranking.HalfLifeDays["fact"], 0)
	require.InDelta(t, 365, cfg.Ranking.HalfLifeDays["decision"], 0, "map keys merge with defaults")
	require.Equal(t, path, cfg.Path())

	// Environment beats file.
	env := []string{
		"MEMHOST_SERVER__LISTEN=127.0.0.1:2002",
		"MEMHOST_DATABASE_URL=postgres://env@localhost/env",
		"MEMHOST_DATABASE__MAX_CONNS=9",
		"MEMHOST_PLUGINS__DIRS=a, b",
		"MEMHOST_RANKING__HALF_LIFE_DAYS__GOTCHA=60",
		"MEMHOST_PG_DB=unrelated_script_variable",
		"MEMHOST_PLUGIN_EXAMPLE__SETTING=for a plugin, not the host",
		"PATH=/usr/bin",
	}
	cfg = load(t, LoadOptions{ConfigPath: path, Environ: env})
	require.Equal(t, "127.0.0.1:2002", cfg.Server.Listen)
	require.Equal(t, "postgres://env@localhost/env", cfg.Database.URL)
	require.Equal(t, 9, cfg.Database.MaxConns)
	require.Equal(t, []string{"a", "b"}, cfg.Plugins.Dirs)
	require.InDelta(t, 60, cfg.Ranking.HalfLifeDays["gotcha"], 0)
	require.Equal(t, "warn", cfg.Log.Level, "file value survives where env is silent")
	require.Empty(t, cfg.Validate(RequireDatabase))

	// Flags beat environment; unchanged flags do not reset lower layers.
	fs := pflag.NewFlagSet("memhost", pflag.ContinueOnError)
	RegisterFlags(fs)
	fs.String("config", "", "not a config key, ignored by Load")
	fs.Duration("server.write_timeout", 0, "any key can be a flag")
	require.NoError(t, fs.Parse([]string{"--server.listen=127.0.0.1:3003", "--database.url", "postgres://flag@localhost/flag", "--server.write_timeout=2m", "--config=x"}))
	cfg = load(t, LoadOptions{ConfigPath: path, Environ: env, Flags: fs})
	require.Equal(t, "127.0.0.1:3003", cfg.Server.Listen)
	require.Equal(t, "postgres://flag@localhost/flag", cfg.Database.URL)
	require.Equal(t, 2*time.Minute, cfg.Server.WriteTimeout)
	require.Equal(t, 9, cfg.Database.MaxConns, "env value survives an unchanged flag")
	require.Equal(t, "warn", cfg.Log.Level, "file value survives an unchanged flag")
	require.Equal(t, []string{"a", "b"}, cfg.Plugins.Dirs)
	require.Empty(t, cfg.Validate())
}

func TestConfigFileLookup(t *testing.T) {
	t.Parallel()
	explicit := writeConfig(t, "[log]\nlevel = \"debug\"\n")
	viaEnv := writeConfig(t, "[log]\nlevel = \"error\"\n")
	work := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(work, ".memhost"), 0o755))
	local := filepath.Join(work, LocalConfigPath)
	require.NoError(t, os.WriteFile(local, []byte("[log]\nlevel = \"warn\"\n"), 0o600))

	cfg := load(t, LoadOptions{WorkDir: work})
	require.Equal(t, "warn", cfg.Log.Level)
	require.Equal(t, local, cfg.Path())

	cfg = load(t, LoadOptions{WorkDir: work, Environ: []string{EnvConfig + "=" + viaEnv}})
	require.Equal(t, "error", cfg.Log.Level)

	cfg = load(t, LoadOptions{WorkDir: work, ConfigPath: explicit, Environ: []string{EnvConfig + "=" + viaEnv}})
	require.Equal(t, "debug", cfg.Log.Level)

	cfg = load(t, LoadOptions{WorkDir: t.TempDir()})
	require.Empty(t, cfg.Path())
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, err := Load(ctx, LoadOptions{ConfigPath: filepath.Join(t.TempDir(), "missing.toml"), Environ: []string{}})
	require.ErrorContains(t, err, "missing.toml")

	_, err = Load(ctx, LoadOptions{ConfigPath: writeConfig(t, "[server\nlisten=1"), Environ: []string{}})
	require.ErrorContains(t, err, "load config file")

	_, err = Load(ctx, LoadOptions{ConfigPath: writeConfig(t, "[memory]\nmax_text_bytes = \"lots\"\n"), Environ: []string{}})
	require.ErrorContains(t, err, "decode config")

	_, err = Load(ctx, LoadOptions{Environ: []string{"MEMHOST_SERVER__READ_TIMEOUT=soon"}, WorkDir: t.TempDir()})
	require.ErrorContains(t, err, "decode config")

	canceled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = Load(canceled, LoadOptions{Environ: []string{}})
	require.ErrorIs(t, err, context.Canceled)
}

func TestUnknownKeys(t *testing.T) {
	t.Parallel()
	path := writeConfig(t, `
[server]
listn = "127.0.0.1:1"
[databse]
url = "x"
[plugins.checksums]
memhost-embed-bm25 = "`+strings.Repeat("ab", 32)+`"
[embedder.fold_thresholds]
bm25-v1-384 = 0.8
`)
	cfg := load(t, LoadOptions{ConfigPath: path, Environ: []string{"MEMHOST_LOG__LEVLE=debug"}})
	require.Equal(t, []Problem{
		{Key: "databse.url", Message: "unknown key"},
		{Key: "log.levle", Message: "unknown key"},
		{Key: "server.listn", Message: "unknown key"},
	}, cfg.Validate())
	require.Equal(t, strings.Repeat("ab", 32), cfg.Plugins.Checksums["memhost-embed-bm25"])
	require.InDelta(t, 0.8, cfg.Embedder.FoldThresholds["bm25-v1-384"], 1e-9)
}

func TestValidateRules(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		mutate  func(c *Config)
		key     string
		message string
	}{
		{"listen not host:port", func(c *Config) { c.Server.Listen = "abc" }, "server.listen", `"abc" is not host:port`},
		{"listen bad port", func(c *Config) { c.Server.Listen = "localhost:99999" }, "server.listen", "0..65535"},
		{"read timeout", func(c *Config) { c.Server.ReadTimeout = -time.Second }, "server.read_timeout", "out of range 0s..1h0m0s"},
		{"write timeout", func(c *Config) { c.Server.WriteTimeout = 2 * time.Hour }, "server.write_timeout", "out of range"},
		{"shutdown timeout", func(c *Config) { c.Server.ShutdownTimeout = 0 }, "server.shutdown_timeout", "out of range 1s..10m0s"},
		{"database url", func(c *Config) { c.Database.URL = "postgres://x:y@host:notaport/db" }, "database.url", "not a valid Postgres connection string"},
		{"max conns", func(c *Config) { c.Database.MaxConns = 0 }, "database.max_conns", "0 is out of range 1..200"},
		{"no plugin dirs", func(c *Config) { c.Plugins.Dirs = nil }, "plugins.dirs", "at least one"},
		{"empty plugin dir", func(c *Config) { c.Plugins.Dirs = []string{" "} }, "plugins.dirs[0]", "is empty"},
		{"checksum digest", func(c *Config) { c.Plugins.Checksums = map[string]string{"p": "abc"} }, "plugins.checksums.p", "sha256 hex digest"},
		{"checksum path", func(c *Config) {
			c.Plugins.Checksums = map[string]string{"dir/p": strings.Repeat("0", 64)}
		}, "plugins.checksums.dir/p", "file name, not a path"},
		{"call timeout", func(c *Config) { c.Plugins.CallTimeout = 10 * time.Millisecond }, "plugins.call_timeout", "out of range 100ms..5m0s"},
		{"health interval", func(c *Config) { c.Plugins.HealthInterval = 0 }, "plugins.health_interval", "out of range"},
		{"restart backoff", func(c *Config) { c.Plugins.RestartBackoffMax = 2 * time.Hour }, "plugins.restart_backoff_max", "out of range"},
		{"fold threshold", func(c *Config) { c.Embedder.FoldThresholds = map[string]float64{"e": 1.5} }, "embedder.fold_thresholds.e", "1.5 is out of range -1..1"},
		{"max text bytes", func(c *Config) { c.Memory.MaxTextBytes = 5 }, "memory.max_text_bytes", "5 is out of range 16..1048576"},
		{"merged from max", func(c *Config) { c.Memory.MergedFromMax = 1001 }, "memory.merged_from_max", "out of range 0..1000"},
		{"search max k", func(c *Config) { c.Memory.SearchMaxK, c.Memory.SearchDefaultK = 0, 1 }, "memory.search_max_k", "out of range 1..1000"},
		{"search default k", func(c *Config) { c.Memory.SearchDefaultK = 101 }, "memory.search_default_k", "101 is out of range 1..100"},
		{"candidate pool", func(c *Config) { c.Memory.CandidatePool = 50 }, "memory.candidate_pool", "50 is out of range 100..5000"},
		{"graph min rows", func(c *Config) { c.Memory.GraphMinRows = 10 }, "memory.graph_min_rows", "10 is out of range 100..10000000"},
		{"index quiet", func(c *Config) { c.Memory.IndexQuiet = -time.Millisecond }, "memory.index_quiet", "out of range 0s..1m0s"},
		{"index max wait", func(c *Config) { c.Memory.IndexMaxWait = 0 }, "memory.index_max_wait", "0s is out of range 1s..1h0m0s"},
		{"background yield", func(c *Config) { c.Memory.BackgroundYield = 101 }, "memory.background_yield", "out of range 0..100"},
		{"half life kind", func(c *Config) { c.Ranking.HalfLifeDays["rumour"] = 3 }, "ranking.half_life_days.rumour", "unknown memory kind (valid: fact,"},
		{"half life value", func(c *Config) { c.Ranking.HalfLifeDays["fact"] = 0 }, "ranking.half_life_days.fact", "out of range 1..36500"},
		{"write rate", func(c *Config) { c.Auth.WriteRatePerMinute = -1 }, "auth.write_rate_per_minute", "out of range 0..1e+06"},
		{"write burst", func(c *Config) { c.Auth.WriteBurst = 0 }, "auth.write_burst", "out of range 1..1000000"},
		{"read rate", func(c *Config) { c.Auth.ReadRatePerMinute = -1 }, "auth.read_rate_per_minute", "out of range 0..1e+06"},
		{"read burst", func(c *Config) { c.Auth.ReadBurst = 0 }, "auth.read_burst", "out of range 1..1000000"},
		{"map build rate", func(c *Config) { c.Auth.MapBuildRatePerMinute = -1 }, "auth.map_build_rate_per_minute", "out of range 0..1e+06"},
		{"map build burst", func(c *Config) { c.Auth.MapBuildBurst = 0 }, "auth.map_build_burst", "out of range 1..1000000"},
		{"log level", func(c *Config) { c.Log.Level = "loud" }, "log.level", `"loud" is not one of debug, info, warn, error`},
		{"log format", func(c *Config) { c.Log.Format = "xml" }, "log.format", `"xml" is not one of text, json`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := Default()
			tc.mutate(cfg)
			problems := cfg.Validate()
			require.Len(t, problems, 1, "problems: %v", problems)
			require.Equal(t, tc.key, problems[0].Key)
			require.Contains(t, problems[0].Message, tc.message)
		})
	}
}

func TestValidateBoundariesAccepted(t *testing.T) {
	t.Parallel()
	cfg := Default()
	cfg.Memory.MaxTextBytes = 16
	cfg.Memory.MergedFromMax = 0
	cfg.Memory.SearchMaxK = 1000
	cfg.Memory.SearchDefaultK = 1000
	cfg.Memory.CandidatePool = 1000
	cfg.Memory.GraphMinRows = 100
	cfg.Memory.IndexQuiet = 0
	cfg.Memory.IndexMaxWait = time.Hour
	cfg.Auth.WriteRatePerMinute = 0
	cfg.Embedder.FoldThresholds = map[string]float64{"a": -1, "b": 1}
	cfg.Plugins.CallTimeout = 100 * time.Millisecond
	cfg.Database.URL = "host=localhost dbname=memhost"
	require.Empty(t, cfg.Validate(RequireDatabase))
}

func TestProblemsError(t *testing.T) {
	t.Parallel()
	err := Problems{{Key: "a.b", Message: "bad"}, {Key: "c", Message: "worse"}}
	require.Equal(t, "invalid configuration:\n  a.b: bad\n  c: worse", err.Error())
}
