package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"text/tabwriter"
	"time"

	"github.com/memhost/memhost/host/internal/wire"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/core/shortid"
)

// maintenanceRunTimeout bounds `memhost maintenance run`: a run may take up to its job's
// max_duration, far longer than an ordinary call.
const maintenanceRunTimeout = 30 * time.Minute

// maintenanceCmd shows and runs the self-maintenance jobs through the running host (admin
// token): the host holds River's client and the jobs' configuration.
func maintenanceCmd() *cobra.Command {
	c := &cobra.Command{Use: "maintenance", Short: "Show the self-maintenance jobs or run one now (docs/maintenance.md)"}
	status := &cobra.Command{
		Use: "status", Short: "Each job's last run (outcome, rows examined and changed, LLM calls, tokens, host) and next run", Args: cobra.NoArgs,
		RunE: hostRunE(func(cmd *cobra.Command, h *hostAPI, _ []string) error {
			return getAndShow(cmd, h, "/api/v1/maintenance", printMaintenance)
		}),
	}
	run := &cobra.Command{
		Use: "run JOB", Short: "Run one job now on the running host and print what it did (or, with --dry-run, would do)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			project, _ := cmd.Flags().GetString("project")
			return runMaintenance(cmd, args[0], project)
		},
	}
	run.Flags().String("project", "", "only this project's memories (default: every project; with a token bound to a project, that project)")
	addRunFlags(run, "the job's age threshold for this run, e.g. 90d (default: its configured one)")
	for _, sub := range []*cobra.Command{status, run} {
		addTokenFlag(sub)
		addJSONFlag(sub)
		c.AddCommand(sub)
	}
	return c
}

// journalCmd is `memhost project journal prune`: the journal job, run now for one project.
func journalCmd() *cobra.Command {
	c := &cobra.Command{Use: "journal", Short: "Prune the project's journal"}
	prune := &cobra.Command{
		Use: "prune", Short: "Archive the project's journal entries older than --older-than (reason \"journal prune\", restorable until purged) and list them", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			key, err := projectKey(cmd, "")
			if err != nil {
				return err
			}
			return runMaintenance(cmd, "journal", key)
		},
	}
	addProjectFlag(prune)
	addRunFlags(prune, "archive entries older than this, e.g. 90d (default: maintenance.journal.older_than)")
	addTokenFlag(prune)
	addJSONFlag(prune)
	c.AddCommand(prune)
	return c
}

// projectLifecycleCmd is `memhost project archive|unarchive` through the running host.
func projectLifecycleCmd(archive bool) *cobra.Command {
	use, short := "unarchive", "Make the project active again and restore the facts dormancy archived"
	if archive {
		use, short = "archive", "Mark the project finished: its never-retrieved facts are archived (reason \"dormant\"), restorable with unarchive"
	}
	c := &cobra.Command{
		Use: use, Short: short, Args: cobra.NoArgs,
		RunE: projectHostRunE(func(cmd *cobra.Command, h *hostAPI, key string, _ []string) error {
			var r wire.ProjectLifecycle
			if err := h.do(cmd.Context(), http.MethodPost, projectPath(key, use), nil, &r); err != nil {
				return err
			}
			if archive {
				fmt.Fprintf(cmd.OutOrStdout(), "project %s archived; its never-retrieved facts are being archived (reason dormant)\n", printable(r.Project))
			} else {
				fmt.Fprintf(cmd.OutOrStdout(), "project %s active; %d facts restored\n", printable(r.Project), r.Restored)
			}
			return nil
		}),
	}
	addProjectFlag(c)
	addTokenFlag(c)
	return c
}

func addRunFlags(c *cobra.Command, olderThan string) {
	c.Flags().Bool("dry-run", false, "change nothing; print what would change")
	c.Flags().String("older-than", "", olderThan)
}

// runMaintenance runs job on the running host (POST /api/v1/maintenance/{job}/run) with the
// command's --dry-run and --older-than, and prints the report.
func runMaintenance(cmd *cobra.Command, job, project string) error {
	q := url.Values{}
	if project != "" {
		q.Set("project", project)
	}
	if dry, _ := cmd.Flags().GetBool("dry-run"); dry {
		q.Set("dry_run", "true")
	}
	if age, _ := cmd.Flags().GetString("older-than"); age != "" {
		if d, err := config.ParseAge(age); err != nil || d < time.Second {
			return fmt.Errorf("--older-than: %q is not a duration of at least 1s (90d, 36h, 30m)", age)
		}
		q.Set("older_than", age)
	}
	// The flags are checked above, before a token is asked for.
	return withHost(cmd, func(h *hostAPI) error {
		var rep wire.MaintenanceReport
		if err := h.withTimeout(maintenanceRunTimeout).do(cmd.Context(), http.MethodPost, "/api/v1/maintenance/"+url.PathEscape(job)+"/run?"+q.Encode(), nil, &rep); err != nil {
			return err
		}
		return showAnswer(cmd, rep, printReport)
	})
}

// maintenanceStatus is the body of GET /api/v1/maintenance.
type maintenanceStatus struct {
	Jobs []wire.MaintenanceJob `json:"jobs"`
}

func printMaintenance(out io.Writer, st maintenanceStatus) {
	jobs := st.Jobs
	w := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(w, "JOB\tKIND\tEVERY\tLAST RUN\tOUTCOME\tEXAMINED\tCHANGED\tLLM CALLS\tTOKENS\tHOST\tNEXT RUN")
	for _, j := range jobs {
		every := j.Every
		if !j.Enabled {
			every = "disabled"
		}
		last, outcome, host := "never", "-", "-"
		var examined, changed, calls, tokens int64
		if r := j.Last; r != nil {
			last, outcome, host = localTime(r.StartedAt)+" ("+r.Trigger+")", r.Outcome, cell(r.Host)
			examined, changed, calls, tokens = r.Examined, r.Changed, r.LLMCalls, r.Tokens
		}
		next := "-"
		if j.Next != nil {
			next = localTime(*j.Next)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\n", cell(j.Job), cell(j.Kind), every, last, cell(outcome),
			examined, changed, calls, tokens, host, next)
	}
	_ = w.Flush()
}

func printReport(out io.Writer, rep wire.MaintenanceReport) {
	r := rep.Run
	did := "changed " + count(int(r.Changed), "memory", "memories")
	if r.DryRun {
		did = "would change " + count(int(r.Changed), "memory", "memories") + " (a dry run: nothing was changed)"
	}
	fmt.Fprintf(out, "%s on %s: %s; examined %s, %s\n", cell(rep.Job), cell(r.Host), cell(r.Outcome), count(int(r.Examined), "memory", "memories"), did)
	if r.Error != "" {
		fmt.Fprintf(out, "error: %s\n", printable(r.Error))
	}
	// Short ids, as every table prints them (memhost memory get takes them).
	ids := make([]uuid.UUID, 0, len(rep.Items))
	for _, it := range rep.Items {
		if id, err := uuid.Parse(it.ID); err == nil {
			ids = append(ids, id)
		}
	}
	names := shortid.Shorten(ids)
	for _, it := range rep.Items {
		name := it.ID
		if id, err := uuid.Parse(it.ID); err == nil {
			name = names[id]
		}
		fmt.Fprintf(out, "  %s %s (%s)\n", cell(it.Action), cell(name), cell(it.Reason))
	}
	if int64(len(rep.Items)) < r.Changed {
		fmt.Fprintf(out, "  ... and %d more\n", r.Changed-int64(len(rep.Items)))
	}
}
