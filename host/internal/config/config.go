package config

import (
	_ "embed"
	"time"
)

// Config is the host configuration. Keys are the koanf tags joined with dots.
type Config struct {
	Server   Server   `koanf:"server"`
	Database Database `koanf:"database"`
	Plugins  Plugins  `koanf:"plugins"`
	Embedder Embedder `koanf:"embedder"`
	Memory   Memory   `koanf:"memory"`
	Ranking  Ranking  `koanf:"ranking"`
	Auth     Auth     `koanf:"auth"`
	Log      Log      `koanf:"log"`
	Brain    Brain    `koanf:"brain"`
	Tasks    Tasks    `koanf:"tasks"`
	// Workers is the [workers] section, decoded by hand (decodeWorkers): its table names are
	// the operator's.
	Workers Workers `koanf:"-"`
	// Embedders are the [embedders.NAME] tables, decoded by hand (decodeEmbedders) like
	// [workers]: the dense endpoints, one plugin process each.
	Embedders map[string]Endpoint `koanf:"-"`

	Maintenance Maintenance `koanf:"maintenance"`

	// unknownKeys are keys found in the config file that no field accepts. Load records them
	// rather than failing so Validate can report them together with every other problem.
	unknownKeys []string
	// workerProblems are values in [workers] that did not decode, reported by Validate.
	workerProblems []Problem
	// embedderProblems are values in [embedders] that did not decode, reported by Validate.
	embedderProblems []Problem
	// path is the config file that was loaded, "" when none.
	path string
	// settings are the loaded values with their origins.
	settings []Setting
}

// Server configures the HTTP listener.
type Server struct {
	Listen          string        `koanf:"listen"`
	ReadTimeout     time.Duration `koanf:"read_timeout"`
	WriteTimeout    time.Duration `koanf:"write_timeout"`
	ShutdownTimeout time.Duration `koanf:"shutdown_timeout"`
}

// Database configures the Postgres store.
type Database struct {
	URL      string `koanf:"url"`
	MaxConns int    `koanf:"max_conns"`
}

// Plugins configures plugin discovery and supervision.
type Plugins struct {
	// Dirs are scanned for plugin binaries; relative entries are relative to the host's
	// working directory.
	Dirs []string `koanf:"dirs"`
	// Checksums maps a binary file name to its sha256 hex digest. When non-empty, only
	// listed binaries are loaded.
	Checksums         map[string]string `koanf:"checksums"`
	CallTimeout       time.Duration     `koanf:"call_timeout"`
	HealthInterval    time.Duration     `koanf:"health_interval"`
	RestartBackoffMax time.Duration     `koanf:"restart_backoff_max"`
}

// Embedder selects the active embedder and its fold thresholds.
type Embedder struct {
	// Active chooses the embedder: "auto" (the default, also when empty) tiers by
	// availability, upgrade-only: a configured and reachable dense endpoint, else the BM25
	// floor, and never a downgrade from dense vectors already stored. "bm25", the name of an
	// [embedders.NAME] table, or an embedder plugin's file or reported name choose explicitly.
	Active string `koanf:"active"`
	// FoldThresholds maps embedder name to the cosine similarity at or above which a write
	// folds into an existing memory. Negative disables folding for that embedder.
	FoldThresholds map[string]float64 `koanf:"fold_thresholds"`
	// VectorWeights maps embedder name to its vectors' share of search relevance (the lexical
	// score gets the rest); RelevanceFloors to the cosine at or below which its vectors say
	// nothing. `memhost embedder calibrate` measures both (docs/ranking.md).
	VectorWeights   map[string]float64 `koanf:"vector_weights"`
	RelevanceFloors map[string]float64 `koanf:"relevance_floors"`
}

// Memory bounds the write and search paths.
type Memory struct {
	MaxTextBytes   int `koanf:"max_text_bytes"`
	MergedFromMax  int `koanf:"merged_from_max"`
	SearchDefaultK int `koanf:"search_default_k"`
	SearchMaxK     int `koanf:"search_max_k"`
	CandidatePool  int `koanf:"candidate_pool"`
	// ANNEfSearch is the HNSW walk width of searches (pgvector's hnsw.ef_search) in graphs of
	// up to 16K memories: higher finds more of the exact nearest neighbours at some latency. A
	// larger graph is walked wider, its rows / 160 (at most 1000), so recall holds as it grows.
	ANNEfSearch int `koanf:"ann_ef_search"`
	// GraphMinRows is how many memories a project holds before it gets an HNSW graph of its
	// own; smaller projects are searched by an exact scan of their rows.
	GraphMinRows int `koanf:"graph_min_rows"`
	// IndexQuiet is how long the background indexer waits without a memory_store or
	// memory_search call before it moves rows into their graphs, a few at a time.
	IndexQuiet time.Duration `koanf:"index_quiet"`
	// IndexMaxWait bounds that wait: a host whose calls never pause that long starts moving
	// rows after it anyway, in small steps that leave the calls most of the CPU.
	IndexMaxWait time.Duration `koanf:"index_max_wait"`
	// BackgroundYield is how many times its own time background work (the indexer, the
	// re-embed job's batches) rests after each step while agents' calls are coming (one began
	// within IndexQuiet): 3 leaves them three quarters of the time; 0 never rests.
	BackgroundYield float64 `koanf:"background_yield"`
	// FlushWrites makes a memory write's commit wait until Postgres has flushed it to disk (the
	// default: every acknowledged write survives a crash). Off, an operator's opt-in trade, a
	// write is acknowledged once Postgres holds it: it survives a kill of the host, not a crash
	// of Postgres or the machine within the next 3 x wal_writer_delay (0.6 s by default).
	FlushWrites bool `koanf:"flush_writes"`
	// EmbedWait is how long a write waits for its vector before it is stored without it (the
	// vector follows within seconds); 0 waits as long as the embedder takes.
	EmbedWait time.Duration `koanf:"embed_wait"`
}

// Ranking tunes the single scorer.
type Ranking struct {
	// HalfLifeDays maps memory kind to the recency half-life in days.
	HalfLifeDays map[string]float64 `koanf:"half_life_days"`
}

// Auth tunes token-level limits. A rate of 0 disables its limit.
type Auth struct {
	// WriteRatePerMinute is the sustained writes per token per minute.
	WriteRatePerMinute float64 `koanf:"write_rate_per_minute"`
	WriteBurst         int     `koanf:"write_burst"`
	// ReadRatePerMinute is the sustained reads (searches, lists, gets, the brain's reads)
	// per token per minute: far above what an agent session asks, far below a loop.
	ReadRatePerMinute float64 `koanf:"read_rate_per_minute"`
	ReadBurst         int     `koanf:"read_burst"`
	// MapBuildRatePerMinute is how often per minute one token may have the host walk a
	// project directory to build its map (project_map with cwd), seconds of work each.
	MapBuildRatePerMinute float64 `koanf:"map_build_rate_per_minute"`
	MapBuildBurst         int     `koanf:"map_build_burst"`
}

// Brain tunes the project brain (goal, plan, journal, map, spawn banner).
type Brain struct {
	// MapMaxAge is the age after which a project map is stale: surfaces say so, and a host
	// that can see the project rebuilds it when asked for it.
	MapMaxAge time.Duration `koanf:"map_max_age"`
	// BannerBudget is the spawn banner's token budget when a request names none.
	BannerBudget int `koanf:"banner_budget"`
	// MaxPendingProposals bounds a project's proposals waiting for review; a proposal over it
	// is refused (REST 429) until an operator approves or rejects some.
	MaxPendingProposals int `koanf:"max_pending_proposals"`
	// QuietSession: a session under `memhost run`, or one the SessionEnd hook `memhost connect`
	// registered reports, that ends cleanly sooner is not journalled (nor summarised); 0
	// journals every session.
	QuietSession time.Duration `koanf:"quiet_session"`
	// PromptContext gives each session the facts relevant to its task: a "Relevant to this
	// task" banner section when memhost run knows the task, and context for each prompt
	// through the CLIs' prompt hooks. false: query-less banners, prompt hooks add nothing.
	PromptContext bool `koanf:"prompt_context"`
	// PromptFloor is the search score (0..1) a fact must reach to be given for a task or a
	// prompt (brain.DefaultTaskFloor, calibrated in docs/value.md).
	PromptFloor float64 `koanf:"prompt_floor"`
}

// Tasks bounds the LLM tasks run through the workers. Each task kind has these budgets of
// its own: a run over the run budget is cut off, and a kind that has spent its daily budget
// waits (its tasks are refused, visibly in `memhost workers`) until the 24-hour window has
// room again.
type Tasks struct {
	// RunTokens is one run's token budget (input and output), what the worker is told.
	RunTokens int `koanf:"run_tokens"`
	// RunTimeout is one run's wall time across its whole chain, fallbacks included.
	RunTimeout time.Duration `koanf:"run_timeout"`
	// DailyTokens is what one task kind may spend in 24 hours; 0 is no limit.
	DailyTokens int `koanf:"daily_tokens"`
	// DailyTime is the worker time one task kind may use in 24 hours; 0 is no limit.
	DailyTime time.Duration `koanf:"daily_time"`
}

// Log configures logging.
type Log struct {
	Level  string `koanf:"level"`
	Format string `koanf:"format"`
}

// Kinds are the memory kinds the ranker knows half-lives for.
var Kinds = []string{"fact", "decision", "convention", "preference", "gotcha", "error_pattern", "reference"}

// Default returns the built-in configuration.
func Default() *Config {
	return &Config{
		Server: Server{
			Listen:          "127.0.0.1:7420",
			ReadTimeout:     30 * time.Second,
			WriteTimeout:    60 * time.Second,
			ShutdownTimeout: 15 * time.Second,
		},
		Database: Database{MaxConns: 20},
		Plugins: Plugins{
			Dirs:              []string{"bin/plugins"},
			Checksums:         map[string]string{},
			CallTimeout:       10 * time.Second,
			HealthInterval:    15 * time.Second,
			RestartBackoffMax: 30 * time.Second,
		},
		Embedder: Embedder{Active: ActiveAuto, FoldThresholds: map[string]float64{}, VectorWeights: map[string]float64{},
			RelevanceFloors: map[string]float64{}},
		Embedders: map[string]Endpoint{},
		Memory: Memory{
			MaxTextBytes:    16384,
			MergedFromMax:   20,
			SearchDefaultK:  10,
			SearchMaxK:      100,
			CandidatePool:   100,
			ANNEfSearch:     100,
			GraphMinRows:    1000,
			IndexQuiet:      250 * time.Millisecond,
			IndexMaxWait:    10 * time.Second,
			BackgroundYield: 3,
			FlushWrites:     true,
			EmbedWait:       10 * time.Millisecond, // memory.DefaultEmbedWait
		},
		Ranking: Ranking{HalfLifeDays: map[string]float64{
			"fact":          180,
			"decision":      365,
			"convention":    365,
			"preference":    365,
			"gotcha":        120,
			"error_pattern": 90,
			"reference":     365,
		}},
		Auth: Auth{WriteRatePerMinute: 600, WriteBurst: 60, ReadRatePerMinute: 1200, ReadBurst: 200,
			MapBuildRatePerMinute: 1, MapBuildBurst: 3},
		Log:     Log{Level: "info", Format: "text"},
		Tasks:   Tasks{RunTokens: 16000, RunTimeout: 3 * time.Minute, DailyTokens: 2_000_000, DailyTime: 4 * time.Hour},
		Workers: Workers{Defined: map[string]Worker{}, Chains: map[string][]string{}},
		Brain: Brain{MapMaxAge: 24 * time.Hour, BannerBudget: 2000, MaxPendingProposals: 100, QuietSession: 30 * time.Second,
			PromptContext: true, PromptFloor: 0.40},

		Maintenance: defaultMaintenance(),
	}
}

// Path returns the config file that was loaded, or "" when none was.
func (c *Config) Path() string { return c.path }

//go:embed memhost.example.toml
var example string

// Example returns memhost.example.toml: every key with its default and a comment saying
// what it does. It loads and validates cleanly.
func Example() string { return example }
