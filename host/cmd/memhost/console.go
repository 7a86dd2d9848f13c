package main

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/api/console"
	"github.com/memhost/memhost/host/internal/client/hostclient"
	"github.com/memhost/memhost/host/internal/config"
)

// consoleCmd prints a one-time sign-in link to the running host's operator console. The link
// holds a single-use code that expires within minutes, never a token: the host mints it for
// the token the command asks with, and the browser's session acts as that token.
func consoleCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "console",
		Short: "Print a one-time sign-in link to the operator console of the running host (docs/console.md)",
		Long: "Print a one-time sign-in link to the operator console the running host serves at /console/.\n\n" +
			"With --token (or $MEMHOST_TOKEN) the console acts as that token, with its scopes and project. Without one,\n" +
			"a token for the console alone is minted through the database (--scopes, --project) and expires with the\n" +
			"session (12 hours); its secret is never shown. The link works once, for 5 minutes.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			token, _ := cmd.Flags().GetString("token")
			if token == "" {
				if token, err = consoleToken(cmd, cfg); err != nil {
					return err
				}
			}
			client := &hostclient.Client{URL: "http://" + dialable(cfg.Server.Listen), Timeout: hostTimeout}
			var link console.SigninLink
			if err := client.Do(cmd.Context(), http.MethodPost, console.Prefix+"signin-code", token, nil, &link); err != nil {
				if errors.Is(err, hostclient.ErrUnreachable) {
					return fmt.Errorf("no memhost host answers at %s (server.listen): start it with `memhost serve` or `make run`, then run memhost console again", cfg.Server.Listen)
				}
				return fmt.Errorf("sign-in link: %w", err)
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "Open this link to sign in to the memhost console as token %q (it works once, until %s):\n",
				printable(link.Token), link.ExpiresAt.Local().Format(time.TimeOnly))
			fmt.Fprintln(out, link.URL)
			return nil
		},
	}
	addTokenFlag(c)
	c.Flags().String("scopes", "admin", "without --token: the scopes of the console's own token (memory:read for a look that changes nothing)")
	c.Flags().String("project", "", "without --token: bind the console's own token to this project key")
	return c
}

// consoleToken mints a token for one console session through the database: it expires when a
// session would (auth.SessionTTL) and its secret goes no further than this process.
func consoleToken(cmd *cobra.Command, cfg *config.Config) (string, error) {
	if cfg.Database.URL == "" {
		msg := "no token: pass --token (default $MEMHOST_TOKEN), or run memhost console where the host's config (database.url) is found, which mints one"
		if hint := configHint(cfg); hint != "" {
			msg += "; " + hint
		}
		return "", errors.New(msg)
	}
	list, _ := cmd.Flags().GetString("scopes")
	scopes, err := auth.ParseScopes(list)
	if err != nil {
		return "", err
	}
	project, _ := cmd.Flags().GetString("project")
	host, _ := os.Hostname()
	name := "console"
	if user := os.Getenv("USER"); user != "" {
		name += " (" + user + "@" + host + ")"
	}
	var plain string
	err = withPool(cmd, func(_ *config.Config, pool *pgxpool.Pool) (err error) {
		plain, _, err = auth.NewTokens(pool).Create(cmd.Context(), auth.CreateToken{Name: name, Scopes: scopes, ProjectKey: project, TTL: auth.SessionTTL})
		return err
	})
	return plain, err
}
