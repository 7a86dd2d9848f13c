package main

import (
	"encoding/json"
	"errors"
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

// The memory commands are for operators who live in the terminal. They go through the
// running host's REST API (the one client, hostclient) with a token: opening a core of their
// own would take tens of seconds at 1M memories, and the host already holds the index.

func memoryCmd() *cobra.Command {
	c := &cobra.Command{Use: "memory", Short: "Add, edit, list, search, read, archive and restore a project's memories through the running host"}
	c.AddCommand(
		memoryAddCmd(),
		memoryEditCmd(),
		memoryHistoryCmd(),
		memoryOp("list", "List the project's memories, newest first", cobra.NoArgs, func(cmd *cobra.Command, h *hostAPI, key string, _ []string) (any, error) {
			q := url.Values{"project": {key}}
			if n, _ := cmd.Flags().GetInt("limit"); n > 0 {
				q.Set("limit", strconv.Itoa(n))
			}
			if archived, _ := cmd.Flags().GetBool("archived"); archived {
				q.Set("only_archived", "true")
			}
			var page memory.ListPage
			err := h.do(cmd.Context(), http.MethodGet, "/api/v1/memories?"+q.Encode(), nil, &page)
			return page, err
		}, func(cmd *cobra.Command, out io.Writer, v any) { printMemories(cmd, out, v.(memory.ListPage).Memories) }),
		memoryOp("search QUERY", "Search the project's memories with the one ranker", cobra.ExactArgs(1), func(cmd *cobra.Command, h *hostAPI, key string, args []string) (any, error) {
			k, _ := cmd.Flags().GetInt("top-k")
			body, err := json.Marshal(map[string]any{"query": args[0], "top_k": k, "project": key})
			if err != nil {
				return nil, err
			}
			var res searchAnswer
			err = h.do(cmd.Context(), http.MethodPost, "/api/v1/memories/search", body, &res)
			return res, err
		}, func(cmd *cobra.Command, out io.Writer, v any) {
			res := v.(searchAnswer)
			if res.Degraded != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "search degraded: %s\n", printable(res.Degraded))
			}
			printHits(cmd, out, res.Results)
		}),
		memoryOp("get ID", "Print one memory (ID as listed: its last 8 or more hex digits, or whole)", cobra.ExactArgs(1), func(cmd *cobra.Command, h *hostAPI, key string, args []string) (any, error) {
			var v memory.View
			err := h.do(cmd.Context(), http.MethodGet, "/api/v1/memories/"+url.PathEscape(args[0])+"?"+url.Values{"project": {key}}.Encode(), nil, &v)
			return v, err
		}, func(_ *cobra.Command, out io.Writer, v any) {
			m := v.(memory.View)
			printMemory(out, m)
			printAbsorbed(out, m.Absorbed)
		}),
		memoryOp("archive ID", "Archive a memory (soft: restore brings it back; purged after the grace period)", cobra.ExactArgs(1), func(cmd *cobra.Command, h *hostAPI, key string, args []string) (any, error) {
			reason, _ := cmd.Flags().GetString("reason")
			return change(cmd, h, key, args[0], "archive", map[string]any{"reason": reason, "project": key})
		}, printChanged("archived")),
		memoryOp("restore ID", "Restore an archived memory", cobra.ExactArgs(1), func(cmd *cobra.Command, h *hostAPI, key string, args []string) (any, error) {
			return change(cmd, h, key, args[0], "restore", map[string]any{"project": key})
		}, printChanged("restored")),
		memoryOp("unmerge ID", "Undo what consolidation merged into a memory: restore the memories it absorbed (and its own text, if a merge rewrote it)", cobra.ExactArgs(1),
			unmerge, printUnmerged),
		memoryOp("unsupersede ID", "Undo the conflicts job's finding that a memory was replaced: it ranks as before and the pair is never flagged again", cobra.ExactArgs(1), func(cmd *cobra.Command, h *hostAPI, key string, args []string) (any, error) {
			return change(cmd, h, key, args[0], "unsupersede", map[string]any{"project": key})
		}, printChanged("no longer superseded")),
		archivedCmd(),
	)
	for _, sub := range c.Commands() {
		switch sub.Name() {
		case "list":
			sub.Flags().Int("limit", 50, "how many (at most 500)")
			sub.Flags().Bool("archived", false, "list archived memories instead of live ones")
		case "search":
			sub.Flags().Int("top-k", 10, "how many hits")
		case "archive":
			sub.Flags().String("reason", "", "why, kept with the memory")
		}
		if sub.Name() == "list" || sub.Name() == "search" {
			sub.Flags().Bool("full", false, "show whole ids instead of short ones")
		}
	}
	return c
}

// memoryOp is one memory command: --project, --token, --json, a call to the running host and
// a printer for its answer.
func memoryOp(use, short string, args cobra.PositionalArgs, call func(cmd *cobra.Command, h *hostAPI, key string, args []string) (any, error),
	show func(cmd *cobra.Command, out io.Writer, v any)) *cobra.Command {
	c := &cobra.Command{
		Use: use, Short: short, Args: args,
		RunE: projectHostRunE(func(cmd *cobra.Command, h *hostAPI, key string, args []string) error {
			v, err := call(cmd, h, key, args)
			if err != nil {
				return err
			}
			return showAnswer(cmd, v, func(out io.Writer, v any) { show(cmd, out, v) })
		}),
	}
	addProjectFlag(c)
	addTokenFlag(c)
	addJSONFlag(c)
	return c
}

// searchAnswer is the body of POST /api/v1/memories/search.
type searchAnswer struct {
	Results  []memory.SearchHit `json:"results"`
	Degraded string             `json:"degraded,omitempty"`
}

// runningHost is the running host's API for a command that works only through it; closeFn
// releases what getting its token opened.
func runningHost(cmd *cobra.Command) (h *hostAPI, closeFn func(), err error) {
	cfg, err := loadConfig(cmd)
	if err != nil {
		return nil, nil, err
	}
	h, closeFn = hostFor(cmd, cfg)
	if h == nil {
		return nil, nil, errors.New("--token: required (default $MEMHOST_TOKEN) when the configuration sets no database.url to mint one; this command asks the running host at server.listen")
	}
	return h, closeFn, nil
}

func change(cmd *cobra.Command, h *hostAPI, key, id, op string, body map[string]any) (any, error) {
	data, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	var v memory.View
	err = h.do(cmd.Context(), http.MethodPost, "/api/v1/memories/"+url.PathEscape(id)+"/"+op+"?"+url.Values{"project": {key}}.Encode(), data, &v)
	return v, err
}

func printChanged(verb string) func(*cobra.Command, io.Writer, any) {
	return func(_ *cobra.Command, out io.Writer, v any) {
		m := v.(memory.View)
		fmt.Fprintf(out, "memory %s %s\n", m.ID, verb)
	}
}

// printJSON prints v as indented JSON; printable keeps it valid JSON (see map show).
func printJSON(out io.Writer, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintln(out, printable(string(data)))
	return nil
}

func printMemories(cmd *cobra.Command, out io.Writer, ms []memory.View) {
	printTable(cmd, out, ms, nil)
}

// printHits lists search hits best first with the score that ranked them (docs/ranking.md).
func printHits(cmd *cobra.Command, out io.Writer, hits []memory.SearchHit) {
	views := make([]memory.View, len(hits))
	for i, h := range hits {
		views[i] = h.View
	}
	printTable(cmd, out, views, func(i int) float64 { return hits[i].Score })
}

// printTable lists memories, with a SCORE column when score gives the i-th one's.
func printTable(cmd *cobra.Command, out io.Writer, ms []memory.View, score func(i int) float64) {
	full, _ := cmd.Flags().GetBool("full")
	head := "KIND\tAGE\tUSES\tTEXT"
	if score != nil {
		head = "SCORE\t" + head
	}
	now := time.Now()
	printIDTable(out, ms, full, func(m memory.View) uuid.UUID { return m.ID }, "no memories", head, func(i int, m memory.View) string {
		row := fmt.Sprintf("%s\t%s\t%d\t%s", cell(string(m.Kind)), age(now.Sub(m.UpdatedAt)), m.HitCount, cell(m.Text))
		if score != nil {
			row = fmt.Sprintf("%.2f\t", score(i)) + row
		}
		return row
	})
}

func printMemory(out io.Writer, m memory.View) {
	fmt.Fprintf(out, "memory %s: %s in %s, importance %.2f, %d uses\n", m.ID, printable(string(m.Kind)), printable(orDefault(m.Project, "global")), m.Importance, m.HitCount)
	fmt.Fprintf(out, "written:  %s by %s (%s)\n", localTime(m.CreatedAt), printable(orDash(m.Agent)), printable(orDash(m.Source)))
	if m.ArchivedAt != nil {
		fmt.Fprintf(out, "archived: %s (%s)\n", localTime(*m.ArchivedAt), printable(orDash(m.ArchivedReason)))
	}
	if m.SupersededBy != nil {
		fmt.Fprintf(out, "superseded by: %s\n", *m.SupersededBy)
	}
	fmt.Fprintln(out)
	fmt.Fprintln(out, printable(m.Text))
}
