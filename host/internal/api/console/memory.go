package console

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/rules"
	"github.com/memhost/memhost/host/internal/core/store"
)

// A memory's page: the memory, its history as before/after diffs, what it absorbed and what
// superseded it, and the changes an operator makes to one memory.

// historyRow is one history entry as the page shows it.
type historyRow struct {
	Entry store.HistoryEntry
	Diff  *diffView // set when the entry changed the text
	// Absorbed are the memories a merge took in; Superseded the memory a supersession named.
	Absorbed   []uuid.UUID
	Superseded *uuid.UUID
	Reason     string
	Edited     string
}

// memoryView is the memory page's data.
type memoryView struct {
	M       memory.View
	History []historyRow
	Kinds   []store.Kind
	// Fact is set for a fact (the editor's kinds); a goal, plan or journal entry has its own
	// editor or none.
	Fact bool
	// Access is the memory's access log: which sessions were given it, whose searches returned
	// it or gets read it, which stored or cited it (brain.MemoryAccess, as REST answers it).
	Access brain.MemoryAccessLog
}

func (c *Console) memory(cl *call) error {
	acc, id, err := cl.target(c.Service.Lookup)
	if err != nil {
		return err
	}
	m, err := c.Service.Peek(cl.r.Context(), acc, id)
	if err != nil {
		return err
	}
	h, err := c.Service.History(cl.r.Context(), acc, id)
	if err != nil {
		return err
	}
	log, err := c.Brain.MemoryAccess(cl.r.Context(), acc, id.String())
	if err != nil {
		return err
	}
	v := memoryView{M: m, Kinds: store.Kinds, Fact: slices.Contains(store.Kinds, m.Kind), Access: log}
	for i := len(h) - 1; i >= 0; i-- {
		row := historyRow{Entry: h[i], Reason: detailString(h[i].Detail, "reason")}
		if b, a := h[i].BeforeText, h[i].AfterText; b != nil && a != nil && *b != *a {
			d := wordDiff(rules.Printable(*b), rules.Printable(*a))
			row.Diff = &d
		}
		row.Absorbed = detailIDs(h[i].Detail, "absorbed")
		if s := detailString(h[i].Detail, "superseded_by"); s != "" {
			if sid, err := uuid.Parse(s); err == nil {
				row.Superseded = &sid
			}
		}
		if e, ok := h[i].Detail["edited"].([]any); ok {
			parts := make([]string, 0, len(e))
			for _, f := range e {
				parts = append(parts, fmt.Sprint(f))
			}
			row.Edited = strings.Join(parts, ", ")
		}
		v.History = append(v.History, row)
	}
	c.render(cl.w, cl.r, cl, 200, "memory", v)
	return nil
}

func detailString(d map[string]any, key string) string {
	s, _ := d[key].(string)
	return s
}

func detailIDs(d map[string]any, key string) []uuid.UUID {
	list, _ := d[key].([]any)
	var out []uuid.UUID
	for _, x := range list {
		if s, ok := x.(string); ok {
			if id, err := uuid.Parse(s); err == nil {
				out = append(out, id)
			}
		}
	}
	return out
}

// changeMemory is one change to one memory, made through the memory service as REST makes it.
func (c *Console) changeMemory(cl *call) error {
	acc, id, err := cl.target(c.Service.Lookup)
	if err != nil {
		return err
	}
	ctx := cl.r.Context()
	var note string
	switch op := cl.r.PathValue("op"); op {
	case "pin", "unpin":
		_, err = c.Service.SetPinned(ctx, acc, id, op == "pin")
		note = map[bool]string{true: "Pinned.", false: "Unpinned."}[op == "pin"]
	case "archive":
		_, err = c.Service.Archive(ctx, acc, id, strings.TrimSpace(cl.r.PostFormValue("reason")))
		note = "Archived. Restore it here or from the project's Archived tab."
	case "restore":
		_, err = c.Service.Restore(ctx, acc, id)
		note = "Restored."
	case "unmerge":
		_, err = c.Service.Unmerge(ctx, acc, id)
		note = "Unmerged: what the merge took in is back, and consolidation will not merge them again."
	case "unsupersede":
		_, err = c.Service.Unsupersede(ctx, acc, id)
		note = "No longer superseded."
	case "edit":
		var req memory.EditRequest
		if req, err = editRequest(cl); err == nil {
			_, err = c.Service.Edit(ctx, acc, id, req)
		}
		note = "Saved. The history below shows the change."
	default:
		return &pageNotFound{path: cl.r.URL.Path}
	}
	if err != nil {
		return err
	}
	return cl.redirect(cl.back(pageURL("memories/"+id.String(), "project", acc.Project)), note)
}

// editRequest reads the editor's form: its text, kind and importance, and the version of the
// memory the editor was opened at.
func editRequest(cl *call) (memory.EditRequest, error) {
	f := cl.r.PostForm
	var req memory.EditRequest
	if f.Has("text") {
		text := normalizeNewlines(f.Get("text"))
		req.Text = &text
	}
	if k := f.Get("kind"); k != "" {
		req.Kind = &k
	}
	if s := strings.TrimSpace(f.Get("importance")); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return req, errField("importance", "%q is not a number from 0 to 1", clip(20, s))
		}
		req.Importance = &v
	}
	if s := f.Get("version"); s != "" {
		us, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return req, errField("version", "is not the version the editor was opened at")
		}
		req.Version = time.UnixMicro(us)
	}
	return req, nil
}

// normalizeNewlines undoes what a browser does to a textarea: it submits line breaks as CRLF.
func normalizeNewlines(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }
