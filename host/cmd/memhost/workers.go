package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/memhost/memhost/host/internal/wire"

	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/plugins"
)

// The workers commands ask the running host, which runs the workers: their state and last 24
// hours, a sample task, a chain changed without a restart. They need an admin token.

func workersCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "workers",
		Short: "Show the LLM workers: state, backoff, last 24 hours (calls, success, p50/p95 latency, tokens) and each task's chain",
		Args:  cobra.NoArgs,
		RunE: hostRunE(func(cmd *cobra.Command, h *hostAPI, _ []string) error {
			return getAndShow(cmd, h, "/api/v1/workers", printWorkers)
		}),
	}
	addTokenFlag(c)
	addJSONFlag(c)

	try := &cobra.Command{
		Use:   "try TASK",
		Short: "Run one sample task (merge, conflicts, session_summary, extract, plan_drift, gatekeeper) through its chain and show who answered",
		Args:  cobra.ExactArgs(1),
		RunE: hostRunE(func(cmd *cobra.Command, h *hostAPI, args []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			// The host may try the whole chain: wait as long as a task may run.
			h.client.Timeout = cfg.Tasks.RunTimeout + hostTimeout
			name, _ := cmd.Flags().GetString("worker")
			body, err := json.Marshal(map[string]string{"task": args[0], "worker": name})
			if err != nil {
				return err
			}
			var res wire.TryResult
			if err := h.do(cmd.Context(), http.MethodPost, "/api/v1/workers/try", body, &res); err != nil {
				return err
			}
			if asJSON, _ := cmd.Flags().GetBool("json"); asJSON {
				return printJSON(cmd.OutOrStdout(), res)
			}
			return printTry(cmd.OutOrStdout(), res)
		}),
	}
	addTokenFlag(try)
	try.Flags().String("worker", "", "try this worker alone (its backoff bypassed) instead of the task's chain")
	addJSONFlag(try)

	chain := &cobra.Command{
		Use:   "chain TASK WORKER...",
		Short: "Set the workers a task kind tries, in order, from now until the host restarts",
		Args:  cobra.MinimumNArgs(2),
		RunE: hostRunE(func(cmd *cobra.Command, h *hostAPI, args []string) error {
			body, err := json.Marshal(map[string][]string{"workers": args[1:]})
			if err != nil {
				return err
			}
			if err := h.do(cmd.Context(), http.MethodPut, "/api/v1/workers/chains/"+url.PathEscape(args[0]), body, nil); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %s\n", printable(args[0]), printable(strings.Join(args[1:], " -> ")))
			return nil
		}),
	}
	addTokenFlag(chain)
	c.AddCommand(try, chain)
	return c
}

func printWorkers(out io.Writer, st wire.WorkersStatus) {
	if st.Skipped != "" {
		fmt.Fprintln(out, printable(st.Skipped))
	}
	if len(st.Workers) > 0 {
		w := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
		fmt.Fprintln(w, "WORKER\tPLUGIN\tMODEL\tSTATE\tCALLS 24H\tSUCCESS\tP50\tP95\tTOKENS IN/OUT\tNOTE")
		for _, wk := range st.Workers {
			note := workerNote(wk)
			d := wk.Day
			success := "-"
			if d.Calls > 0 {
				success = fmt.Sprintf("%.0f%%", 100*d.SuccessRate)
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%d/%d\t%s\n", cell(wk.Name), cell(wk.Plugin), cell(wk.Model), cell(wk.State),
				d.Calls, success, ms(d.P50Ms), ms(d.P95Ms), d.InputTokens, d.OutputTokens, cell(note))
		}
		_ = w.Flush()
		// The whole reason, which a table cell would cut.
		for _, wk := range st.Workers {
			if why := workerWhy(wk); why != "" {
				fmt.Fprintf(out, "%s: %s\n", printable(wk.Name), printable(why))
			}
		}
	}
	fmt.Fprintln(out)
	for _, t := range st.Tasks {
		line := fmt.Sprintf("%s: %s", t.Task, strings.Join(t.Chain, " -> "))
		if len(t.Chain) == 0 {
			line = t.Task + ": (no worker)"
		}
		if t.Waiting != "" {
			line += "  [waiting: " + t.Waiting + "]"
		}
		fmt.Fprintln(out, printable(line))
	}
}

// printTry shows a try; a try no worker answered is an error, for scripts.
func printTry(out io.Writer, res wire.TryResult) error {
	var attempts []string
	for _, a := range res.Attempts {
		s := a.Worker + " " + string(a.Outcome)
		if a.Reason != "" {
			s += " (" + a.Reason + ")"
		}
		attempts = append(attempts, s)
	}
	if res.Error != "" {
		if len(attempts) > 0 {
			fmt.Fprintln(out, "attempts:", printable(strings.Join(attempts, "; ")))
		}
		return fmt.Errorf("task %s: %s", printable(res.Task), printable(res.Error))
	}
	fmt.Fprintf(out, "task %s answered by %s (model %s) in %s, tokens %d in / %d out\n", printable(res.Task), printable(res.Worker),
		printable(orDash(res.Model)), time.Duration(res.LatencyMs)*time.Millisecond, res.InputTokens, res.OutputTokens)
	fmt.Fprintln(out, "attempts:", printable(strings.Join(attempts, "; ")))
	fmt.Fprintln(out, "result:", printable(string(res.Result)))
	return nil
}

func ms(v float64) string {
	if v == 0 {
		return "-"
	}
	return (time.Duration(v) * time.Millisecond).String()
}

// workerNote is a worker's NOTE cell: whether it is backed off, and what failed last.
func workerNote(wk wire.WorkerStatus) string {
	var parts []string
	if wk.BackedOffUntil != nil {
		parts = append(parts, "backed off until "+localTime(*wk.BackedOffUntil))
	}
	switch {
	case wk.LastFailure != nil:
		parts = append(parts, "last call "+string(wk.LastFailure.Outcome)+" (below)")
	case wk.LastError != "":
		parts = append(parts, "not ready (below)")
	}
	return strings.Join(parts, "; ")
}

// workerWhy is what a worker said when it last failed, or why its plugin is not ready.
func workerWhy(wk wire.WorkerStatus) string {
	if f := wk.LastFailure; f != nil {
		return fmt.Sprintf("last call %s at %s (%s): %s", f.Outcome, localTime(f.At), f.Task, plugins.OneLine(f.Reason, 300))
	}
	if wk.LastError != "" {
		return plugins.OneLine(wk.LastError, 300)
	}
	return ""
}
