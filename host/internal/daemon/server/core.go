package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/hashicorp/go-hclog"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/memhost/memhost/host/internal/api/access"
	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/redact"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/daemon/migrate"
	"github.com/memhost/memhost/host/internal/jobs/maintenance"
	"github.com/memhost/memhost/host/internal/jobs/pace"
	"github.com/memhost/memhost/host/internal/jobs/tasks"
	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/host/internal/plugins/embedders"
)

// followInterval is how often a host polls the change feed for other hosts' writes.
const followInterval = 500 * time.Millisecond

// Core is everything but the network listener: the database, plugins, the lexical index and
// the memory service. `memhost serve` wraps it in HTTP; `memhost mcp` serves it over stdio.
type Core struct {
	Config   *config.Config
	Log      *slog.Logger
	Pool     *pgxpool.Pool
	Store    *pgstore.Store
	Index    *lexical.Index
	Follower *lexical.Follower
	Plugins  *plugins.Supervisor
	// Embedder is the one owner of which embedder serves (embedder.active, auto tiering).
	Embedder *ActiveEmbedder
	Service  *memory.Service
	Brain    *brain.Service // the project brain: documents, proposals, journal, map, banner
	Tokens   *auth.Tokens
	Door     *access.Door // the one front door every surface authenticates and resolves through
	Limits   auth.Limits
	Registry *prometheus.Registry
	// Tasks runs LLM tasks through the workers; nil until StartWorkers.
	Tasks *tasks.Runner
	// Maintenance runs the self-maintenance jobs; its River client runs with Background.
	Maintenance *maintenance.Maintenance
	// Reembed is the maintenance job converging the memories on the active embedder's vectors.
	Reembed *maintenance.Reembed
	// Pacer spaces background work (the indexer, the re-embed job) while agents are calling.
	Pacer *pace.Pacer

	// embedders yields the active embedder to writes, searches and the re-embed job alike.
	embedders memory.EmbedderSource

	// LoadConfig re-reads the configuration from the sources boot read, for Reload; nil means
	// the host cannot reload.
	LoadConfig func(context.Context) (*config.Config, error)

	annIndexed prometheus.Counter // rows the background indexer moved into the ANN index
	reloadMu   sync.Mutex         // one reload at a time
}

// Open connects, migrates (fail-closed), starts plugins, ensures the active embedder's vector
// index and rebuilds the lexical index.
func Open(ctx context.Context, cfg *config.Config, log *slog.Logger) (c *Core, err error) {
	c = &Core{Config: cfg, Log: log, Registry: prometheus.NewRegistry()}
	defer func() {
		if err != nil {
			c.Close(context.WithoutCancel(ctx))
		}
	}()
	c.annIndexed = prometheus.NewCounter(prometheus.CounterOpts{Name: "memhost_ann_deferred_indexed_total",
		Help: "Bulk-imported memories this host moved into the ANN index."})
	c.Registry.MustRegister(prometheus.NewGoCollector(), prometheus.NewProcessCollector(prometheus.ProcessCollectorOpts{}), c.annIndexed)

	if c.Pool, err = Connect(ctx, cfg); err != nil {
		return c, err
	}
	applied, err := migrate.Up(ctx, c.Pool)
	if err != nil {
		return c, fmt.Errorf("apply migrations: %w", err)
	}
	for _, m := range applied {
		log.Info("applied migration", "name", m.Name)
	}
	c.Store = pgstore.New(c.Pool, pgstore.WithEfSearch(cfg.Memory.ANNEfSearch), pgstore.WithGraphMinRows(cfg.Memory.GraphMinRows),
		pgstore.WithFlushedWrites(cfg.Memory.FlushWrites))

	c.Plugins = plugins.New(plugins.Config{
		Adapters:    []plugins.Adapter{embedders.Adapter{}},
		CallTimeout: cfg.Plugins.CallTimeout, HealthInterval: cfg.Plugins.HealthInterval,
		RestartBackoffMax: cfg.Plugins.RestartBackoffMax, Registerer: c.Registry,
		Logger: hclog.New(&hclog.LoggerOptions{Level: hclog.LevelFromString(cfg.Log.Level)}),
	})
	candidates, problems := plugins.Discover(cfg.Plugins.Dirs, cfg.Plugins.Checksums)
	for _, p := range problems {
		log.Warn("plugin skipped", "err", p)
	}
	// Provider plugins in the same folder are `memhost run`'s, not the daemon's; embedders run
	// once per [embedders.NAME] table and as found.
	candidates, missing := EmbedderCandidates(cfg, candidates, os.LookupEnv)
	for name, why := range missing {
		log.Warn("embedder not started", "embedder", name, "reason", why)
	}
	if err := c.Plugins.Start(ctx, candidates); err != nil {
		log.Warn("some plugins failed to start", "err", err)
	}
	stored, err := c.Store.EmbeddersWithVectors(ctx)
	if err != nil {
		return c, err
	}
	if c.Embedder, err = ChooseEmbedder(ctx, c.Plugins, cfg, stored, log); err != nil {
		return c, err
	}
	es := c.Embedder.Status(cfg.Embedder.FoldThresholds)
	log.Info("active embedder", "name", es.Name, "dimensions", es.Dimensions, "configured", es.Configured, "tier", es.Tier, "why", es.Reason)
	if es.Degraded != "" {
		log.Warn("embedder degraded", "why", es.Degraded)
	}

	c.Index = lexical.New()
	c.Follower = lexical.NewFollower(c.Store, c.Index, followInterval)
	start := time.Now()
	n, err := c.Follower.CatchUp(ctx)
	if err != nil {
		return c, err
	}
	log.Info("lexical index rebuilt", "changes", n, "took", time.Since(start).Round(time.Millisecond))

	redactor, err := redact.New()
	if err != nil {
		return c, fmt.Errorf("build secret redactor: %w", err)
	}
	c.embedders = c.Embedder
	c.Service = memory.New(c.Store, c.Index, c.embedders, func(text string) (string, int) {
		out, findings := redactor.Redact(text)
		return out, len(findings)
	}, serviceConfig(cfg), memory.WithMetrics(memory.NewMetrics(c.Registry)),
		memory.WithErrorHandler(func(err error) { log.Warn("background error", "err", err) }), c.gatekeeper(cfg))
	// At boot, not on the first request: rebuilding an index built with other parameters takes
	// seconds per 100K vectors, and no request should wait for it.
	start = time.Now()
	if err := c.Service.Prepare(ctx); err != nil && !errors.Is(err, rules.ErrUnavailable) {
		return c, err
	} else if err != nil {
		// The dense embedder the stored vectors need has not started: the host serves
		// (search lexically), and the first request after it starts builds the index.
		log.Warn("vector index not prepared", "err", err)
	}
	log.Info("vector index ready", "embedder", es.Name, "took", time.Since(start).Round(time.Millisecond))
	c.Pacer = &pace.Pacer{LastCall: c.Service.LastCall, Quiet: cfg.Memory.IndexQuiet, Yield: cfg.Memory.BackgroundYield}
	c.Brain = brain.New(c.Store, c.Service, brainConfig(cfg), brain.WithSummarizer(coreSummarizer{c}),
		brain.WithConflictChecks(c.conflictChecks(cfg.Maintenance.Conflicts)), brain.WithMetrics(brain.NewMetrics(c.Registry)))
	if err := c.openMaintenance(cfg); err != nil {
		return c, err
	}
	c.Tokens = auth.NewTokens(c.Pool)
	c.Door = access.NewDoor(c.Tokens)
	c.Limits = auth.Limits{
		Reads:     auth.NewLimiter("reads", cfg.Auth.ReadRatePerMinute, cfg.Auth.ReadBurst),
		Writes:    auth.NewLimiter("writes", cfg.Auth.WriteRatePerMinute, cfg.Auth.WriteBurst),
		MapBuilds: auth.NewLimiter("map builds", cfg.Auth.MapBuildRatePerMinute, cfg.Auth.MapBuildBurst),
	}
	return c, nil
}

// poolPingIdle is how long a pooled connection may sit idle before it is pinged on acquire.
const poolPingIdle = 30 * time.Second

// Connect opens the pool and checks the database answers.
func Connect(ctx context.Context, cfg *config.Config) (*pgxpool.Pool, error) {
	pc, err := pgxpool.ParseConfig(cfg.Database.URL)
	if err != nil {
		return nil, fmt.Errorf("database.url: %w", err)
	}
	pc.MaxConns = int32(cfg.Database.MaxConns)
	// pgxpool pings a connection idle for over a second before lending it, a round trip an
	// agent's occasional call would pay on every acquire (a search takes three). The pool's
	// health check already tests idle connections every minute; a ping after 30 s idle still
	// catches most connections a database restart broke before a request meets one.
	pc.ShouldPing = func(_ context.Context, p pgxpool.ShouldPingParams) bool { return p.IdleDuration > poolPingIdle }
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(pingCtx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	return pool, nil
}

func serviceConfig(cfg *config.Config) memory.Config {
	mc := memory.DefaultConfig()
	mc.MaxTextBytes = cfg.Memory.MaxTextBytes
	mc.MergedFromMax = cfg.Memory.MergedFromMax
	mc.DefaultK = cfg.Memory.SearchDefaultK
	mc.MaxK = cfg.Memory.SearchMaxK
	mc.CandidatePool = cfg.Memory.CandidatePool
	mc.EmbedWait = cfg.Memory.EmbedWait
	mc.FoldThresholds = cfg.Embedder.FoldThresholds
	mc.VectorWeights, mc.RelevanceFloors = cfg.Embedder.VectorWeights, cfg.Embedder.RelevanceFloors
	for k, days := range cfg.Ranking.HalfLifeDays {
		mc.HalfLives[store.Kind(k)] = time.Duration(days * float64(24*time.Hour))
	}
	return mc
}

func brainConfig(cfg *config.Config) brain.Config {
	bc := brain.DefaultConfig()
	bc.MapMaxAge = cfg.Brain.MapMaxAge
	bc.Banner.Budget = cfg.Brain.BannerBudget
	bc.MaxPendingProposals = cfg.Brain.MaxPendingProposals
	bc.TaskContext, bc.TaskFloor = cfg.Brain.PromptContext, cfg.Brain.PromptFloor
	return bc
}

// Close releases everything Open acquired; plugin processes are killed.
func (c *Core) Close(ctx context.Context) {
	if c.Tasks != nil {
		if err := c.Tasks.Close(ctx); err != nil {
			c.Log.Warn("worker shutdown", "err", err)
		}
	}
	if c.Plugins != nil {
		c.Plugins.Shutdown(ctx)
	}
	if c.Pool != nil {
		c.Pool.Close()
	}
}
