package config

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/knadh/koanf/v2"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/require"
)

// settable are values for keys whose default is empty, so that setting them is visible.
var settable = map[string]string{
	"database.url":    "postgres://memhost@localhost:5432/memhost",
	"embedder.active": "memhost-embedder-bm25",
}

func flags(t *testing.T, args ...string) *pflag.FlagSet {
	t.Helper()
	fs := pflag.NewFlagSet("memhost", pflag.ContinueOnError)
	RegisterFlags(fs)
	require.NoError(t, fs.Parse(args))
	return fs
}

func origin(t *testing.T, cfg *Config, key string) string {
	t.Helper()
	for _, s := range cfg.Settings() {
		if s.Key == key {
			return s.Origin
		}
	}
	t.Fatalf("no setting %s in %v", key, cfg.Settings())
	return ""
}

// TestEveryKeyFromFileEnvAndFlag: each key can be set from the file, from the environment
// and from a flag, decodes to the same value from all three, and Settings says which set it.
func TestEveryKeyFromFileEnvAndFlag(t *testing.T) {
	t.Parallel()
	defaults := koanf.New(".")
	require.NoError(t, loadDefaults(defaults))
	var keys []string
	for _, key := range defaults.Keys() {
		if !slices.Contains(mapKeys, key) { // empty maps: TestMapNames covers them
			keys = append(keys, key)
		}
	}
	require.Contains(t, keys, "ranking.half_life_days.fact", "map entries are keys too")

	var toml, args []string
	var env []string
	for _, key := range keys {
		v := defaults.Get(key)
		text := fmt.Sprint(v)
		if s, ok := settable[key]; ok {
			v, text = s, s
		}
		switch x := v.(type) {
		case string:
			toml = append(toml, fmt.Sprintf("%s = %q", key, x))
		case time.Duration:
			toml = append(toml, fmt.Sprintf("%s = %q", key, x))
		case []string:
			text = strings.Join(x, ",")
			toml = append(toml, fmt.Sprintf("%s = [%q]", key, text))
		default:
			toml = append(toml, fmt.Sprintf("%s = %v", key, x))
		}
		env = append(env, EnvPrefix+strings.ToUpper(strings.ReplaceAll(key, ".", "__"))+"="+text)
		args = append(args, "--set", key+"="+text)
	}

	path := writeConfig(t, strings.Join(toml, "\n")+"\n")
	fromFile := load(t, LoadOptions{ConfigPath: path})
	fromEnv := load(t, LoadOptions{Environ: env})
	fromFlag := load(t, LoadOptions{Flags: flags(t, args...)})
	for _, cfg := range []*Config{fromFile, fromEnv, fromFlag} {
		require.Empty(t, cfg.Validate(RequireDatabase))
	}
	for _, key := range keys {
		require.Equal(t, "file "+path, origin(t, fromFile, key), key)
		require.Equal(t, "env "+EnvPrefix+strings.ToUpper(strings.ReplaceAll(key, ".", "__")), origin(t, fromEnv, key), key)
		require.Equal(t, "flag --set", origin(t, fromFlag, key), key)
	}
	public := func(c *Config) []any {
		return []any{c.Server, c.Database, c.Plugins, c.Embedder, c.Memory, c.Ranking, c.Auth, c.Log}
	}
	require.Equal(t, public(fromFile), public(fromEnv))
	require.Equal(t, public(fromFile), public(fromFlag))
	require.Equal(t, settable["embedder.active"], fromFlag.Embedder.Active)

	// Flags named after a key say so; untouched keys are defaults.
	cfg := load(t, LoadOptions{Flags: flags(t, "--log.level=debug")})
	require.Equal(t, "flag --log.level", origin(t, cfg, "log.level"))
	require.Equal(t, "default", origin(t, cfg, "log.format"))
}

// TestMapNames: names below a map key may hold '-', '.' and capitals, and each source can
// set them: the file with quoted keys, the environment with a table variable, flags with
// --set.
func TestMapNames(t *testing.T) {
	t.Parallel()
	path := writeConfig(t, `
[embedder.fold_thresholds]
"bm25-v1-384" = 0.81
"nomic-embed-text-v1.5" = 0.91
[plugins.checksums]
"memhost-embedder-nomic.v2" = "`+strings.Repeat("ab", 32)+`"
`)
	cfg := load(t, LoadOptions{ConfigPath: path})
	require.Empty(t, cfg.Validate())
	require.Equal(t, map[string]float64{"bm25-v1-384": 0.81, "nomic-embed-text-v1.5": 0.91}, cfg.Embedder.FoldThresholds)
	require.Equal(t, strings.Repeat("ab", 32), cfg.Plugins.Checksums["memhost-embedder-nomic.v2"])
	require.Equal(t, "file "+path, origin(t, cfg, "embedder.fold_thresholds.nomic-embed-text-v1.5"))

	env := []string{
		"MEMHOST_EMBEDDER__FOLD_THRESHOLDS=bm25-v1-384=0.82, Nomic-Embed-Text-v1.5 = 0.92",
		"MEMHOST_RANKING__HALF_LIFE_DAYS=fact=10,gotcha=20",
		"MEMHOST_RANKING__HALF_LIFE_DAYS__FACT=11",
	}
	cfg = load(t, LoadOptions{ConfigPath: path, Environ: env})
	require.Empty(t, cfg.Validate())
	require.Equal(t, map[string]float64{"bm25-v1-384": 0.82, "nomic-embed-text-v1.5": 0.91, "Nomic-Embed-Text-v1.5": 0.92}, cfg.Embedder.FoldThresholds)
	require.InDelta(t, 11, cfg.Ranking.HalfLifeDays["fact"], 0, "an entry's own variable wins over the table variable")
	require.InDelta(t, 20, cfg.Ranking.HalfLifeDays["gotcha"], 0)
	require.InDelta(t, 365, cfg.Ranking.HalfLifeDays["decision"], 0, "entries merge with the defaults")
	require.Equal(t, "env MEMHOST_EMBEDDER__FOLD_THRESHOLDS", origin(t, cfg, "embedder.fold_thresholds.bm25-v1-384"))
	require.Equal(t, "env MEMHOST_RANKING__HALF_LIFE_DAYS__FACT", origin(t, cfg, "ranking.half_life_days.fact"))
	require.Equal(t, "env MEMHOST_RANKING__HALF_LIFE_DAYS", origin(t, cfg, "ranking.half_life_days.gotcha"))

	cfg = load(t, LoadOptions{ConfigPath: path, Environ: env, Flags: flags(t,
		"--set", "embedder.fold_thresholds.bm25-v1-384=0.83", "--set", "embedder.fold_thresholds.nomic-embed-text-v1.5=0.93")})
	require.InDelta(t, 0.83, cfg.Embedder.FoldThresholds["bm25-v1-384"], 1e-9)
	require.InDelta(t, 0.93, cfg.Embedder.FoldThresholds["nomic-embed-text-v1.5"], 1e-9)
	require.Equal(t, "flag --set", origin(t, cfg, "embedder.fold_thresholds.nomic-embed-text-v1.5"))
}

func TestSourceErrors(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		opts LoadOptions
		want string
	}{
		"table variable entry": {LoadOptions{Environ: []string{"MEMHOST_EMBEDDER__FOLD_THRESHOLDS=bm25-v1-384"}},
			`MEMHOST_EMBEDDER__FOLD_THRESHOLDS: entry "bm25-v1-384" is not name=value`},
		"table value": {LoadOptions{Environ: []string{"MEMHOST_EMBEDDER__FOLD_THRESHOLDS=bm25-v1-384=high"}},
			`embedder.fold_thresholds.bm25-v1-384: "high" is not a number`},
		"table in file": {LoadOptions{ConfigPath: writeConfig(t, "[embedder]\nfold_thresholds = 3\n")},
			"embedder.fold_thresholds must be a table"},
		"set without value": {LoadOptions{Flags: flags(t, "--set", "memory.ann_ef_search")},
			`--set "memory.ann_ef_search": want KEY=VALUE`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if tc.opts.Environ == nil {
				tc.opts.Environ = []string{}
			}
			tc.opts.WorkDir = t.TempDir()
			_, err := Load(t.Context(), tc.opts)
			require.ErrorContains(t, err, tc.want)
		})
	}

	cfg := load(t, LoadOptions{Flags: flags(t, "--set", "memory.ann_ef_serch=400")})
	require.Equal(t, []Problem{{Key: "memory.ann_ef_serch", Message: "unknown key"}}, cfg.Validate())
}

// TestSettingsHidePasswords: config check may print settings; a database password never.
func TestSettingsHidePasswords(t *testing.T) {
	t.Parallel()
	secret := "pw" + strings.Repeat("x", 6) // generated, not a real credential shape
	for _, url := range []string{
		"postgres://app:" + secret + "@db:5432/app",
		"postgres://app:ab/" + secret + "@cd@db/app",
		"host=db user=app password=" + secret + " dbname=app",
	} {
		cfg := load(t, LoadOptions{Environ: []string{EnvDatabaseURL + "=" + url}})
		var got string
		for _, s := range cfg.Settings() {
			if s.Key == "database.url" {
				got = s.Value
			}
		}
		require.NotContains(t, got, secret, url)
		require.Contains(t, got, "xxxxx")
		require.Contains(t, got, "app")
	}
}

func TestExampleNamesRealBinaries(t *testing.T) {
	t.Parallel()
	require.NotContains(t, Example(), "memhost-embed-bm25")
	require.Contains(t, Example(), "# memhost-embedder-bm25 = ")
}
