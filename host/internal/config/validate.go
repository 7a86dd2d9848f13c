package config

import (
	"encoding/hex"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Problem is one thing wrong with a configuration.
type Problem struct {
	// Key is the dotted key, e.g. "memory.max_text_bytes".
	Key string
	// Message says what is wrong and what is allowed.
	Message string
}

func (p Problem) String() string { return p.Key + ": " + p.Message }

// Problems turns a non-empty problem list into one error, for callers that just stop.
type Problems []Problem

func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return "invalid configuration:\n  " + strings.Join(lines, "\n  ")
}

// ValidateOption adds checks that only some callers need.
type ValidateOption func(*validator)

// RequireDatabase makes an empty database.url a problem: serve and token commands need one;
// printing the example config does not.
var RequireDatabase ValidateOption = func(v *validator) { v.requireDatabase = true }

// RefuseSecrets makes a setting that must name an environment variable (api_key_env) a
// problem when isSecret recognises its value as a secret: a key pasted where its variable's
// name belongs. Such a value is a valid variable name (ghp_..., AKIA...), so only a secret
// detector tells them apart; config imports nothing of the host, so the caller brings it
// (core/redact's). The problem never quotes the value.
func RefuseSecrets(isSecret func(string) bool) ValidateOption {
	return func(v *validator) { v.isSecret = isSecret }
}

var (
	logLevels  = []string{"debug", "info", "warn", "error"}
	logFormats = []string{"text", "json"}
)

// Validate reports every problem in c, sorted by key. An empty result means c is usable.
func (c *Config) Validate(opts ...ValidateOption) []Problem {
	v := &validator{}
	for _, o := range opts {
		o(v)
	}
	for _, key := range c.unknownKeys {
		v.add(key, "unknown key")
	}

	if _, port, err := net.SplitHostPort(c.Server.Listen); err != nil {
		v.add("server.listen", fmt.Sprintf("%q is not host:port", c.Server.Listen))
	} else if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		v.add("server.listen", fmt.Sprintf("%q has port %q, want 0..65535", c.Server.Listen, port))
	}
	v.duration("server.read_timeout", c.Server.ReadTimeout, 0, time.Hour)
	v.duration("server.write_timeout", c.Server.WriteTimeout, 0, time.Hour)
	v.duration("server.shutdown_timeout", c.Server.ShutdownTimeout, time.Second, 10*time.Minute)

	switch {
	case c.Database.URL == "" && v.requireDatabase:
		v.add("database.url", "is required (set it in the config file, MEMHOST_DATABASE_URL or --database.url)")
	case c.Database.URL != "":
		// pgconn's own parser decides, so we accept exactly what the pool will. Its error is
		// not echoed: it can quote the connection string, password included.
		if _, err := pgconn.ParseConfig(c.Database.URL); err != nil {
			v.add("database.url", "is not a valid Postgres connection string (postgres://user@host:5432/db?sslmode=...)")
		}
	}
	v.intRange("database.max_conns", c.Database.MaxConns, 1, 200)

	if len(c.Plugins.Dirs) == 0 {
		v.add("plugins.dirs", "must list at least one directory")
	}
	for i, d := range c.Plugins.Dirs {
		if strings.TrimSpace(d) == "" {
			v.add(fmt.Sprintf("plugins.dirs[%d]", i), "is empty")
		}
	}
	for _, name := range sortedKeys(c.Plugins.Checksums) {
		key := "plugins.checksums." + name
		if name != filepath.Base(name) || strings.ContainsAny(name, `/\`) {
			v.add(key, "must be a binary file name, not a path")
		}
		sum := c.Plugins.Checksums[name]
		if b, err := hex.DecodeString(sum); err != nil || len(b) != 32 {
			v.add(key, fmt.Sprintf("%q is not a sha256 hex digest (64 hex characters)", sum))
		}
	}
	v.duration("plugins.call_timeout", c.Plugins.CallTimeout, 100*time.Millisecond, 5*time.Minute)
	v.duration("plugins.health_interval", c.Plugins.HealthInterval, time.Second, time.Hour)
	v.duration("plugins.restart_backoff_max", c.Plugins.RestartBackoffMax, time.Second, time.Hour)

	for _, name := range sortedKeys(c.Embedder.FoldThresholds) {
		v.floatRange("embedder.fold_thresholds."+name, c.Embedder.FoldThresholds[name], -1, 1)
	}
	for _, name := range sortedKeys(c.Embedder.VectorWeights) {
		v.floatRange("embedder.vector_weights."+name, c.Embedder.VectorWeights[name], 0, 1)
	}
	for _, name := range sortedKeys(c.Embedder.RelevanceFloors) {
		v.floatRange("embedder.relevance_floors."+name, c.Embedder.RelevanceFloors[name], 0, 0.99)
	}

	v.intRange("memory.max_text_bytes", c.Memory.MaxTextBytes, 16, 1048576)
	v.intRange("memory.merged_from_max", c.Memory.MergedFromMax, 0, 1000)
	v.intRange("memory.search_max_k", c.Memory.SearchMaxK, 1, 1000)
	v.intRange("memory.search_default_k", c.Memory.SearchDefaultK, 1, max(c.Memory.SearchMaxK, 1))
	// The pool must hold at least a full page of results or search_max_k could not be met.
	v.intRange("memory.candidate_pool", c.Memory.CandidatePool, max(c.Memory.SearchMaxK, 1), 5000)
	v.intRange("memory.ann_ef_search", c.Memory.ANNEfSearch, 10, 1000)
	v.intRange("memory.graph_min_rows", c.Memory.GraphMinRows, 100, 10000000)
	v.duration("memory.index_quiet", c.Memory.IndexQuiet, 0, time.Minute)
	v.duration("memory.index_max_wait", c.Memory.IndexMaxWait, time.Second, time.Hour)
	v.floatRange("memory.background_yield", c.Memory.BackgroundYield, 0, 100)
	v.duration("memory.embed_wait", c.Memory.EmbedWait, 0, 10*time.Second)

	for _, kind := range sortedKeys(c.Ranking.HalfLifeDays) {
		key := "ranking.half_life_days." + kind
		if !slices.Contains(Kinds, kind) {
			v.add(key, fmt.Sprintf("unknown memory kind (valid: %s)", strings.Join(Kinds, ", ")))
			continue
		}
		v.floatRange(key, c.Ranking.HalfLifeDays[kind], 1, 36500)
	}

	v.floatRange("auth.write_rate_per_minute", c.Auth.WriteRatePerMinute, 0, 1e6)
	v.intRange("auth.write_burst", c.Auth.WriteBurst, 1, 1000000)
	v.floatRange("auth.read_rate_per_minute", c.Auth.ReadRatePerMinute, 0, 1e6)
	v.intRange("auth.read_burst", c.Auth.ReadBurst, 1, 1000000)
	v.floatRange("auth.map_build_rate_per_minute", c.Auth.MapBuildRatePerMinute, 0, 1e6)
	v.intRange("auth.map_build_burst", c.Auth.MapBuildBurst, 1, 1000000)

	v.duration("brain.map_max_age", c.Brain.MapMaxAge, time.Minute, 365*24*time.Hour)
	v.intRange("brain.banner_budget", c.Brain.BannerBudget, 300, 32000)
	v.intRange("brain.max_pending_proposals", c.Brain.MaxPendingProposals, 1, 500) // 500: brain.MaxInbox
	v.duration("brain.quiet_session", c.Brain.QuietSession, 0, 24*time.Hour)
	v.floatRange("brain.prompt_floor", c.Brain.PromptFloor, 0, 1)

	v.problems = append(v.problems, c.workerProblems...)
	v.validateWorkers(c.Workers)
	v.problems = append(v.problems, c.embedderProblems...)
	v.validateEmbedders(c.Embedders)
	v.intRange("tasks.run_tokens", c.Tasks.RunTokens, 256, 1_000_000)
	v.duration("tasks.run_timeout", c.Tasks.RunTimeout, time.Second, time.Hour)
	v.intRange("tasks.daily_tokens", c.Tasks.DailyTokens, 0, 1_000_000_000)
	v.duration("tasks.daily_time", c.Tasks.DailyTime, 0, 24*time.Hour)
	c.Maintenance.validate(v)

	if !slices.Contains(logLevels, c.Log.Level) {
		v.add("log.level", fmt.Sprintf("%q is not one of %s", c.Log.Level, strings.Join(logLevels, ", ")))
	}
	if !slices.Contains(logFormats, c.Log.Format) {
		v.add("log.format", fmt.Sprintf("%q is not one of %s", c.Log.Format, strings.Join(logFormats, ", ")))
	}

	sort.SliceStable(v.problems, func(i, j int) bool { return v.problems[i].Key < v.problems[j].Key })
	return v.problems
}

type validator struct {
	problems        []Problem
	requireDatabase bool
	isSecret        func(string) bool // nil: no secret detector (RefuseSecrets)
}

func (v *validator) add(key, msg string) {
	v.problems = append(v.problems, Problem{Key: key, Message: msg})
}

func (v *validator) intRange(key string, n, lo, hi int) {
	if n < lo || n > hi {
		v.add(key, fmt.Sprintf("%d is out of range %d..%d", n, lo, hi))
	}
}

func (v *validator) floatRange(key string, f, lo, hi float64) {
	if f != f || f < lo || f > hi { // f != f catches NaN, which fails every comparison
		v.add(key, fmt.Sprintf("%g is out of range %g..%g", f, lo, hi))
	}
}

func (v *validator) duration(key string, d, lo, hi time.Duration) {
	if d < lo || d > hi {
		v.add(key, fmt.Sprintf("%s is out of range %s..%s", d, lo, hi))
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
