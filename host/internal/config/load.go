package config

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
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
	// SetFlag is the flag that sets any key: --set KEY=VALUE, repeatable.
	SetFlag = "set"
)

// mapKeys are keys whose value is a user-keyed map: anything below them is a valid key, and
// the names below them are the user's (an embedder name such as nomic-embed-text-v1.5), so
// they may hold characters that are special elsewhere: '-' (which no environment variable
// name can carry) and the key delimiter '.'.
var mapKeys = []string{"plugins.checksums", "embedder.fold_thresholds", "embedder.vector_weights", "embedder.relevance_floors", "ranking.half_life_days"}

// sliceKeys are split on commas when they arrive as a single string (environment, --set).
var sliceKeys = []string{"plugins.dirs"}

// LoadOptions says where Load looks.
type LoadOptions struct {
	// ConfigPath is the TOML file to read. Empty means $MEMHOST_CONFIG, else
	// ./.memhost/memhost.toml when it exists, else no file.
	ConfigPath string
	// Flags, when set, is a parsed FlagSet; flags the user changed override everything.
	// A flag maps to the key of the same name with '-' read as '_' (--server.listen,
	// --database.url), and --set KEY=VALUE sets any key; other flags are ignored.
	// RegisterFlags adds the usual set.
	Flags *pflag.FlagSet
	// Environ is the environment as KEY=VALUE pairs; nil means os.Environ().
	Environ []string
	// WorkDir is where ./.memhost/memhost.toml is looked for; "" means the process's
	// working directory.
	WorkDir string
}

// Load builds the configuration from defaults, the config file, the environment and flags,
// and records where each value came from (Config.Settings). It fails only when a source
// cannot be read or a value cannot be decoded into its field's type; range and consistency
// checks are Validate's job.
func Load(ctx context.Context, opts LoadOptions) (*Config, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("load config: %w", err)
	}
	environ := opts.Environ
	if environ == nil {
		environ = os.Environ()
	}
	l := &loader{k: koanf.New("."), origins: map[string]string{}}
	if err := loadDefaults(l.k); err != nil {
		return nil, err
	}
	l.known = l.k.Keys()
	for _, key := range l.known {
		l.origins[key] = "default"
	}

	path, err := findConfigFile(opts, environ)
	if err != nil {
		return nil, err
	}
	if path != "" {
		fk := koanf.New(".")
		if err := fk.Load(file.Provider(path), toml.Parser()); err != nil {
			return nil, fmt.Errorf("load config file %s: %w", path, err)
		}
		if err := l.merge(fk, func(string) string { return "file " + path }); err != nil {
			return nil, fmt.Errorf("merge config file %s: %w", path, err)
		}
	}
	if err := l.loadEnv(environ); err != nil {
		return nil, err
	}
	if opts.Flags != nil {
		if err := l.loadFlags(opts.Flags); err != nil {
			return nil, err
		}
	}
	return l.decode(path)
}

// loader gathers the layers into one koanf, remembering which layer set each key.
type loader struct {
	k       *koanf.Koanf
	known   []string          // the keys of the defaults
	origins map[string]string // key -> where its value came from
	unknown []string
}

// merge lays layer over what is loaded; origin says where a key of layer came from.
func (l *loader) merge(layer *koanf.Koanf, origin func(key string) string) error {
	for _, key := range layer.Keys() {
		if !isKnownKey(l.known, key) {
			l.unknown = append(l.unknown, key)
		}
		l.origins[key] = origin(key)
	}
	return l.k.Merge(layer)
}

// loadEnv reads MEMHOST_* variables. A key's levels are separated by "__" and the name is
// read in lower case: MEMHOST_SERVER__LISTEN is server.listen. A map key also takes all its
// entries in one variable, as comma-separated name=value pairs, which is the only spelling
// that carries names with '-', '.' or capitals:
//
//	MEMHOST_EMBEDDER__FOLD_THRESHOLDS=bm25-v1-384=0.8,nomic-embed-text-v1.5=0.9
//
// Entries of a map variable are laid down first, so a variable naming one entry
// (MEMHOST_RANKING__HALF_LIFE_DAYS__FACT=30) wins over the same entry in a map variable.
func (l *loader) loadEnv(environ []string) error {
	var errs []error
	mapK := koanf.New(".")
	mapVars := map[string]string{} // map key -> variable
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		key, ok := envKey(name)
		if !ok || !slices.Contains(mapKeys, key) {
			continue
		}
		entries, err := parseEntries(value)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			continue
		}
		if err := mapK.Load(confmap.Provider(nest(key, entries), ""), nil); err != nil {
			return fmt.Errorf("load config from environment: %s: %w", name, err)
		}
		mapVars[key] = name
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("load config from environment: %w", err)
	}
	if err := l.merge(mapK, func(key string) string { return "env " + mapVars[mapKeyOf(key)] }); err != nil {
		return fmt.Errorf("merge config from environment: %w", err)
	}

	envVars := map[string]string{} // key -> variable
	envK := koanf.New(".")
	provider := env.Provider(".", env.Opt{
		Prefix: EnvPrefix,
		TransformFunc: func(name, value string) (string, any) {
			key, ok := envKey(name)
			if !ok || slices.Contains(mapKeys, key) {
				return "", nil
			}
			envVars[key] = name
			if slices.Contains(sliceKeys, key) {
				return key, splitList(value)
			}
			return key, value
		},
		EnvironFunc: func() []string { return environ },
	})
	if err := envK.Load(provider, nil); err != nil {
		return fmt.Errorf("load config from environment: %w", err)
	}
	if err := l.merge(envK, func(key string) string { return "env " + envVars[key] }); err != nil {
		return fmt.Errorf("merge config from environment: %w", err)
	}
	return nil
}

// envKey maps MEMHOST_SERVER__LISTEN to server.listen. Only names containing "__" are
// configuration (plus the MEMHOST_DATABASE_URL shortcut): other MEMHOST_* variables belong
// to scripts and tools and must not be mistaken for typos.
func envKey(name string) (string, bool) {
	if name == EnvDatabaseURL {
		return "database.url", true
	}
	rest, ok := strings.CutPrefix(name, EnvPrefix)
	// MEMHOST_PLUGIN_* settings are passed to plugin processes (plugins.PluginEnvPrefix), not
	// host configuration.
	if !ok || strings.HasPrefix(rest, "PLUGIN_") || !strings.Contains(rest, "__") {
		return "", false
	}
	return strings.ToLower(strings.ReplaceAll(rest, "__", ".")), true
}

// loadFlags lays the changed flags over everything: those named after a key, then --set.
func (l *loader) loadFlags(fs *pflag.FlagSet) error {
	flagNames := map[string]string{} // key -> flag
	provider := posflag.ProviderWithFlag(fs, ".", l.k, func(f *pflag.Flag) (string, any) {
		key := strings.ReplaceAll(f.Name, "-", "_")
		if !isKnownKey(l.known, key) {
			return "", nil
		}
		flagNames[key] = f.Name
		return key, posflag.FlagVal(fs, f)
	})
	flagK := koanf.New(".")
	if err := flagK.Load(provider, nil); err != nil {
		return fmt.Errorf("load config from flags: %w", err)
	}
	if err := l.merge(flagK, func(key string) string { return "flag --" + flagNames[key] }); err != nil {
		return fmt.Errorf("merge config from flags: %w", err)
	}

	sets, err := fs.GetStringArray(SetFlag)
	if err != nil {
		return nil // no --set flag registered
	}
	setK := koanf.New(".")
	for _, s := range sets {
		key, value, ok := strings.Cut(s, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" {
			return fmt.Errorf("--%s %q: want KEY=VALUE", SetFlag, s)
		}
		var v any = value
		if slices.Contains(sliceKeys, key) {
			v = splitList(value)
		}
		if err := setK.Load(confmap.Provider(nest(key, v), ""), nil); err != nil {
			return fmt.Errorf("--%s %q: %w", SetFlag, s, err)
		}
	}
	if err := l.merge(setK, func(string) string { return "flag --" + SetFlag }); err != nil {
		return fmt.Errorf("merge config from --%s: %w", SetFlag, err)
	}
	return nil
}

// decode turns the merged layers into a Config. The user-keyed maps are taken out first and
// filled by hand, because koanf would split their names at every '.'.
func (l *loader) decode(path string) (*Config, error) {
	cfg := Default()
	cfg.settings = l.settings()
	entries := map[string]map[string]any{}
	for _, key := range mapKeys {
		if v := l.k.Get(key); v != nil {
			if _, ok := v.(map[string]any); !ok {
				return nil, fmt.Errorf("decode config: %s must be a table of name = value entries", key)
			}
		}
		entries[key] = l.k.Cut(key).All()
		l.k.Delete(key)
	}
	cfg.Workers, cfg.workerProblems = decodeWorkers(l.k.Cut(workersKey).All())
	l.k.Delete(workersKey)
	cfg.Embedders, cfg.embedderProblems = decodeEmbedders(l.k.Cut(embeddersKey).All())
	l.k.Delete(embeddersKey)
	if err := l.k.UnmarshalWithConf("", cfg, koanf.UnmarshalConf{Tag: "koanf"}); err != nil {
		return nil, fmt.Errorf("decode config: %w", err)
	}
	var errs []error
	cfg.Plugins.Checksums, errs = decodeMap("plugins.checksums", entries["plugins.checksums"], decodeString, errs)
	cfg.Embedder.FoldThresholds, errs = decodeMap("embedder.fold_thresholds", entries["embedder.fold_thresholds"], decodeFloat, errs)
	cfg.Embedder.VectorWeights, errs = decodeMap("embedder.vector_weights", entries["embedder.vector_weights"], decodeFloat, errs)
	cfg.Embedder.RelevanceFloors, errs = decodeMap("embedder.relevance_floors", entries["embedder.relevance_floors"], decodeFloat, errs)
	cfg.Ranking.HalfLifeDays, errs = decodeMap("ranking.half_life_days", entries["ranking.half_life_days"], decodeFloat, errs)
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("decode config: %w", err)
	}
	sort.Strings(l.unknown)
	cfg.unknownKeys = slices.Compact(l.unknown)
	cfg.path = path
	return cfg, nil
}

// settings lists every loaded value with its origin, sorted by key.
func (l *loader) settings() []Setting {
	var out []Setting
	for _, key := range l.k.Keys() {
		v := l.k.Get(key)
		if m, ok := v.(map[string]any); ok && len(m) == 0 {
			continue // an empty map of the defaults: nothing is set
		}
		origin := l.origins[key]
		if origin == "" {
			origin = "default"
		}
		out = append(out, Setting{Key: key, Value: render(key, v), Origin: origin})
	}
	return out
}

// mapKeyOf returns the map key key lies under.
func mapKeyOf(key string) string {
	for _, m := range mapKeys {
		if strings.HasPrefix(key, m+".") {
			return m
		}
	}
	return key
}

// parseEntries reads name=value,name=value (spaces around either are trimmed).
func parseEntries(s string) (map[string]any, error) {
	out := map[string]any{}
	for entry := range strings.SplitSeq(s, ",") {
		if strings.TrimSpace(entry) == "" {
			continue
		}
		name, value, ok := strings.Cut(entry, "=")
		if name = strings.TrimSpace(name); !ok || name == "" {
			return nil, fmt.Errorf("entry %q is not name=value", entry)
		}
		out[name] = strings.TrimSpace(value)
	}
	return out, nil
}

// nest turns a dotted key into nested maps around v, leaving a user-keyed map's name (which
// may contain dots) whole.
func nest(key string, v any) map[string]any {
	if m := mapKeyOf(key); m != key {
		v = map[string]any{strings.TrimPrefix(key, m+"."): v}
		key = m
	}
	parts := strings.Split(key, ".")
	out := map[string]any{parts[len(parts)-1]: v}
	for i := len(parts) - 2; i >= 0; i-- {
		out = map[string]any{parts[i]: out}
	}
	return out
}

func splitList(s string) []string {
	var parts []string
	for p := range strings.SplitSeq(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	return parts
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

func isKnownKey(known []string, key string) bool {
	if slices.Contains(known, key) || strings.HasPrefix(key, workersKey+".") || strings.HasPrefix(key, embeddersKey+".") {
		return true // decodeWorkers and decodeEmbedders judge their sections' keys
	}
	for _, m := range mapKeys {
		if strings.HasPrefix(key, m+".") {
			return true
		}
	}
	return false
}

// RegisterFlags adds the flags operators reach for most, named after their keys, with the
// built-in defaults shown in help, and --set for every other key.
func RegisterFlags(fs *pflag.FlagSet) {
	d := Default()
	fs.String("server.listen", d.Server.Listen, "HTTP listen address (host:port)")
	fs.String("database.url", d.Database.URL, "Postgres connection URL")
	fs.Int("database.max_conns", d.Database.MaxConns, "maximum Postgres connections")
	fs.StringSlice("plugins.dirs", d.Plugins.Dirs, "directories scanned for plugin binaries")
	fs.String("embedder.active", d.Embedder.Active, "embedder to use: auto (dense when configured and reachable, else BM25; never a downgrade), bm25, an [embedders.NAME] name, or a plugin's file or reported name")
	fs.String("log.level", d.Log.Level, "log level: debug, info, warn or error")
	fs.String("log.format", d.Log.Format, "log format: text or json")
	fs.StringArray(SetFlag, nil, "set any config key, KEY=VALUE (repeatable), e.g. --set embedder.fold_thresholds.bm25-v1-384=0.8")
}

// decodeMap decodes the entries of the map key into a typed map, adding an error naming the
// entry for each value that does not decode.
func decodeMap[V any](key string, entries map[string]any, decode func(any) (V, error), errs []error) (map[string]V, []error) {
	out := make(map[string]V, len(entries))
	for _, name := range slices.Sorted(maps.Keys(entries)) {
		v, err := decode(entries[name])
		if err != nil {
			errs = append(errs, fmt.Errorf("%s.%s: %w", key, name, err))
			continue
		}
		out[name] = v
	}
	return out, errs
}

func decodeString(v any) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	return "", fmt.Errorf("%v is not a string", v)
}

func decodeFloat(v any) (float64, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case int64:
		return float64(x), nil
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return 0, fmt.Errorf("%q is not a number", x)
		}
		return f, nil
	}
	return 0, fmt.Errorf("%v is not a number", v)
}
