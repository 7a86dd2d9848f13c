package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/daemon/migrate"
)

func migrateCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "migrate",
		Short: "Apply pending migrations (serve also applies them at boot)",
		Args:  cobra.NoArgs,
		RunE: poolRunE(func(cmd *cobra.Command, pool *pgxpool.Pool, _ []string) error {
			applied, err := migrate.Up(cmd.Context(), pool)
			for _, m := range applied {
				fmt.Fprintf(cmd.OutOrStdout(), "applied %s\n", m.Name)
			}
			if err != nil {
				return err
			}
			if len(applied) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "database is up to date")
			}
			return nil
		}),
	}
	c.AddCommand(&cobra.Command{
		Use:   "status",
		Short: "List migrations and whether each is applied",
		Args:  cobra.NoArgs,
		RunE: poolRunE(func(cmd *cobra.Command, pool *pgxpool.Pool, _ []string) error {
			ms, err := migrate.List(cmd.Context(), pool)
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 2, 4, 2, ' ', 0)
			fmt.Fprintln(w, "VERSION\tNAME\tAPPLIED")
			for _, m := range ms {
				at := "pending"
				if m.AppliedAt != nil {
					at = m.AppliedAt.Local().Format("2006-01-02 15:04:05")
				}
				fmt.Fprintf(w, "%04d\t%s\t%s\n", m.Version, m.Name, at)
			}
			_ = w.Flush()
			return err
		}),
	})
	return c
}
