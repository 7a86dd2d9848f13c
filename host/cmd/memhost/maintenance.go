package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/hostclient"
	"github.com/memhost/memhost/host/internal/restapi"
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
		RunE: func(cmd *cobra.Command, _ []string) error {
			h, err := runningHost(cmd)
			if err != nil {
				return err
			}
			var body struct {
				Jobs []restapi.MaintenanceJob `json:"jobs"`
			}
			if err := h.do(cmd.Context(), http.MethodGet, "/api/v1/maintenance", nil, &body); err != nil {
				return err
			}
			if asJSON, _ := cmd.Flags().GetBool("json"); asJSON {
				return printJSON(cmd.OutOrStdout(), body)
			}
			printMaintenance(cmd.OutOrStdout(), body.Jobs)
			return nil
		},
	}
	run := &cobra.Command{
		Use: "run JOB", Short: "Run one job now on the running host and print what it did (or, with --dry-run, would do)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			h, err := runningHost(cmd)
			if err != nil {
				return err
			}
			h.client = &hostclient.Client{URL: h.client.URL, Timeout: maintenanceRunTimeout}
			q := url.Values{}
			if p, _ := cmd.Flags().GetString("project"); p != "" {
				q.Set("project", p)
			}
			if dry, _ := cmd.Flags().GetBool("dry-run"); dry {
				q.Set("dry_run", "true")
			}
			var rep restapi.MaintenanceReport
			if err := h.do(cmd.Context(), http.MethodPost, "/api/v1/maintenance/"+url.PathEscape(args[0])+"/run?"+q.Encode(), nil, &rep); err != nil {
				return err
			}
			if asJSON, _ := cmd.Flags().GetBool("json"); asJSON {
				return printJSON(cmd.OutOrStdout(), rep)
			}
			printReport(cmd.OutOrStdout(), rep)
			return nil
		},
	}
	run.Flags().String("project", "", "only this project's memories (default: every project)")
	run.Flags().Bool("dry-run", false, "change nothing; print what would change")
	for _, sub := range []*cobra.Command{status, run} {
		addTokenFlag(sub)
		sub.Flags().Bool("json", false, "print the host's answer as JSON")
		c.AddCommand(sub)
	}
	return c
}

func printMaintenance(out io.Writer, jobs []restapi.MaintenanceJob) {
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

func printReport(out io.Writer, rep restapi.MaintenanceReport) {
	r := rep.Run
	verb := "changed"
	if r.DryRun {
		verb = "would change"
	}
	fmt.Fprintf(out, "%s on %s: %s, examined %d, %s %d\n", cell(rep.Job), cell(r.Host), cell(r.Outcome), r.Examined, verb, r.Changed)
	if r.Error != "" {
		fmt.Fprintf(out, "error: %s\n", printable(r.Error))
	}
	for _, it := range rep.Items {
		fmt.Fprintf(out, "  %s %s (%s)\n", cell(it.Action), cell(it.ID), cell(it.Reason))
	}
	if int64(len(rep.Items)) < r.Changed {
		fmt.Fprintf(out, "  ... and %d more\n", r.Changed-int64(len(rep.Items)))
	}
}
