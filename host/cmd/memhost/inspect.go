package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/client/hostclient"
	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/core/rules"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/daemon/migrate"
	"github.com/memhost/memhost/host/internal/daemon/server"
	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/host/internal/plugins/embedders"
	"github.com/memhost/memhost/host/internal/plugins/providers"
)

// readiness is what the CLI reads from a running host's unauthenticated /readyz: states only.
type readiness struct {
	Status   string `json:"status"`
	Database string `json:"database"`
	// Embedder is the active embedder's state; Active its name.
	Embedder   string           `json:"embedder"`
	Active     string           `json:"active_embedder"`
	ActiveWhy  string           `json:"active_embedder_reason"`
	Configured string           `json:"configured_embedder"`
	Plugins    []plugins.Status `json:"plugins"` // kind, name and state
}

// hostGet asks the running host (at server.listen) for path; ok is false when none answers.
func hostGet(ctx context.Context, cfg *config.Config, path, token string, into any) (ok bool, err error) {
	status, body, err := (&hostclient.Client{URL: "http://" + cfg.Server.Listen}).Call(ctx, http.MethodGet, path, token, nil)
	if err != nil {
		return false, nil
	}
	if status == http.StatusUnauthorized || status == http.StatusForbidden {
		return true, fmt.Errorf("host refused the token: %s", body)
	}
	return true, json.Unmarshal(body, into)
}

func pluginsCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "plugins",
		Short: "List plugins: kind, name, version, state, last error (from the running host, else probed locally)",
		Long: `List plugins. From a running host: every detail with an admin token (--token or
MEMHOST_TOKEN), else only kinds, names and states (its unauthenticated /readyz). With no host
answering, each discovered plugin is launched once, asked who it is, and stopped.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd, server.RefuseSecrets())
			if err != nil {
				return err
			}
			token, _ := cmd.Flags().GetString("token")
			list, es, source, statesOnly, err := hostPlugins(cmd.Context(), cfg, token)
			if err != nil {
				return err
			}
			// The host supervises embedders (and, in its full status, workers); providers start
			// with each memhost run, so they (and, with no host, embedders too) are probed here.
			kinds := []string{"provider"}
			local := source == ""
			if local {
				source = "probed locally (no host answers at " + cfg.Server.Listen + ")"
				kinds = append(kinds, "embedder")
			} else {
				source += "; providers probed locally"
			}
			sup, found, skipped := probe(cmd.Context(), cfg, kinds...)
			defer func() { _ = sup.Shutdown(context.WithoutCancel(cmd.Context())) }()
			for _, p := range skipped {
				fmt.Fprintln(cmd.ErrOrStderr(), "skipped:", plugins.OneLine(p.Error(), 300))
			}
			list = append(list, sup.List()...)
			if !statesOnly {
				// /readyz names no paths, so what the host runs cannot be told from what it
				// does not: nothing is listed as idle then.
				list = append(list, idlePlugins(found, list)...)
			}
			if local {
				// The choice as boot would make it before any vector is stored.
				if a, err := server.ChooseEmbedder(cmd.Context(), sup, cfg, nil, slog.New(slog.DiscardHandler)); err != nil {
					es = server.EmbedderStatus{Configured: cfg.Embedder.Active, Reason: err.Error()}
				} else {
					es = a.Status(cfg.Embedder.FoldThresholds)
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "plugins: %s\n", source)
			printPlugins(cmd.OutOrStdout(), list)
			if statesOnly {
				fmt.Fprintln(cmd.OutOrStdout(), adminHint)
			}
			printEmbedder(cmd.OutOrStdout(), es)
			return nil
		},
	}
	c.Flags().String("token", os.Getenv("MEMHOST_TOKEN"), "admin token for the running host's full plugin status (default $MEMHOST_TOKEN)")
	return c
}

// adminHint is what a command that read only /readyz says about what it could not see.
const adminHint = "the host's embedder states only: pass an admin token (--token or MEMHOST_TOKEN) to see the host's plugins, its workers and why any is not ready"

// hostPlugins asks the running host for its plugins and its embedder choice: the full list
// from /api/v1/status when token is an admin's, else the embedders' states from /readyz
// (statesOnly). source is "" when no host answers.
func hostPlugins(ctx context.Context, cfg *config.Config, token string) (list []plugins.Status, es server.EmbedderStatus, source string, statesOnly bool, err error) {
	source = "running host at " + cfg.Server.Listen
	if token != "" {
		var s server.Status
		running, err := hostGet(ctx, cfg, "/api/v1/status", token, &s)
		if err != nil {
			return nil, es, "", false, err
		}
		if running && len(s.Plugins) > 0 {
			return s.Plugins, s.Embedder, source, false, nil
		}
	}
	var r readiness
	running, err := hostGet(ctx, cfg, "/readyz", "", &r)
	if err != nil || !running {
		return nil, es, "", false, err
	}
	es = server.EmbedderStatus{Name: r.Active, State: r.Embedder, Reason: r.ActiveWhy, Configured: r.Configured}
	return r.Plugins, es, source + " (states only)", true, nil
}

// printEmbedder says which embedder serves, what was configured and why.
func printEmbedder(out io.Writer, es server.EmbedderStatus) {
	name := es.Name
	if name == "" {
		name = "none"
	}
	fmt.Fprintf(out, "embedder:    %s (configured: %s)\n", cell(name), cell(es.Configured))
	if es.Reason != "" {
		fmt.Fprintf(out, "             %s\n", plugins.OneLine(printable(es.Reason), maxStatusLine))
	}
	if es.Degraded != "" {
		fmt.Fprintf(out, "  degraded:  %s\n", plugins.OneLine(printable(es.Degraded), maxStatusLine))
	}
	if es.Waiting != "" {
		fmt.Fprintf(out, "  waiting:   %s\n", plugins.OneLine(printable(es.Waiting), maxStatusLine))
	}
}

// maxStatusLine bounds the embedder's reason, degraded and waiting lines: whole enough for a
// plugin's advice, which follows what it saw.
const maxStatusLine = 800

// probe launches the plugins of the given kinds (embedders and providers when none: workers
// need their configured settings) where their user looks for them: providers where memhost
// run does (pluginDirs: plugins.dirs, then the folder beside the binary), the rest where the
// host does (plugins.dirs alone), so the table shows what each would start. It asks each who it
// is and leaves them running without a health loop, for commands that only look; the caller
// shuts the supervisor down. found is what plugins.dirs holds; skipped are the binaries discovery
// passed over, with the reason.
func probe(ctx context.Context, cfg *config.Config, kinds ...string) (sup *plugins.Supervisor, found []plugins.Candidate, skipped []error) {
	sup = plugins.New(plugins.Config{
		Adapters:    []plugins.Adapter{embedders.Adapter{}, providers.Adapter{}},
		CallTimeout: cfg.Plugins.CallTimeout, HealthInterval: -1,
		// Failures show in the table; plugin chatter would only garble it.
		Logger: hclog.New(&hclog.LoggerOptions{Level: hclog.Off, Output: io.Discard}),
	})
	if len(kinds) == 0 {
		kinds = []string{embedders.Adapter{}.Kind(), providers.Adapter{}.Kind()}
	}
	hostFound, skipped := plugins.Discover(cfg.Plugins.Dirs, cfg.Plugins.Checksums)
	runFound, _ := plugins.Discover(pluginDirs(cfg), cfg.Plugins.Checksums) // the same problems, and the own folder exists
	var cands []plugins.Candidate
	for _, k := range kinds {
		switch k {
		case providers.Adapter{}.Kind():
			cands = append(cands, plugins.OfKind(runFound, k)...)
		case embedders.Adapter{}.Kind():
			// One process per [embedders.NAME] table, as the host starts them.
			ec, _ := server.EmbedderCandidates(cfg, hostFound, os.LookupEnv)
			cands = append(cands, ec...)
		default:
			cands = append(cands, plugins.OfKind(hostFound, k)...)
		}
	}
	_ = sup.Start(ctx, cands) // a plugin that fails to start is in List, failed, with its reason
	return sup, hostFound, skipped
}

// idlePlugins lists the workers and embedders found in plugins.dirs that nothing started here:
// the host starts a worker per configured worker and an embedder per [embedders.NAME] table
// that names it (the BM25 floor runs unconfigured), so a bundled plugin is listed, stopped,
// with why, rather than missing from the table.
func idlePlugins(cands []plugins.Candidate, list []plugins.Status) []plugins.Status {
	why := map[string]string{
		"worker":   "not running here: the host starts one per configured worker (docs/workers.md)",
		"embedder": "not running here: the host starts one per [embedders.NAME] table naming it (README: Semantic memory)",
	}
	var out []plugins.Status
	for _, c := range cands {
		reason, ok := why[c.Kind]
		if !ok || slices.ContainsFunc(list, func(s plugins.Status) bool { return s.Path == c.Path }) {
			continue
		}
		out = append(out, plugins.Status{Kind: c.Kind, Name: c.Name, Binary: c.Binary(), Path: c.Path, State: plugins.StateStopped, LastError: reason})
	}
	return out
}

// maxTableError bounds the LAST ERROR column: the table keeps one line per plugin, and the
// whole diagnosis is in the host log and the status API.
const maxTableError = 100

func printPlugins(out io.Writer, list []plugins.Status) {
	w := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(w, "KIND\tNAME\tVERSION\tSTATE\tPID\tRESTARTS\tPATH\tLAST ERROR")
	var cut []plugins.Status
	for _, p := range list {
		pid := "-"
		if p.PID > 0 {
			pid = strconv.Itoa(p.PID)
		}
		lastErr := plugins.OneLine(printable(p.LastError), maxTableError)
		if strings.HasSuffix(lastErr, "...") {
			cut = append(cut, p)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", cell(p.Kind), cell(p.Name), cell(p.Version), cell(string(p.State)),
			pid, p.Restarts, cell(p.Path), orDash(lastErr))
	}
	_ = w.Flush()
	// A cut error's advice is at its end: the whole of it, one line per plugin, below.
	for _, p := range cut {
		fmt.Fprintf(out, "%s %s: %s\n", cell(p.Kind), cell(p.Name), plugins.OneLine(printable(p.LastError), maxStatusLine))
	}
}

// cell keeps a value someone else chose (a plugin's name, an agent's reason, a token's name)
// from breaking the table or driving the terminal: escaped, then on one bounded line.
func cell(s string) string { return orDash(plugins.OneLine(printable(s), maxTableError)) }

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
			if source == readyzSource {
				fmt.Fprintln(cmd.OutOrStdout(), adminHint)
			}
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
	s.Embedder.State, s.Embedder.Name, s.Embedder.Reason, s.Embedder.Configured = r.Embedder, r.Active, r.ActiveWhy, r.Configured
	return s, readyzSource, nil
}

// readyzSource is localStatus's source when a host answered its /readyz.
const readyzSource = "database and the running host's /readyz"

func printStatus(out io.Writer, s server.Status, source string) {
	fmt.Fprintf(out, "memhost %s (status from %s)\n", s.Version, source)
	fmt.Fprintf(out, "database:    %s\n", s.Database)
	fmt.Fprintf(out, "migrations:  %d applied, %d pending (latest %s)\n", s.Migrations.Applied, s.Migrations.Pending, orDash(s.Migrations.Latest))
	switch {
	case s.Embedder.Name != "" && s.Embedder.Dimensions > 0:
		fmt.Fprintf(out, "embedder:    %s (%d dims, %s)\n", s.Embedder.Name, s.Embedder.Dimensions, s.Embedder.State)
	case s.Embedder.Name != "":
		fmt.Fprintf(out, "embedder:    %s (%s)\n", s.Embedder.Name, s.Embedder.State)
	case s.Embedder.State != "":
		fmt.Fprintf(out, "embedder:    %s\n", s.Embedder.State)
	}
	if s.Embedder.Reason != "" {
		fmt.Fprintf(out, "             %s (configured: %s)\n", plugins.OneLine(printable(s.Embedder.Reason), maxStatusLine), cell(s.Embedder.Configured))
	}
	if s.Embedder.Degraded != "" {
		fmt.Fprintf(out, "  degraded:  %s\n", plugins.OneLine(printable(s.Embedder.Degraded), maxStatusLine))
	}
	if s.Embedder.Waiting != "" {
		fmt.Fprintf(out, "  waiting:   %s\n", plugins.OneLine(printable(s.Embedder.Waiting), maxStatusLine))
	}
	fmt.Fprintf(out, "memories:    %d live, %d archived, %d projects, %d global\n", s.Memories.Live, s.Memories.Archived, s.Memories.Projects, s.Memories.Global)
	for name, n := range s.Memories.ByEmbedder {
		fmt.Fprintf(out, "             %d embedded by %s\n", n, name)
	}
	if s.Memories.ANNDeferred > 0 {
		fmt.Fprintf(out, "             %d imported, waiting for the ANN index (exact search meanwhile)\n", s.Memories.ANNDeferred)
	}
	printReembed(out, s.Reembed)
	if s.Memories.TableBytes > 0 {
		fmt.Fprintf(out, "storage:     %s of memories, %s in %d graphs; shared_buffers %s (keep both in memory: docs/operations.md, Sizing Postgres)\n",
			rules.HumanBytes(s.Memories.TableBytes), rules.HumanBytes(s.Memories.GraphBytes), s.Memories.Graphs, rules.HumanBytes(s.Memories.SharedBuffers))
	}
	if len(s.Plugins) > 0 {
		fmt.Fprintln(out, "plugins:")
		printPlugins(out, s.Plugins)
	}
}
