package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/access"
	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/mcpserver"
	"github.com/memhost/memhost/host/internal/project"
	"github.com/memhost/memhost/host/internal/server"
)

func mcpCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Serve MCP over stdio (for CLIs that launch a command); needs MEMHOST_TOKEN",
		Long: `Serve the memory tools over stdin/stdout. The token (--token or MEMHOST_TOKEN) decides the
scopes; a token bound to a project decides the project, otherwise tools default to the project
of the directory memhost was started in. Logs go to stderr only.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			token, _ := cmd.Flags().GetString("token")
			if token == "" {
				return fmt.Errorf("a token is required: set MEMHOST_TOKEN or pass --token (create one with `memhost token create`)")
			}
			cfg, err := loadConfig(cmd, config.RequireDatabase)
			if err != nil {
				return err
			}
			core, err := server.Open(cmd.Context(), cfg, newLogger(cfg))
			if err != nil {
				return err
			}
			defer core.Close(cmd.Context())
			principal, err := core.Door.AuthenticateToken(cmd.Context(), token)
			if err != nil {
				return access.Classify(err)
			}
			defaultProject := ""
			if wd, err := os.Getwd(); err == nil {
				if id, err := project.Resolve(wd); err == nil {
					defaultProject = id.Key
				}
			}
			bg := core.Background()
			if err := bg.Start(cmd.Context()); err != nil {
				return err
			}
			defer func() { _ = bg.Stop(context.WithoutCancel(cmd.Context())) }()
			srv := mcpserver.New(core.Service, mcpserver.Options{Limits: core.Limits, Logger: core.Log, Version: server.Version, Brain: core.Brain})
			return srv.ServeStdio(cmd.Context(), principal, defaultProject)
		},
	}
	c.Flags().String("token", os.Getenv("MEMHOST_TOKEN"), "bearer token (default $MEMHOST_TOKEN)")
	return c
}
