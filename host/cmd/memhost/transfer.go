package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/migrate"
	"github.com/memhost/memhost/host/internal/store"
	"github.com/memhost/memhost/host/internal/store/pgstore"
	"github.com/memhost/memhost/host/internal/transfer"
)

func scopeFlag(cmd *cobra.Command) (store.ScopeRef, error) {
	key, _ := cmd.Flags().GetString("project")
	global, _ := cmd.Flags().GetBool("global")
	switch {
	case global && key != "":
		return store.ScopeRef{}, fmt.Errorf("--project and --global are exclusive")
	case global:
		return store.Global, nil
	case key == "":
		return store.ScopeRef{}, fmt.Errorf("--project KEY is required (or --global)")
	}
	return store.Project(key), nil
}

func exportCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "export --project KEY [--out FILE]",
		Short: "Write a project's memories, with history and vectors, as JSONL",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			scope, err := scopeFlag(cmd)
			if err != nil {
				return err
			}
			_, pool, err := openPool(cmd)
			if err != nil {
				return err
			}
			defer pool.Close()
			var w io.Writer = cmd.OutOrStdout()
			if out, _ := cmd.Flags().GetString("out"); out != "" && out != "-" {
				f, err := os.OpenFile(out, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
				if err != nil {
					return err
				}
				defer f.Close()
				w = f
			}
			n, err := transfer.Export(cmd.Context(), pgstore.New(pool), scope, w)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "exported %d memories\n", n)
			return nil
		},
	}
	c.Flags().String("project", "", "project key to export")
	c.Flags().Bool("global", false, "export global memories instead of a project")
	c.Flags().String("out", "", "file to write (created, never overwritten); default stdout")
	return c
}

func importCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "import --project KEY FILE",
		Short: "Read an export into a project (idempotent: memories already present are skipped)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			scope, err := scopeFlag(cmd)
			if err != nil {
				return err
			}
			cfg, pool, err := openPool(cmd)
			if err != nil {
				return err
			}
			defer pool.Close()
			if _, err := migrate.Up(cmd.Context(), pool); err != nil {
				return err
			}
			var r io.Reader = os.Stdin
			if args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return err
				}
				defer f.Close()
				r = f
			}
			start := time.Now()
			res, err := transfer.Import(cmd.Context(), pgstore.New(pool), scope, r, cfg.Memory.MaxTextBytes)
			if err != nil {
				return err
			}
			took := time.Since(start)
			fmt.Fprintf(cmd.OutOrStdout(), "imported %d memories, skipped %d already present (%.0f/s)\n",
				res.Inserted, res.Skipped, float64(res.Inserted+res.Skipped)/max(took.Seconds(), 1e-3))
			return nil
		},
	}
	c.Flags().String("project", "", "project key to import into")
	c.Flags().Bool("global", false, "import into the global scope")
	return c
}
