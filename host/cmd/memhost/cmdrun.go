package main

import (
	"io"
	"net/http"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/config"
)

// The skeletons the commands share: one way to reach the running host or the database for a
// command, and one way to print a host's answer.

// withHost runs run with the running host's API and the operator's token (runningHost),
// released when run returns: for a command that works only through the host.
func withHost(cmd *cobra.Command, run func(h *hostAPI) error) error {
	h, closeFn, err := runningHost(cmd)
	if err != nil {
		return err
	}
	defer closeFn()
	return run(h)
}

// hostRunE is the RunE of a command that is one call of withHost.
func hostRunE(run func(cmd *cobra.Command, h *hostAPI, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		return withHost(cmd, func(h *hostAPI) error { return run(cmd, h, args) })
	}
}

// projectHostRunE is hostRunE for a command on one project: run also gets the project's key
// (--project, else the current directory's), resolved before the host is asked.
func projectHostRunE(run func(cmd *cobra.Command, h *hostAPI, key string, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		key, err := projectKey(cmd, "")
		if err != nil {
			return err
		}
		return withHost(cmd, func(h *hostAPI) error { return run(cmd, h, key, args) })
	}
}

// withBrain runs run with project key's brain (brainFor: the running host, else the
// database), released when run returns.
func withBrain(cmd *cobra.Command, key string, run func(b brainOps) error) error {
	b, closeFn, err := brainFor(cmd, key)
	if err != nil {
		return err
	}
	defer closeFn()
	return run(b)
}

// withPool runs run with the configuration and a pool on database.url (openPool), closed
// when run returns: for a command that needs only the database.
func withPool(cmd *cobra.Command, run func(cfg *config.Config, pool *pgxpool.Pool) error) error {
	cfg, pool, err := openPool(cmd)
	if err != nil {
		return err
	}
	defer pool.Close()
	return run(cfg, pool)
}

// poolRunE is the RunE of a command that is one call of withPool.
func poolRunE(run func(cmd *cobra.Command, pool *pgxpool.Pool, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		return withPool(cmd, func(_ *config.Config, pool *pgxpool.Pool) error { return run(cmd, pool, args) })
	}
}

// getAndShow asks the running host (GET path) and prints its answer (showAnswer).
func getAndShow[T any](cmd *cobra.Command, h *hostAPI, path string, show func(io.Writer, T)) error {
	var v T
	if err := h.do(cmd.Context(), http.MethodGet, path, nil, &v); err != nil {
		return err
	}
	return showAnswer(cmd, v, show)
}

// showAnswer prints a host's answer: as JSON with --json, else through show.
func showAnswer[T any](cmd *cobra.Command, v T, show func(io.Writer, T)) error {
	if asJSON, _ := cmd.Flags().GetBool("json"); asJSON {
		return printJSON(cmd.OutOrStdout(), v)
	}
	show(cmd.OutOrStdout(), v)
	return nil
}

// addJSONFlag adds --json to a command that prints a host's answer (showAnswer).
func addJSONFlag(c *cobra.Command) {
	c.Flags().Bool("json", false, "print the host's answer as JSON")
}

// dirArg is the optional DIR argument: args[0], or the current directory.
func dirArg(args []string) (string, error) {
	if len(args) == 1 {
		return args[0], nil
	}
	return os.Getwd()
}
