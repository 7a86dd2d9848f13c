package main

import (
	"fmt"
	"net/http"

	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/daemon/server"
)

func reloadCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "reload",
		Short: "Make the running host re-read its configuration and plugins without a restart",
		Long: `Make the running host re-read its configuration (the file, environment and flags it
started with) and its plugin folders: new or replaced plugin binaries, changed checksums and
changed [embedders] tables are started beside the running plugins and the embedder is chosen
again as boot would; requests in flight finish on the old plugins. A configuration with
problems, a plugin it asks for that cannot start, or an embedder choice that leaves none
serving is refused with the reason, and the running plugins and embedder stay as they were.
Sending the host SIGHUP does the same. Needs an admin token not bound to a project (--token or
MEMHOST_TOKEN): a reload is host-wide. [workers] tables are not reloaded: a reload that finds
them changed says so, and they apply when the host restarts.`,
		Args: cobra.NoArgs,
		RunE: hostRunE(func(cmd *cobra.Command, h *hostAPI, _ []string) error {
			var res server.ReloadResult
			if err := h.do(cmd.Context(), http.MethodPost, "/api/v1/admin/reload", nil, &res); err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "reloaded: %d plugins\n", len(res.Plugins))
			printPlugins(out, res.Plugins)
			printEmbedder(out, res.Embedder)
			for _, w := range res.Warnings {
				fmt.Fprintln(cmd.ErrOrStderr(), "warning:", printable(w))
			}
			return nil
		}),
	}
	addTokenFlag(c)
	return c
}
