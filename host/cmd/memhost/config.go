package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/core/redact"
	"github.com/memhost/memhost/host/internal/daemon/server"
	"github.com/memhost/memhost/host/internal/plugins"
)

func configCmd() *cobra.Command {
	c := &cobra.Command{Use: "config", Short: "Inspect configuration"}
	check := &cobra.Command{
		Use:   "check",
		Short: "Validate the configuration: every problem with its key, the embedder boot would pick, where each value came from",
		Long: `Validate the configuration and print every problem with its key and allowed range.

It also launches each plugin in plugins.dirs once (about 15 ms each), reads the name it
reports and stops it, so that an embedder.active no plugin answers to (by file name or by
reported name) is caught here instead of failing the next boot. --no-plugins skips that.

Then it lists each value that is not a built-in default with where it came from (the
file, an environment variable or a flag); --all lists every key.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path, _ := cmd.Flags().GetString("config")
			cfg, err := config.Load(cmd.Context(), config.LoadOptions{ConfigPath: path, Flags: cmd.Flags()})
			if err != nil {
				return err
			}
			src := cfg.Path()
			if src == "" {
				src = "(no file; defaults, environment and flags)"
			}
			out := cmd.OutOrStdout()
			problems := cfg.Validate(config.RequireDatabase, server.RefuseSecrets())
			if skip, _ := cmd.Flags().GetBool("no-plugins"); !skip && len(problems) == 0 {
				problems = checkEmbedder(cmd.Context(), cfg, out)
			}
			all, _ := cmd.Flags().GetBool("all")
			redactor, err := redact.New()
			if err != nil {
				return err
			}
			if len(problems) == 0 {
				fmt.Fprintf(out, "config ok: %s\n", src)
				printSettings(out, cfg.Settings(), all, redactor)
				return nil
			}
			fmt.Fprintf(out, "config %s has %d problem(s):\n", src, len(problems))
			for _, p := range problems {
				line, _ := redactor.Redact(p.String()) // a message may quote what was pasted
				fmt.Fprintf(out, "  %s\n", line)
			}
			printSettings(out, cfg.Settings(), all, redactor)
			return errors.New("invalid configuration")
		},
	}
	check.Flags().Bool("no-plugins", false, "do not launch plugins to check embedder.active")
	check.Flags().Bool("all", false, "list every key with its value and origin, defaults included")
	c.AddCommand(check, &cobra.Command{
		Use:   "example",
		Short: "Print a documented example config file",
		Args:  cobra.NoArgs,
		Run:   func(cmd *cobra.Command, _ []string) { fmt.Fprint(cmd.OutOrStdout(), config.Example()) },
	})
	return c
}

// checkEmbedder launches the configured plugins and picks the active embedder the way boot
// does, so a name no plugin answers to is a problem now rather than a failed start later.
func checkEmbedder(ctx context.Context, cfg *config.Config, out io.Writer) []config.Problem {
	sup, _, skipped := probe(ctx, cfg)
	defer func() { _ = sup.Shutdown(context.WithoutCancel(ctx)) }()
	for _, err := range skipped {
		fmt.Fprintf(out, "note: %s\n", plugins.OneLine(err.Error(), 300))
	}
	// Without the database: the choice as if no vectors were stored yet.
	a, err := server.ChooseEmbedder(ctx, sup, cfg, nil, slog.New(slog.DiscardHandler))
	if err != nil {
		key := "embedder.active"
		if cfg.Embedder.Active == "" || cfg.Embedder.Active == config.ActiveAuto {
			key = "plugins.dirs"
			if len(cfg.Embedders) > 1 {
				key = "embedder.active"
			}
		}
		return []config.Problem{{Key: key, Message: err.Error()}}
	}
	h, s := a.Handle(), a.Status(cfg.Embedder.FoldThresholds)
	fmt.Fprintf(out, "embedder: %s from %s (%s)\n", s.Name, h.Binary(), s.Reason)
	return nil
}

// printSettings lists the settings that are not defaults (all of them with all) and where
// each came from. A secret pasted into any value (a key in api_key_env, say) is shown redacted,
// as the write path would store it: the table is what operators paste into bug reports.
func printSettings(out io.Writer, settings []config.Setting, all bool, redactor *redact.Redactor) {
	w := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	n := 0
	for _, s := range settings {
		if !all && s.Origin == "default" {
			continue
		}
		if n == 0 {
			fmt.Fprintln(w, "KEY\tVALUE\tFROM")
		}
		n++
		value, _ := redactor.Redact(s.Value)
		fmt.Fprintf(w, "%s\t%s\t%s\n", s.Key, plugins.OneLine(value, 120), s.Origin)
	}
	_ = w.Flush()
	if n == 0 {
		fmt.Fprintln(out, "every value is a built-in default")
	}
}
