package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/core/memory"
)

// archivedPageLimit is the page size archived asks the host for while it filters by reason.
const archivedPageLimit = 500

// archivedCmd is `memhost memory archived`: the project's archived memories, newest first, each
// with its reason, optionally only those archived for one reason ("stale", "dormant", ...).
func archivedCmd() *cobra.Command {
	c := memoryOp("archived", "List the project's archived memories with why each was archived (restore with `memory restore ID`)", cobra.NoArgs,
		func(cmd *cobra.Command, h *hostAPI, key string, _ []string) (any, error) {
			reason, _ := cmd.Flags().GetString("reason")
			limit, _ := cmd.Flags().GetInt("limit")
			if limit < 1 || limit > archivedPageLimit {
				return nil, fmt.Errorf("--limit: %d is out of range 1..%d", limit, archivedPageLimit)
			}
			out := []memory.View{}
			// The host lists archived memories by page; the reason is matched here, page after
			// page, until limit are found or the list ends.
			q := url.Values{"project": {key}, "only_archived": {"true"}, "limit": {strconv.Itoa(archivedPageLimit)}}
			for {
				var page memory.ListPage
				if err := h.do(cmd.Context(), http.MethodGet, "/api/v1/memories?"+q.Encode(), nil, &page); err != nil {
					return nil, err
				}
				for _, m := range page.Memories {
					if (reason == "" || m.ArchivedReason == reason) && len(out) < limit {
						out = append(out, m)
					}
				}
				if page.Next == "" || len(out) == limit {
					return out, nil
				}
				q.Set("cursor", page.Next)
			}
		}, func(cmd *cobra.Command, out io.Writer, v any) { printArchived(cmd, out, v.([]memory.View)) })
	c.Flags().String("reason", "", "only memories archived for this reason (stale, dormant, journal prune, or an operator's)")
	c.Flags().Int("limit", 50, "how many (at most 500)")
	c.Flags().Bool("full", false, "show whole ids instead of short ones")
	return c
}

func printArchived(cmd *cobra.Command, out io.Writer, ms []memory.View) {
	full, _ := cmd.Flags().GetBool("full")
	now := time.Now()
	printIDTable(out, ms, full, func(m memory.View) uuid.UUID { return m.ID }, "no archived memories", "KIND\tARCHIVED\tREASON\tTEXT",
		func(_ int, m memory.View) string {
			when := "-"
			if m.ArchivedAt != nil {
				when = age(now.Sub(*m.ArchivedAt))
			}
			return fmt.Sprintf("%s\t%s\t%s\t%s", cell(string(m.Kind)), when, cell(orDefault(m.ArchivedReason, "no reason")), cell(m.Text))
		})
}
