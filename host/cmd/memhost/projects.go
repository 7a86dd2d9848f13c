package main

import (
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/wire"
)

// projectsCmd is the operator's overview of a database shared by many projects. It asks the
// running host (GET /api/v1/projects, an admin token), which reads it through indexes.
func projectsCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "projects",
		Short: "List every project with its counts and last activity, most recently active first, through the running host",
		Args:  cobra.NoArgs,
		RunE: hostRunE(func(cmd *cobra.Command, h *hostAPI, _ []string) error {
			q := url.Values{}
			if n, _ := cmd.Flags().GetInt("limit"); n != 0 {
				q.Set("limit", strconv.Itoa(n))
			}
			if cur, _ := cmd.Flags().GetString("cursor"); cur != "" {
				q.Set("cursor", cur)
			}
			return getAndShow(cmd, h, "/api/v1/projects?"+q.Encode(), printProjects)
		}),
	}
	addTokenFlag(c)
	c.Flags().Int("limit", 50, "how many (at most 200)")
	c.Flags().String("cursor", "", "the page after this one (printed under a full page)")
	addJSONFlag(c)
	return c
}

func printProjects(out io.Writer, page wire.ProjectsPage) {
	if len(page.Projects) == 0 {
		fmt.Fprintln(out, "no projects")
		return
	}
	w := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(w, "KEY\tMEMORIES\tARCHIVED\tPROPOSALS\tJOURNAL\tLAST ACTIVITY")
	for _, p := range page.Projects {
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%s\n", keyCell(p.Key), p.Memories, p.Archived, p.PendingProposals, p.JournalEntries, localTime(p.LastActivity))
	}
	_ = w.Flush()
	if page.NextCursor != "" {
		fmt.Fprintf(out, "more: memhost projects --cursor %s\n", page.NextCursor)
	}
}

// keyCell is a project key as a table cell: escaped (printable), and on its row even when a
// row written straight to the database holds a tab or a line break.
func keyCell(key string) string {
	return strings.NewReplacer("\t", `\t`, "\r", `\r`, "\n", `\n`).Replace(printable(key))
}
