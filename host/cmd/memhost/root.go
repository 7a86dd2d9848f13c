package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/daemon/server"
)

func rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "memhost",
		Short:         "One shared, self-maintaining project memory for every AI coding-agent CLI",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       server.BuildInfo(),
	}
	root.SetVersionTemplate("memhost {{.Version}}\n")
	help := root.HelpFunc()
	root.SetHelpFunc(func(cmd *cobra.Command, args []string) {
		showConfigured(cmd)
		help(cmd, args)
	})
	root.PersistentFlags().String("config", "", "config file (default $MEMHOST_CONFIG, else ./.memhost/memhost.toml if present)")
	config.RegisterFlags(root.PersistentFlags())
	root.AddCommand(serveCmd(), migrateCmd(), tokenCmd(), pluginsCmd(), configCmd(), statusCmd(), mcpCmd(), exportCmd(), importCmd(), projectCmd(), bannerCmd(), importCLICmd(), memoryCmd(), projectsCmd(), workersCmd(), maintenanceCmd(), reembedCmd())
	root.AddCommand(runCmd(), connectCmd(), hookCmd())
	root.AddCommand(reloadCmd(), consoleCmd())
	root.AddCommand(versionCmd(), upCmd(), stopCmd(), serviceCmd(), uninstallCmd())
	return root
}

// showConfigured makes --help describe the configuration in effect (--config, $MEMHOST_CONFIG,
// ./.memhost/memhost.toml, MEMHOST_* variables): each setting's flag shows its configured value
// as its default, and --host the URL it defaults to. A configuration that does not load leaves
// the built-in defaults: help must always print.
func showConfigured(cmd *cobra.Command) {
	path, _ := cmd.Flags().GetString("config")
	cfg, err := config.Load(cmd.Context(), config.LoadOptions{ConfigPath: path, Flags: cmd.Flags()})
	if err != nil {
		return
	}
	for name, v := range cfg.FlagValues() {
		if f := cmd.Flags().Lookup(name); f != nil {
			f.DefValue = v
		}
	}
	if f := cmd.Flags().Lookup("host"); f != nil {
		f.Usage = strings.Replace(f.Usage, "http://<server.listen>", "http://"+dialable(cfg.Server.Listen)+", from server.listen", 1)
	}
}

// loadConfig reads and validates the configuration for cmd. The commands that start the
// embedder or worker plugins it names (serve, those that open the core in-process, plugins,
// config check) pass server.RefuseSecrets too: a key pasted into api_key_env would reach a
// plugin's environment and its log. The spawn path's commands (run, hook, mcp) start none of
// them and do not pay the secret detector's ~25 ms.
func loadConfig(cmd *cobra.Command, opts ...config.ValidateOption) (*config.Config, error) {
	path, _ := cmd.Flags().GetString("config")
	cfg, err := config.Load(cmd.Context(), config.LoadOptions{ConfigPath: path, Flags: cmd.Flags()})
	if err != nil {
		return nil, err
	}
	if problems := cfg.Validate(opts...); len(problems) > 0 {
		if hint := configHint(cfg); hint != "" {
			return nil, fmt.Errorf("%w\n%s", config.Problems(problems), hint)
		}
		return nil, config.Problems(problems)
	}
	return cfg, nil
}

func newLogger(cfg *config.Config) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(strings.ToUpper(cfg.Log.Level)))
	opts := &slog.HandlerOptions{Level: level}
	if cfg.Log.Format == "json" {
		return slog.New(slog.NewJSONHandler(os.Stderr, opts))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, opts))
}

// openPool loads the configuration and connects, for commands that only need the database.
func openPool(cmd *cobra.Command) (*config.Config, *pgxpool.Pool, error) {
	cfg, err := loadConfig(cmd, config.RequireDatabase)
	if err != nil {
		return nil, nil, err
	}
	pool, err := server.Connect(cmd.Context(), cfg)
	return cfg, pool, err
}

func serveCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "serve",
		Short: "Run the host: MCP at /mcp, REST at /api/v1, plugins supervised",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd, config.RequireDatabase, server.RefuseSecrets())
			if err != nil {
				return err
			}
			log := newLogger(cfg)
			core, err := server.Open(cmd.Context(), cfg, log)
			if err != nil {
				return err
			}
			core.LoadConfig = func(ctx context.Context) (*config.Config, error) {
				path, _ := cmd.Flags().GetString("config")
				return config.Load(ctx, config.LoadOptions{ConfigPath: path, Flags: cmd.Flags()})
			}
			stop := reloadOnHangup(cmd.Context(), core)
			defer stop()
			return core.Serve(cmd.Context())
		},
	}
}
