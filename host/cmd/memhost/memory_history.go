package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/shortid"
	"github.com/memhost/memhost/host/internal/core/store"
)

// historyAnswer is the body of GET /api/v1/memories/{id}/history.
type historyAnswer struct {
	History []store.HistoryEntry `json:"history"`
}

// memoryHistoryCmd is `memhost memory history`: a memory's ledger, oldest first.
func memoryHistoryCmd() *cobra.Command {
	return memoryOp("history ID", "A memory's history, oldest first: added, folded into (which text stayed and why), edited, merged, archived, restored",
		cobra.ExactArgs(1), func(cmd *cobra.Command, h *hostAPI, key string, args []string) (any, error) {
			var a historyAnswer
			err := h.do(cmd.Context(), http.MethodGet, "/api/v1/memories/"+url.PathEscape(args[0])+"/history?"+url.Values{"project": {key}}.Encode(), nil, &a)
			return a, err
		}, func(_ *cobra.Command, out io.Writer, v any) { printHistory(out, v.(historyAnswer).History) })
}

func printHistory(out io.Writer, hs []store.HistoryEntry) {
	if len(hs) == 0 {
		fmt.Fprintln(out, "no history")
		return
	}
	w := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(w, "WHEN\tEVENT\tBY\tWHAT")
	for _, h := range hs {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", localTime(h.CreatedAt), h.Event, cell(h.Actor), printable(historyWhat(h)))
	}
	_ = w.Flush()
}

// historyWhat says in a line what one history entry changed.
func historyWhat(h store.HistoryEntry) string {
	before, after := deref(h.BeforeText), deref(h.AfterText)
	detail := func(key string) string { s, _ := h.Detail[key].(string); return s }
	switch h.Event {
	case store.EventAdd, store.EventImport:
		return quote(after)
	case store.EventFold:
		if detail("canonical") == "incoming" {
			return fmt.Sprintf("now reads %s (%s), was %s", quote(after), detail("canonical_because"), quote(before))
		}
		if folded := detail("folded_text"); folded != "" {
			return fmt.Sprintf("folded in %s; kept %s (%s)", quote(folded), quote(after), detail("canonical_because"))
		}
		return "the same text written again"
	case store.EventUpdate:
		if edited, ok := h.Detail["edited"].([]any); ok {
			fields := make([]string, len(edited))
			for i, f := range edited {
				fields[i] = fmt.Sprint(f)
			}
			what := "edited " + strings.Join(fields, ", ")
			if before != after {
				what += fmt.Sprintf(": was %s, now %s", quote(before), quote(after))
			}
			return what
		}
		if before != after {
			return fmt.Sprintf("was %s, now %s", quote(before), quote(after))
		}
	case store.EventMerge:
		absorbed, _ := h.Detail["absorbed"].([]any)
		what := fmt.Sprintf("consolidation merged %d %s into it", len(absorbed), plural(len(absorbed), "memory", "memories"))
		if before != after {
			what += fmt.Sprintf("; now reads %s", quote(after))
		}
		return what
	case store.EventArchive:
		return detail("reason")
	}
	var parts []string
	for k, v := range h.Detail {
		parts = append(parts, fmt.Sprintf("%s=%v", k, v))
	}
	slices.Sort(parts)
	return strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// quote is a text in a history line: on one line, cut to keep the line readable.
func quote(s string) string {
	const max = 80
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		s = string(r[:max-1]) + "…"
	}
	return `"` + s + `"`
}

// printAbsorbed lists what a memory took in (memory get).
func printAbsorbed(out io.Writer, a *memory.Absorbed) {
	if a == nil {
		return
	}
	if n := len(a.Paraphrases); n > 0 {
		fmt.Fprintf(out, "\nfolded in (%d %s):\n", n, plural(n, "paraphrase", "paraphrases"))
		for _, p := range a.Paraphrases {
			fmt.Fprintf(out, "  - %s (%s%s)\n", printable(p.Text), localTime(p.At), by(p.Agent))
		}
	}
	if n := len(a.Merged); n > 0 {
		fmt.Fprintf(out, "\nmerged by consolidation (%d %s; `memhost memory unmerge` restores them):\n", n, plural(n, "memory", "memories"))
		for _, m := range a.Merged {
			fmt.Fprintf(out, "  - [%s] %s (%s)\n", shortid.Of(m.ID), printable(orDefault(m.Text, "(purged)")), localTime(m.At))
		}
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
