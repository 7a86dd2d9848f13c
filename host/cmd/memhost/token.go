package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/core/shortid"
	"github.com/memhost/memhost/host/internal/daemon/migrate"
)

func tokenCmd() *cobra.Command {
	c := &cobra.Command{Use: "token", Short: "Create, list and revoke bearer tokens"}
	create := &cobra.Command{
		Use:   "create --scopes memory:read,memory:write[,admin] [--project KEY] [--name NAME]",
		Short: "Create a token; the token is printed alone on the last line, once",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			list, _ := cmd.Flags().GetString("scopes")
			scopes, err := auth.ParseScopes(list)
			if err != nil {
				return err
			}
			name, _ := cmd.Flags().GetString("name")
			project, _ := cmd.Flags().GetString("project")
			ttl, _ := cmd.Flags().GetDuration("ttl")
			return withPool(cmd, func(_ *config.Config, pool *pgxpool.Pool) error {
				if _, err := migrate.Up(cmd.Context(), pool); err != nil {
					return err
				}
				plain, tok, err := auth.NewTokens(pool).Create(cmd.Context(), auth.CreateToken{Name: name, Scopes: scopes, ProjectKey: project, TTL: ttl})
				if err != nil {
					return err
				}
				bound := "any project"
				if tok.ProjectKey != "" {
					bound = "project " + printable(tok.ProjectKey)
				}
				out := cmd.OutOrStdout()
				fmt.Fprintf(out, "created token %s (%s) with scopes %s for %s; it is shown once:\n", tok.ID, printable(tok.Name), joinScopes(tok.Scopes), bound)
				fmt.Fprintln(out, plain)
				return nil
			})
		},
	}
	create.Flags().String("scopes", "memory:read,memory:write", "comma-separated scopes: memory:read, memory:write, admin")
	create.Flags().String("project", "", "bind the token to this project key")
	create.Flags().String("name", "agent", "a name for the token (recorded as the actor in history)")
	create.Flags().Duration("ttl", 0, "expire the token this long after creation, e.g. 24h (default: never)")
	list := &cobra.Command{
		Use:   "list [--all]",
		Short: "List the tokens that authenticate (never their secrets); --all adds revoked and expired ones not purged yet",
		Args:  cobra.NoArgs,
		RunE: poolRunE(func(cmd *cobra.Command, pool *pgxpool.Pool, _ []string) error {
			all, _ := cmd.Flags().GetBool("all")
			toks, err := auth.NewTokens(pool).List(cmd.Context(), all)
			if err != nil {
				return err
			}
			full, _ := cmd.Flags().GetBool("full")
			names := shortNames(full, toks, func(t auth.Token) uuid.UUID { return t.ID })
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 2, 4, 2, ' ', 0)
			fmt.Fprintln(w, "ID\tNAME\tSCOPES\tPROJECT\tCREATED\tLAST USED\tREVOKED\tEXPIRES")
			for _, t := range toks {
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", names[t.ID], cell(t.Name), joinScopes(t.Scopes), orDash(printable(t.ProjectKey)),
					t.CreatedAt.Local().Format("2006-01-02 15:04"), timeOrDash(t.LastUsedAt), timeOrDash(t.RevokedAt), timeOrDash(t.ExpiresAt))
			}
			return w.Flush()
		}),
	}
	list.Flags().Bool("all", false, "also list revoked and expired tokens (the host purges them 30 days after)")
	list.Flags().Bool("full", false, "show whole ids instead of short ones")
	c.AddCommand(create, list, &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke a token (ID as `token list` shows it, or whole)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := shortid.Parse("token", args[0])
			if err != nil {
				return fmt.Errorf("ID: %w", err)
			}
			return withPool(cmd, func(_ *config.Config, pool *pgxpool.Pool) error {
				tokens := auth.NewTokens(pool)
				id := ref.ID
				if !ref.Whole() {
					toks, err := tokens.List(cmd.Context(), true)
					if err != nil {
						return err
					}
					ids := make([]uuid.UUID, len(toks))
					for i, t := range toks {
						ids[i] = t.ID
					}
					var n int
					switch id, n = ref.Pick(ids); n {
					case 0:
						return fmt.Errorf("ID: no token %s", args[0])
					case 1:
					default:
						return fmt.Errorf("ID: %q matches %d tokens; give more of the id", args[0], n)
					}
				}
				if err := tokens.Revoke(cmd.Context(), id); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "revoked %s\n", id)
				return nil
			})
		},
	})
	return c
}

func joinScopes(s []auth.Scope) string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = string(x)
	}
	return strings.Join(out, ",")
}
