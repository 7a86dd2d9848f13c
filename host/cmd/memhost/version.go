package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/daemon/server"
)

// versionCmd prints what `memhost --version` prints: the release, commit and build date
// stamped by make build / make dist ("dev" from a plain go build).
func versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and build date",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), "memhost", server.BuildInfo())
			return err
		},
	}
}
