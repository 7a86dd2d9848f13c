package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/core/memory"
)

// unmerged is what `memhost memory unmerge` did: the survivor as the host answered, and how
// many memories came back (those its merged_from no longer lists) and whether its own text
// did, read from the survivor before and after.
type unmerged struct {
	memory.View
	Restored     int  `json:"restored"`
	TextRestored bool `json:"text_restored"`
}

// unmerge undoes what consolidation merged into the memory id, through the running host.
func unmerge(cmd *cobra.Command, h *hostAPI, key string, args []string) (any, error) {
	var before memory.View
	if err := h.do(cmd.Context(), http.MethodGet, "/api/v1/memories/"+url.PathEscape(args[0])+"?"+url.Values{"project": {key}}.Encode(), nil, &before); err != nil {
		return nil, err
	}
	v, err := change(cmd, h, key, before.ID.String(), "unmerge", map[string]any{"project": key})
	if err != nil {
		return nil, err
	}
	after := v.(memory.View)
	return unmerged{View: after, Restored: max(len(before.MergedFrom)-len(after.MergedFrom), 0), TextRestored: before.Text != after.Text}, nil
}

func printUnmerged(_ *cobra.Command, out io.Writer, v any) {
	u := v.(unmerged)
	msg := fmt.Sprintf("memory %s unmerged: %s came back", u.ID, count(u.Restored, "memory", "memories"))
	if u.TextRestored {
		msg += ", and its text from before the merge"
	}
	fmt.Fprintln(out, msg)
}
