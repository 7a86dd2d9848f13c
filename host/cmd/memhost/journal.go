package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/shortid"
	"github.com/memhost/memhost/host/internal/core/store"
)

// journalReadCmds are `memhost project journal list` and `show ID`: what each session did,
// read through the running host like the memory commands (the journal is made of memories).
func journalReadCmds() []*cobra.Command {
	list := memoryOp("list", "List the project's journal, newest first: one entry per session (agent, how long, its summary)", cobra.NoArgs,
		func(cmd *cobra.Command, h *hostAPI, key string, _ []string) (any, error) {
			q := url.Values{}
			if n, _ := cmd.Flags().GetInt("limit"); n > 0 {
				q.Set("limit", strconv.Itoa(n))
			}
			var page brain.JournalPage
			err := h.do(cmd.Context(), http.MethodGet, projectPath(key, "journal")+"?"+q.Encode(), nil, &page)
			return page, err
		}, func(cmd *cobra.Command, out io.Writer, v any) { printJournal(cmd, out, v.(brain.JournalPage)) })
	list.Flags().Int("limit", 20, "how many (at most 200)")
	list.Flags().Bool("full", false, "show whole ids instead of short ones")
	show := memoryOp("show ID", "Print one journal entry whole (ID as listed): the session's record and its summary", cobra.ExactArgs(1),
		func(cmd *cobra.Command, h *hostAPI, key string, args []string) (any, error) {
			var v memory.View
			if err := h.do(cmd.Context(), http.MethodGet, "/api/v1/memories/"+url.PathEscape(args[0])+"?"+url.Values{"project": {key}}.Encode(), nil, &v); err != nil {
				return nil, err
			}
			if v.Kind != store.KindJournal {
				return nil, fmt.Errorf("memory %s is a %s, not a journal entry: `memhost memory get %s` prints it", shortid.Of(v.ID), v.Kind, shortid.Of(v.ID))
			}
			return v, nil
		}, func(_ *cobra.Command, out io.Writer, v any) {
			m := v.(memory.View)
			fmt.Fprintf(out, "journal entry %s: %s%s\n\n", m.ID, localTime(m.CreatedAt), by(m.Agent))
			fmt.Fprintln(out, printable(m.Text))
		})
	return []*cobra.Command{list, show}
}

func printJournal(cmd *cobra.Command, out io.Writer, page brain.JournalPage) {
	full, _ := cmd.Flags().GetBool("full")
	printIDTable(out, page.Entries, full, func(e brain.JournalEntry) uuid.UUID { return e.ID }, "no journal entries", "WHEN\tAGENT\tTEXT",
		func(_ int, e brain.JournalEntry) string {
			return fmt.Sprintf("%s\t%s\t%s", localTime(e.CreatedAt), cell(e.Agent), cell(e.Text))
		})
	if page.NextCursor != "" {
		fmt.Fprintln(out, "(older entries follow: raise --limit)")
	}
}
