package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/rules"
	"github.com/memhost/memhost/host/internal/wire"
)

func valueCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "value",
		Short: "What memory gave the project's sessions and what they did with it: injected, retrieved, cited, the share used, tokens saved (an estimate), memories never used",
		Long: `Per session and rolled up over the window (--since, default 7d): the memories each session was
given (its banner and prompt hooks), retrieved (searches and gets), stored and cited ("Memory used:
[id]"); the share of injected memories ever used; the tokens memory saved, estimated from what
finding each stored fact cost the session that stored it (docs/value.md says how); and the memories
given in --unused-after ended sessions and used in none, candidates to bury.

From the running host (with --token, default $MEMHOST_TOKEN, or else the operator's own token
minted through database.url); when no host answers, from the database directly. A token bound
to a project sees only that project.`,
		Example: `  memhost project value
  memhost project value --since 30d --unused-after 10
  memhost project value --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			key, err := projectKey(cmd, "")
			if err != nil {
				return err
			}
			since, _ := cmd.Flags().GetString("since")
			unused, _ := cmd.Flags().GetInt("unused-after")
			window, err := parseSince(since)
			if err != nil {
				return err
			}
			r, err := fetchValue(cmd, key, since, window, unused)
			if err != nil {
				return userError(err)
			}
			if asJSON, _ := cmd.Flags().GetBool("json"); asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(r)
			}
			printValue(cmd.OutOrStdout(), r, since)
			return nil
		},
	}
	c.Flags().String("since", "7d", "the window: sessions that started within it (7d, 36h, 90m)")
	c.Flags().Int("unused-after", brain.DefaultUnusedAfter, "list memories given in this many ended sessions and used in none")
	c.Flags().Bool("json", false, "print the report as JSON")
	addProjectFlag(c)
	addTokenFlag(c)
	return c
}

// parseSince reads --since as the host reads ?since=.
func parseSince(v string) (time.Duration, error) {
	if d, ok := wire.ParseWindow(v); ok {
		return d, nil
	}
	return 0, &rules.FieldError{Field: "--since", Message: fmt.Sprintf("%q is not a window: give a positive duration such as 7d, 36h or 90m", v)}
}

// fetchValue reads project key's value report through the running host (brainFor), else on
// the database.
func fetchValue(cmd *cobra.Command, key, since string, window time.Duration, unused int) (brain.ValueReport, error) {
	var r brain.ValueReport
	err := withBrain(cmd, key, func(b brainOps) (err error) {
		r, err = b.Value(cmd.Context(), since, brain.ValueRequest{Since: window, UnusedAfter: unused})
		return err
	})
	return r, err
}

func printValue(out io.Writer, r brain.ValueReport, since string) {
	t := r.Totals
	fmt.Fprintf(out, "project %s, sessions since %s (%s)\n", printable(r.Project), localTime(r.Since), printable(since))
	fmt.Fprintf(out, "sessions:   %d\n", t.Sessions)
	fmt.Fprintf(out, "injected:   %d (%d distinct memories, %d of them used since: %.0f%%)\n", t.Injected, t.DistinctInjected, t.InjectedEverUsed, 100*t.UsedShare)
	fmt.Fprintf(out, "retrieved:  %d\n", t.Retrieved)
	fmt.Fprintf(out, "cited:      %d\n", t.Cited)
	fmt.Fprintf(out, "stored:     %d (discovery cost measured for %d: %d tokens)\n", t.Stored, t.Discovered, t.DiscoveryTokens)
	fmt.Fprintf(out, "saved:      ~%d tokens over %d uses (%s)\n", t.Saved, t.SavedFacts, r.Estimate)
	if len(r.Sessions) > 0 {
		fmt.Fprintln(out, "sessions, newest first:")
		w := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
		fmt.Fprintln(w, "  STARTED\tCLI\tORIGIN\tGIVEN\tRETRIEVED\tSTORED\tCITED\tUSED\tSAVED\tTOKENS")
		for _, s := range r.Sessions {
			tokens := "-"
			if s.Tokens != nil {
				tokens = strconv.FormatInt(*s.Tokens, 10)
			}
			fmt.Fprintf(w, "  %s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n", localTime(s.StartedAt), cell(s.CLI), s.Origin,
				s.Given, s.Retrieved, s.Stored, s.Cited, s.Used, s.Saved, tokens)
		}
		_ = w.Flush()
	}
	if len(r.Unused) > 0 {
		fmt.Fprintf(out, "never used in %d or more sessions that were given them (candidates to bury):\n", r.UnusedAfter)
		for _, u := range r.Unused {
			fmt.Fprintf(out, "  [%s] %s, given %d times, last %s: %s\n", u.ShortID, u.Kind, u.Given, localTime(u.LastGiven), cell(u.Text))
		}
	}
}
