package main

import (
	"fmt"
	"io"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/brain"
)

// conflictsCmd is `memhost project conflicts`: the conflicts inbox the conflicts job fills,
// built like the proposals inbox (`memhost project inbox`).
func conflictsCmd() *cobra.Command {
	c := decisionInbox[brain.ConflictsPage, brain.ConflictView]{
		use: "conflicts", short: "The conflicts inbox: pairs of the project's memories that contradict each other, waiting for you",
		items: "conflicts", statuses: "open (default), accepted, dismissed or all",
		list: brainOps.Conflicts, printList: printConflicts,
		showShort: "Show a conflict: both statements, the evidence and its severity", get: brainOps.Conflict, printItem: printConflict,
	}.command()
	accept := brainCmd("accept ID", "Accept a conflict as real; --archive MEMORY archives one of its two memories (restorable)", cobra.ExactArgs(1),
		func(cmd *cobra.Command, b brainOps, _ string, args []string) error {
			archive, _ := cmd.Flags().GetString("archive")
			v, err := b.DecideConflict(cmd.Context(), args[0], true, archive)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "conflict %s accepted\n", v.ID)
			if v.Archived != nil {
				fmt.Fprintf(cmd.OutOrStdout(), "memory %s archived\n", *v.Archived)
			}
			return nil
		})
	accept.Flags().String("archive", "", "one of the conflict's two memories to archive (its id as shown)")
	c.AddCommand(accept)
	c.AddCommand(brainCmd("dismiss ID", "Dismiss a conflict: the pair is never flagged again", cobra.ExactArgs(1),
		func(cmd *cobra.Command, b brainOps, _ string, args []string) error {
			v, err := b.DecideConflict(cmd.Context(), args[0], false, "")
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "conflict %s dismissed\n", v.ID)
			return nil
		}))
	return c
}

func printConflicts(out io.Writer, page brain.ConflictsPage, status string, full bool) {
	now := time.Now()
	printIDTable(out, page.Conflicts, full, func(c brain.ConflictView) uuid.UUID { return c.ID },
		fmt.Sprintf("no %sconflicts in %s", listedStatus(status, "open"), printable(page.Project)), "SEVERITY\tSTATUS\tAGE\tEVIDENCE",
		func(_ int, c brain.ConflictView) string {
			return fmt.Sprintf("%s\t%s\t%s\t%s", c.Severity, c.Status, age(now.Sub(c.CreatedAt)), cell(c.Evidence))
		})
}

// printConflict shows both statements as they were flagged, every part through printable.
func printConflict(out io.Writer, v brain.ConflictView) {
	fmt.Fprintf(out, "conflict %s in %s: %s severity, %s, flagged %s\n", v.ID, printable(v.Project), v.Severity, v.Status, localTime(v.CreatedAt))
	fmt.Fprintf(out, "evidence: %s\n", printable(orDash(v.Evidence)))
	fmt.Fprintf(out, "A %s: %s\n", v.MemoryA, printable(v.TextA))
	fmt.Fprintf(out, "B %s: %s\n", v.MemoryB, printable(v.TextB))
	if v.DecidedAt != nil {
		fmt.Fprintf(out, "decided: %s by %s, %s\n", v.Status, printable(v.DecidedBy), localTime(*v.DecidedAt))
	}
}
