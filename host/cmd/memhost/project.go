package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/brain/projectmap"
	"github.com/memhost/memhost/host/internal/core/project"
	"github.com/memhost/memhost/host/internal/core/store"
)

func projectCmd() *cobra.Command {
	c := &cobra.Command{Use: "project", Short: "Project identity and the project brain: goal, plan, proposals inbox, map, health, value"}
	c.AddCommand(&cobra.Command{
		Use:   "key [DIR]",
		Short: "Print the project key memhost resolves for DIR (default: the current directory)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := dirArg(args)
			if err != nil {
				return err
			}
			id, err := project.Resolve(dir)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "resolved from %s (%s)\n", printable(id.Root), id.Source)
			fmt.Fprintln(cmd.OutOrStdout(), id.Key)
			return nil
		},
	})
	journal := journalCmd()
	journal.Short = "The project's journal: what each session did (list, show, prune)"
	journal.AddCommand(journalReadCmds()...)
	c.AddCommand(documentCmd(store.KindGoal), documentCmd(store.KindPlan), inboxCmd(), mapCmd(), healthCmd(), journal, projectLifecycleCmd(true), projectLifecycleCmd(false))
	c.AddCommand(conflictsCmd(), valueCmd())
	return c
}

// brainCmd is a project brain command: --project, --token, the project's brain (brainFor), run.
func brainCmd(use, short string, args cobra.PositionalArgs, run func(cmd *cobra.Command, b brainOps, key string, args []string) error) *cobra.Command {
	c := &cobra.Command{
		Use: use, Short: short, Args: args,
		RunE: func(cmd *cobra.Command, args []string) error {
			key, err := projectKey(cmd, "")
			if err != nil {
				return err
			}
			return withBrain(cmd, key, func(b brainOps) error { return userError(run(cmd, b, key, args)) })
		},
	}
	addProjectFlag(c)
	addTokenFlag(c)
	return c
}

func documentCmd(kind store.Kind) *cobra.Command {
	c := &cobra.Command{Use: string(kind), Short: fmt.Sprintf("Show or set the project's %s (agents propose changes; see `memhost project inbox`)", kind)}
	c.AddCommand(brainCmd("show", fmt.Sprintf("Print the project's %s", kind), cobra.NoArgs,
		func(cmd *cobra.Command, b brainOps, key string, _ []string) error {
			d, err := b.Document(cmd.Context(), kind)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "%s of %s (version %d, updated %s%s)\n", kind, printable(key), d.Version, localTime(d.UpdatedAt), by(d.UpdatedBy))
			fmt.Fprintln(cmd.OutOrStdout(), printable(d.Text))
			return nil
		}))
	c.AddCommand(brainCmd("set (TEXT | -)", fmt.Sprintf("Set the project's %s to TEXT, or to standard input with -; the old version stays in history", kind), cobra.ExactArgs(1),
		func(cmd *cobra.Command, b brainOps, key string, args []string) error {
			text, err := textArg(args[0], cmd.InOrStdin())
			if err != nil {
				return err
			}
			d, err := b.SetDocument(cmd.Context(), kind, text)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s of %s set (version %d)\n", kind, printable(key), d.Version)
			return nil
		}))
	return c
}

// textArg is TEXT, or standard input for "-" (one trailing line break dropped).
func textArg(arg string, stdin io.Reader) (string, error) {
	if arg != "-" {
		return arg, nil
	}
	data, err := io.ReadAll(io.LimitReader(stdin, 1<<20))
	if err != nil {
		return "", fmt.Errorf("read standard input: %w", err)
	}
	return strings.TrimSuffix(strings.TrimSuffix(string(data), "\n"), "\r"), nil
}

func inboxCmd() *cobra.Command {
	c := decisionInbox[brain.InboxPage, brain.ProposalDetail]{
		use: "inbox", short: "The proposals inbox: agents' suggested goals and plans, waiting for you",
		items: "proposals", statuses: "pending (default), stale, approved, rejected or all",
		list: brainOps.Inbox, printList: printInbox,
		showShort: "Show a proposal: who proposed it and why, and a diff of the current text against it", get: brainOps.Proposal, printItem: printProposal,
	}.command()
	for _, approve := range []bool{true, false} {
		use, short := "approve ID", "Approve a proposal: the document takes its text (the old version stays in history)"
		if !approve {
			use, short = "reject ID", "Reject a proposal; it stays in the inbox as rejected"
		}
		c.AddCommand(brainCmd(use, short, cobra.ExactArgs(1), func(cmd *cobra.Command, b brainOps, key string, args []string) error {
			res, err := b.Decide(cmd.Context(), args[0], approve)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "proposal %s %s\n", res.Proposal.ID, res.Proposal.Status)
			if res.Document != nil {
				fmt.Fprintf(cmd.OutOrStdout(), "%s of %s is now version %d\n", res.Document.Layer, printable(key), res.Document.Version)
			}
			return nil
		}))
	}
	return c
}

func printInbox(out io.Writer, page brain.InboxPage, status string, full bool) {
	now := time.Now()
	printIDTable(out, page.Proposals, full, func(p brain.ProposalView) uuid.UUID { return p.ID },
		fmt.Sprintf("no %sproposals in %s", listedStatus(status, "pending"), printable(page.Project)), "LAYER\tSTATUS\tPROPOSED BY\tAGE\tREASON",
		func(_ int, p brain.ProposalView) string {
			return fmt.Sprintf("%s\t%s\t%s\t%s\t%s", p.Layer, p.Status, cell(orDefault(p.Agent, p.ProposedBy)), age(now.Sub(p.CreatedAt)), cell(p.Reason))
		})
}

// printProposal shows what the operator approves, every part of it through printable: the
// diff is the proposed text itself.
func printProposal(out io.Writer, d brain.ProposalDetail) {
	fmt.Fprintf(out, "proposal %s: new %s of %s, %s\n", d.ID, d.Layer, printable(d.Project), d.Status)
	who := orDash(d.Agent)
	if d.Session != "" {
		who += " (session " + d.Session + ")"
	}
	fmt.Fprintf(out, "proposed by: %s with token \"%s\", %s\n", printable(who), printable(d.ProposedBy), localTime(d.CreatedAt))
	fmt.Fprintf(out, "reason:      %s\n", printable(orDash(d.Reason)))
	fmt.Fprintf(out, "made against version %d; the %s is now version %d\n", d.BaseVersion, d.Layer, d.CurrentVersion)
	if d.DecidedAt != nil {
		fmt.Fprintf(out, "decided:     %s by %s, %s\n", d.Status, printable(d.DecidedBy), localTime(*d.DecidedAt))
	}
	fmt.Fprintln(out)
	fmt.Fprint(out, printable(d.Diff))
}

func mapCmd() *cobra.Command {
	c := &cobra.Command{Use: "map", Short: "The project map: languages, commands, layout and git activity, computed where the project lives"}
	refresh := &cobra.Command{
		Use:   "refresh [DIR]",
		Short: "Map DIR (default: the current directory) here and upload it to the running host (to the database when none answers)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			key, err := projectKey(cmd, dir)
			if err != nil {
				return err
			}
			m, err := projectmap.Build(cmd.Context(), dir, projectmap.Options{})
			if err != nil {
				return err
			}
			data, err := json.Marshal(m)
			if err != nil {
				return err
			}
			return withBrain(cmd, key, func(b brainOps) error {
				view, err := b.PutMap(cmd.Context(), data)
				if err != nil {
					return userError(err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "map of %s uploaded (%d files; built %s)\n", printable(key), m.Files, localTime(view.GeneratedAt))
				if len(m.Truncated) > 0 {
					fmt.Fprintf(cmd.ErrOrStderr(), "the map is partial: %s\n", strings.Join(m.Truncated, ", "))
				}
				return nil
			})
		},
	}
	addProjectFlag(refresh)
	addTokenFlag(refresh)
	show := brainCmd("show", "Print the project map's summary (--json for the whole map)", cobra.NoArgs,
		func(cmd *cobra.Command, b brainOps, key string, _ []string) error {
			m, err := b.Map(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON, _ := cmd.Flags().GetBool("json"); asJSON {
				// An escape of a format character (\u202e) is also a JSON escape, so the
				// output stays valid JSON; jsonb already escapes control characters.
				fmt.Fprintln(cmd.OutOrStdout(), printable(jsonbText(m.Map)))
				return nil
			}
			stale := ""
			if m.Stale {
				stale = " (stale: run `memhost project map refresh`)"
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "map of %s, built %s%s\n", printable(key), localTime(m.GeneratedAt), stale)
			fmt.Fprintln(cmd.OutOrStdout(), printable(m.Summary))
			return nil
		})
	show.Flags().Bool("json", false, "print the whole map in its JSON form")
	c.AddCommand(refresh, show)
	return c
}

func healthCmd() *cobra.Command {
	c := brainCmd("health", "The project's health: facts and journal this week, folds, conflicts and whether anything checks for them, pending proposals, documents, most and never used facts",
		cobra.NoArgs, func(cmd *cobra.Command, b brainOps, _ string, _ []string) error {
			h, err := b.Health(cmd.Context())
			if err != nil {
				return err
			}
			printHealth(cmd.OutOrStdout(), h)
			return nil
		})
	c.Long = `The project's health snapshot, from the running host, which knows its workers and so whether
conflict checking is on; when no host answers, from the database directly, which cannot tell.`
	return c
}

func printHealth(out io.Writer, h brain.HealthView) {
	fmt.Fprintf(out, "project %s\n", printable(h.Project))
	fmt.Fprintf(out, "facts:      %d (%d this week), %d never used (returned by no search or get)\n", h.Facts.Total, h.Facts.ThisWeek, h.NeverHit)
	if len(h.Archived) > 0 {
		reasons := make([]string, 0, len(h.Archived))
		for r := range h.Archived {
			reasons = append(reasons, r)
		}
		sort.Strings(reasons)
		parts := make([]string, len(reasons))
		for i, r := range reasons {
			parts[i] = fmt.Sprintf("%d %s", h.Archived[r], cell(orDefault(r, "no reason")))
		}
		fmt.Fprintf(out, "archived:   %s\n", strings.Join(parts, ", "))
	}
	fmt.Fprintf(out, "journal:    %s (%d this week)\n", count(int(h.Journal.Total), "entry", "entries"), h.Journal.ThisWeek)
	fmt.Fprintf(out, "folds:      %d (%d this week)\n", h.Folds.Total, h.Folds.ThisWeek)
	fmt.Fprintf(out, "merges:     %d (%d this week)\n", h.Merges.Total, h.Merges.ThisWeek)
	fmt.Fprintf(out, "superseded: %s\n", count(int(h.Superseded), "fact", "facts"))
	conflicts := fmt.Sprintf("%d open", h.Conflicts.Count)
	if h.Conflicts.OldestAt != nil {
		conflicts += fmt.Sprintf(", oldest waiting %s", age(time.Duration(h.Conflicts.OldestAgeSeconds)*time.Second))
	}
	if off, ok := strings.CutPrefix(h.ConflictChecking, "off: "); ok {
		// An empty inbox is no news when nothing looks for contradictions.
		conflicts = "conflict checking is off: " + printable(off) + "; " + conflicts
	} else if h.ConflictChecking != "on" {
		conflicts += " (conflict checking " + printable(h.ConflictChecking) + ")"
	}
	fmt.Fprintf(out, "conflicts:  %s\n", conflicts)
	fmt.Fprintf(out, "llm:        %d calls, %d tokens this week (all projects)\n", h.LLM.Calls, h.LLM.Tokens)
	pending := fmt.Sprintf("%d pending", h.Proposals.Count)
	if h.Proposals.OldestAt != nil {
		pending += fmt.Sprintf(", oldest waiting %s", age(time.Duration(h.Proposals.OldestAgeSeconds)*time.Second))
	}
	fmt.Fprintf(out, "proposals:  %s\n", pending)
	fmt.Fprintf(out, "goal:       %s\n", updated(h.GoalUpdatedAt))
	fmt.Fprintf(out, "plan:       %s\n", updated(h.PlanUpdatedAt))
	mapLine := updated(h.MapGeneratedAt)
	if h.MapStale {
		mapLine += " (stale)"
	}
	fmt.Fprintf(out, "map:        %s\n", mapLine)
	if len(h.TopHit) > 0 {
		fmt.Fprintln(out, "most used facts:")
		for _, f := range h.TopHit {
			fmt.Fprintf(out, "  %5d  %s\n", f.HitCount, cell(f.Text))
		}
	}
}

func updated(t *time.Time) string {
	if t == nil {
		return "not set"
	}
	return "updated " + timeOrDash(t)
}

func localTime(t time.Time) string { return t.Local().Format("2006-01-02 15:04") }

func by(who string) string {
	if who == "" {
		return ""
	}
	return " by " + printable(who)
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// age is a short duration for tables: 45s, 12m, 5h, 3d.
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}
