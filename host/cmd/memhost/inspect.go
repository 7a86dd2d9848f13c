package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/migrate"
	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/host/internal/server"
	"github.com/memhost/memhost/host/internal/store/pgstore"
)

// readiness is the body of a running host's /readyz.
type readiness struct {
	Status   string           `json:"status"`
	Database string           `json:"database"`
	Embedder string           `json:"embedder"`
	Plugins  []plugins.Status `json:"plugins"`
}

// hostGet asks the running host (at server.listen) for path; ok is false when none answers.
func hostGet(ctx context.Context, cfg *config.Config, path, token string, into any) (ok bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+cfg.Server.Listen+path, nil)
	if err != nil {
		return false, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false, nil
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return true, err
	}
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		return true, fmt.Errorf("host refused the token: %s", body)
	}
	return true, json.Unmarshal(body, into)
}

func pluginsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "plugins",
		Short: "List plugins: kind, name, version, path, state (from the running host, else probed locally)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			var r readiness
			running, err := hostGet(cmd.Context(), cfg, "/readyz", "", &r)
			if err != nil {
				return err
			}
			list, source := r.Plugins, "running host at "+cfg.Server.Listen
			if !running {
				source = "probed locally (no host answers at " + cfg.Server.Listen + ")"
				if list, err = probePlugins(cmd.Context(), cfg); err != nil {
					return err
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "plugins: %s\n", source)
			printPlugins(cmd.OutOrStdout(), list)
			return nil
		},
	}
}

// probePlugins starts each discovered plugin, asks it to describe itself, and stops it.
func probePlugins(ctx context.Context, cfg *config.Config) ([]plugins.Status, error) {
	m := plugins.New(plugins.Config{CallTimeout: cfg.Plugins.CallTimeout, HealthInterval: -1})
	defer func() { _ = m.Shutdown(context.WithoutCancel(ctx)) }()
	cands, problems := plugins.Discover(cfg.Plugins.Dirs, cfg.Plugins.Checksums)
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, "skipped:", p)
	}
	_ = m.Start(ctx, cands)
	return m.List(), nil
}

func printPlugins(out io.Writer, list []plugins.Status) {
	w := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(w, "KIND\tNAME\tVERSION\tSTATE\tPID\tRESTARTS\tPATH\tLAST ERROR")
	for _, p := range list {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\n", p.Kind, p.Name, orDash(p.Version), p.State, p.PID, p.Restarts, p.Path, orDash(p.LastError))
	}
	_ = w.Flush()
}

func statusCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "status",
		Short: "Database, migrations, plugins and their health, active embedder, memory counts",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd, config.RequireDatabase)
			if err != nil {
				return err
			}
			token, _ := cmd.Flags().GetString("token")
			var s server.Status
			if token != "" {
				running, err := hostGet(cmd.Context(), cfg, "/api/v1/status", token, &s)
				if err != nil {
					return err
				}
				if running {
					printStatus(cmd.OutOrStdout(), s, "running host at "+cfg.Server.Listen)
					return nil
				}
			}
			s, source, err := localStatus(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			printStatus(cmd.OutOrStdout(), s, source)
			return nil
		},
	}
	c.Flags().String("token", os.Getenv("MEMHOST_TOKEN"), "bearer token for the running host's /api/v1/status (default $MEMHOST_TOKEN)")
	return c
}

// localStatus reads the database directly and the plugin states from the host's /readyz.
func localStatus(ctx context.Context, cfg *config.Config) (server.Status, string, error) {
	s := server.Status{Version: server.Version, Database: "ok"}
	pool, err := server.Connect(ctx, cfg)
	if err != nil {
		s.Database = err.Error()
		return s, "database only", nil
	}
	defer pool.Close()
	ms, err := migrate.List(ctx, pool)
	if err != nil {
		return s, "", err
	}
	for _, m := range ms {
		if m.AppliedAt != nil {
			s.Migrations.Applied++
			s.Migrations.Latest = m.Name
		} else {
			s.Migrations.Pending++
		}
	}
	if s.Memories, err = pgstore.New(pool).Counts(ctx); err != nil {
		return s, "", err
	}
	var r readiness
	running, err := hostGet(ctx, cfg, "/readyz", "", &r)
	if err != nil {
		return s, "", err
	}
	if !running {
		return s, "database (no host answers at " + cfg.Server.Listen + ")", nil
	}
	s.Plugins = r.Plugins
	s.Embedder.Name = r.Embedder
	for _, p := range r.Plugins {
		if p.Name == r.Embedder {
			s.Embedder.Dimensions, s.Embedder.State = p.Dimensions, string(p.State)
		}
	}
	return s, "database and the running host's /readyz", nil
}

func printStatus(out io.Writer, s server.Status, source string) {
	fmt.Fprintf(out, "memhost %s (status from %s)\n", s.Version, source)
	fmt.Fprintf(out, "database:    %s\n", s.Database)
	fmt.Fprintf(out, "migrations:  %d applied, %d pending (latest %s)\n", s.Migrations.Applied, s.Migrations.Pending, orDash(s.Migrations.Latest))
	if s.Embedder.Name != "" {
		fmt.Fprintf(out, "embedder:    %s (%d dims, %s)\n", s.Embedder.Name, s.Embedder.Dimensions, s.Embedder.State)
	}
	fmt.Fprintf(out, "memories:    %d live, %d archived, %d projects, %d global\n", s.Memories.Live, s.Memories.Archived, s.Memories.Projects, s.Memories.Global)
	for name, n := range s.Memories.ByEmbedder {
		fmt.Fprintf(out, "             %d embedded by %s\n", n, name)
	}
	if s.Memories.ANNDeferred > 0 {
		fmt.Fprintf(out, "             %d imported, waiting for the ANN index (exact search meanwhile)\n", s.Memories.ANNDeferred)
	}
	if len(s.Plugins) > 0 {
		fmt.Fprintln(out, "plugins:")
		printPlugins(out, s.Plugins)
	}
}
