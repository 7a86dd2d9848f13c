package main

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/client/hostclient"
	"github.com/memhost/memhost/host/internal/daemon/server"
	"github.com/memhost/memhost/sdk/worker"
)

func mcpCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Serve MCP over stdio for a CLI that starts it in the session's directory, forwarding to the running host",
		Long: `Serve the memory tools over stdin/stdout, as the MCP server memhost connect registers in
each CLI. It forwards every request to the running host's /mcp with a token bound to the
project of the directory it was started in (the CLI starts it in the session's directory), so
the model never names the project and the token serves no other; --project names the project
instead. Started in the root or the home directory, which hold many projects, it refuses
rather than bind them all to one. It never opens the
database's core, so it starts in milliseconds however much memory the host holds.

The token is minted and kept as for memhost run (database.url; the user's 0600 cache); without
a database, --token (default $MEMHOST_TOKEN) is used as it is and should be bound to the
project. When no host answers, the session still starts: the tools answer with an error that
says memory is unavailable. Logs go to stderr only.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if os.Getenv(worker.RunMarkerEnv) != "" {
				// A worker plugin's CLI run: no memhost tools, so the run can neither read
				// nor write memory. The CLI reports a server that did not start, and goes on.
				return errors.New("memhost mcp serves nothing inside a worker's CLI run (" + worker.RunMarkerEnv + " is set)")
			}
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			key, err := projectKey(cmd, "")
			if err != nil {
				return err
			}
			tokens, closeFn := projectTokens(cmd, cfg)
			defer closeFn()
			if tokens == nil {
				return errNoToken(cfg)
			}
			f := &hostclient.Forwarder{
				Host: hostClient(cmd, cfg), Tokens: tokens, Project: key, Version: server.Version,
				Logger: slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil)),
			}
			if cache, err := os.UserCacheDir(); err == nil {
				f.ToolsCache = filepath.Join(cache, "memhost", "mcp-tools.json")
			}
			return f.Serve(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout())
		},
	}
	c.Flags().String("host", "", "the running host's URL (default http://<server.listen>)")
	addProjectFlag(c)
	addSpawnTokenFlags(c)
	return c
}
