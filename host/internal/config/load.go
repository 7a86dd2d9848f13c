package config

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/knadh/koanf/parsers/toml/v2"
	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/providers/env/v2"
	"github.com/knadh/koanf/providers/file"
	"github.com/knadh/koanf/providers/posflag"
	"github.com/knadh/koanf/providers/structs"
	"github.com/knadh/koanf/v2"
	"github.com/spf13/pflag"
)

const (
	// EnvPrefix starts every environment variable Load reads.
	EnvPrefix = "MEMHOST_"
	// EnvConfig names the config file when LoadOptions.ConfigPath is empty.
	EnvConfig = "MEMHOST_CONFIG"
	// EnvDatabaseURL is the documented shortcut for database.url.
	EnvDatabaseURL = "MEMHOST_DATABASE_URL"
	// LocalConfigPath is used when neither ConfigPath nor MEMHOST_CONFIG is set and it
	// exists. `make run` writes its settings there, so CLI commands run from the checkout
	// (`bin/memhost token create`) reach the same database as the running host.
	LocalConfigPath = ".memhost/memhost.toml"
)

// mapKeys are keys whose value is a user-keyed map: anything below them is a valid key.
var mapKeys = []string{"plugins.checksums", "embedder.fold_thresholds", "ranking.half_life_days"}

// sliceKeys are split on commas when they arrive as a single string from the environment.
var sliceKeys = []string{"plugins.dirs"}

// LoadOptions says where Load looks.
type LoadOptions struct {
	// ConfigPath is the TOML file to read. Empty means $MEMHOST_CONFIG, else
	// ./.memhost/memhost.toml when it exists, else no file.
	ConfigPath string
	// Flags, when set, is a parsed FlagSet; flags the user changed override everything.
	// A flag maps to the key of the same name with '-' read as '_' (--server.listen,
	// --database.url); flags that name no key are ignored. RegisterFlags adds the usual set.
	Flags *pflag.FlagSet
	// Environ is the environment as KEY=VALUE pairs; nil means os.Environ().
	Environ []string
	// WorkDir is where ./.memhost/memhost.toml is looked for; "" means the process's
	// working directory.
	WorkDir string
}

// Load builds the configuration from defaults, the config file, the environment and flags.
// It fails only when a source cannot be read or a value cannot be decoded into its field's
// type; range and consistency checks are Validate's job.
func Load(ctx context.Context, opts LoadOptions) (*Config, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("load config: %w", err)
	}
	environ := opts.Environ
	if environ == nil {
		environ = os.Environ()
	}

	k := koanf.New(".")
	if err := loadDefaults(k); err != nil {
		return nil, err
	}
	known := k.Keys()

	var unknown []string
	path, err := findConfigFile(opts, environ)
	if err != nil {
		return nil, err
	}
	if path != "" {
		fk := koanf.New(".")
		if err := fk.Load(file.Provider(path), toml.Parser()); err != nil {
			return nil, fmt.Errorf("load config file %s: %w", path, err)
		}
		for _, key := range fk.Keys() {
			if !isKnownKey(known, key) {
				unknown = append(unknown, key)
			}
		}
		if err := k.Merge(fk); err != nil {
			return nil, fmt.Errorf("merge config file %s: %w", path, err)
		}
	}

	envK := koanf.New(".")
	envProvider := env.Provider(".", env.Opt{
		Prefix:        EnvPrefix,
		TransformFunc: envTransform,
		EnvironFunc:   func() []string { return environ },
	})
	if err := envK.Load(envProvider, nil); err != nil {
		return nil, fmt.Errorf("load config from environment: %w", err)
	}
	for _, key := range envK.Keys() {
		if !isKnownKey(known, key) {
			unknown = append(unknown, key)
		}
	}
	if err := k.Merge(envK); err != nil {
		return nil, fmt.Errorf("merge config from environment: %w", err)
	}

	if opts.Flags != nil {
		fs := opts.Flags
		provider := posflag.ProviderWithFlag(fs, ".", k, func(f *pflag.Flag) (string, any) {
			key := strings.ReplaceAll(f.Name, "-", "_")
			if !isKnownKey(known, key) {
				return "", nil
			}
			return key, posflag.FlagVal(fs, f)
		})
		if err := k.Load(provider, nil); err != nil {
			return nil, fmt.Errorf("load config from flags: %w", err)
		}
	}

	cfg := Default()
	// Maps merge key by key, so start them empty: defaults already sit in k.
	cfg.Ranking.HalfLifeDays = map[string]float64{}
	if err := k.UnmarshalWithConf("", cfg, koanf.UnmarshalConf{Tag: "koanf"}); err != nil {
		return nil, fmt.Errorf("decode config: %w", err)
	}
	sort.Strings(unknown)
	cfg.unknownKeys = slices.Compact(unknown)
	cfg.path = path
	return cfg, nil
}

// loadDefaults puts Default() into k. The struct is read through the structs provider and
// its typed maps are turned into map[string]any, because koanf only flattens (and so only
// merges key by key) generic maps: otherwise a file setting ranking.half_life_days.fact
// would drop the defaults of every other kind.
func loadDefaults(k *koanf.Koanf) error {
	raw, err := structs.Provider(Default(), "koanf").Read()
	if err != nil {
		return fmt.Errorf("load config defaults: %w", err)
	}
	if err := k.Load(confmap.Provider(genericMaps(raw).(map[string]any), ""), nil); err != nil {
		return fmt.Errorf("load config defaults: %w", err)
	}
	return nil
}

func genericMaps(v any) any {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Map || rv.Type().Key().Kind() != reflect.String {
		return v
	}
	out := make(map[string]any, rv.Len())
	for iter := rv.MapRange(); iter.Next(); {
		out[iter.Key().String()] = genericMaps(iter.Value().Interface())
	}
	return out
}

func findConfigFile(opts LoadOptions, environ []string) (string, error) {
	if opts.ConfigPath != "" {
		return opts.ConfigPath, nil
	}
	if p := lookupEnv(environ, EnvConfig); p != "" {
		return p, nil
	}
	dir := opts.WorkDir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("find config file: %w", err)
		}
		dir = wd
	}
	local := filepath.Join(dir, LocalConfigPath)
	switch _, err := os.Stat(local); {
	case err == nil:
		return local, nil
	case errors.Is(err, fs.ErrNotExist):
		return "", nil
	default:
		return "", fmt.Errorf("find config file: %w", err)
	}
}

func lookupEnv(environ []string, name string) string {
	// Later entries win, as with os.Getenv on a duplicated variable.
	value := ""
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			value = v
		}
	}
	return value
}

// envTransform maps MEMHOST_SERVER__LISTEN to server.listen. Only names containing "__"
// are configuration (plus the MEMHOST_DATABASE_URL shortcut): other MEMHOST_* variables
// belong to scripts and tools and must not be mistaken for typos.
func envTransform(name, value string) (string, any) {
	if name == EnvDatabaseURL {
		return "database.url", value
	}
	rest := strings.TrimPrefix(name, EnvPrefix)
	// MEMHOST_PLUGIN_* settings are passed to plugin processes (plugins.PluginEnvPrefix), not
	// host configuration.
	if strings.HasPrefix(rest, "PLUGIN_") || !strings.Contains(rest, "__") {
		return "", nil
	}
	key := strings.ToLower(strings.ReplaceAll(rest, "__", "."))
	if slices.Contains(sliceKeys, key) {
		var parts []string
		for p := range strings.SplitSeq(value, ",") {
			if p = strings.TrimSpace(p); p != "" {
				parts = append(parts, p)
			}
		}
		return key, parts
	}
	return key, value
}

func isKnownKey(known []string, key string) bool {
	if slices.Contains(known, key) {
		return true
	}
	for _, m := range mapKeys {
		if strings.HasPrefix(key, m+".") {
			return true
		}
	}
	return false
}

// RegisterFlags adds the flags operators reach for most, named after their keys, with the
// built-in defaults shown in help. Any other key can still be given a flag of the same name.
func RegisterFlags(fs *pflag.FlagSet) {
	d := Default()
	fs.String("server.listen", d.Server.Listen, "HTTP listen address (host:port)")
	fs.String("database.url", d.Database.URL, "Postgres connection URL")
	fs.Int("database.max_conns", d.Database.MaxConns, "maximum Postgres connections")
	fs.StringSlice("plugins.dirs", d.Plugins.Dirs, "directories scanned for plugin binaries")
	fs.String("embedder.active", d.Embedder.Active, "embedder plugin to use (empty: automatic)")
	fs.String("log.level", d.Log.Level, "log level: debug, info, warn or error")
	fs.String("log.format", d.Log.Format, "log format: text or json")
}
