package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/project"
)

func projectCmd() *cobra.Command {
	c := &cobra.Command{Use: "project", Short: "Project identity"}
	c.AddCommand(&cobra.Command{
		Use:   "key [DIR]",
		Short: "Print the project key memhost resolves for DIR (default: the current directory)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := os.Getwd()
			if err != nil {
				return err
			}
			if len(args) == 1 {
				dir = args[0]
			}
			id, err := project.Resolve(dir)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "resolved from %s (%s)\n", id.Root, id.Source)
			fmt.Fprintln(cmd.OutOrStdout(), id.Key)
			return nil
		},
	})
	return c
}
