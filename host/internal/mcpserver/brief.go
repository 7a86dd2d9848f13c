package mcpserver

import (
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/memory"
	"github.com/memhost/memhost/host/internal/shortid"
)

// Brief renders a tool's output as the compact text a model reads: what it needs to act (the
// text, its kind, its id to act on, a score), one line per memory, no provenance, timestamps or
// ranking internals. The full output stays in structuredContent for programs; memory_get
// gives the details of one memory. "" means the tool's JSON is already the right answer.
func Brief(out any) string {
	switch o := out.(type) {
	case SearchOutput:
		return briefSearch(o)
	case ListOutput:
		return briefList(o)
	case memory.StoreResult:
		return briefStore(o)
	case briefer:
		return o.brief()
	}
	return ""
}

// briefer is an output that renders its own brief (the project brain's tools).
type briefer interface{ brief() string }

func briefSearch(o SearchOutput) string {
	var b strings.Builder
	if o.Degraded != "" {
		fmt.Fprintf(&b, "note: %s\n", o.Degraded)
	}
	if len(o.Hits) == 0 {
		fmt.Fprintf(&b, "No memories match in project %s.", o.Project)
		return b.String()
	}
	fmt.Fprintf(&b, "%d memories in project %s, best first (memory_get ID for details):\n", len(o.Hits), o.Project)
	names := shortNames(len(o.Hits), func(i int) uuid.UUID { return o.Hits[i].ID })
	for i, h := range o.Hits {
		fmt.Fprintf(&b, "%d. [%s%s] %s (id %s, score %.2f)\n", i+1, h.Kind, flags(h.View), oneLine(h.Text), names[h.ID], h.Score)
	}
	return strings.TrimRight(b.String(), "\n")
}

func briefList(o ListOutput) string {
	var b strings.Builder
	if len(o.Memories) == 0 {
		fmt.Fprintf(&b, "No memories in project %s.", o.Project)
		return b.String()
	}
	fmt.Fprintf(&b, "%d memories in project %s, newest first:\n", len(o.Memories), o.Project)
	names := shortNames(len(o.Memories), func(i int) uuid.UUID { return o.Memories[i].ID })
	for _, m := range o.Memories {
		fmt.Fprintf(&b, "- [%s%s] %s (id %s)\n", m.Kind, flags(m), oneLine(m.Text), names[m.ID])
	}
	if o.NextCursor != "" {
		fmt.Fprintf(&b, "More: call memory_list with cursor %q.", o.NextCursor)
	}
	return strings.TrimRight(b.String(), "\n")
}

func briefStore(r memory.StoreResult) string {
	var b strings.Builder
	switch {
	case r.Exact:
		fmt.Fprintf(&b, "Already known: identical to memory %s; nothing new was added.", shortid.Of(r.ID))
	case r.Folded:
		fmt.Fprintf(&b, "Folded into existing memory %s (similarity %.2f); its text is now: %s", shortid.Of(r.ID), r.Similarity, oneLine(r.Memory.Text))
	default:
		fmt.Fprintf(&b, "Stored as memory %s.", shortid.Of(r.ID))
	}
	if r.Redactions > 0 {
		fmt.Fprintf(&b, " %d secret(s) were redacted before storage.", r.Redactions)
	}
	return b.String()
}

// shortNames are the short ids of n listed items, unique among them.
func shortNames(n int, id func(int) uuid.UUID) map[uuid.UUID]string {
	ids := make([]uuid.UUID, n)
	for i := range ids {
		ids[i] = id(i)
	}
	return shortid.Shorten(ids)
}

// flags marks what changes how a memory should be read.
func flags(v memory.View) string {
	var f string
	if v.Pinned {
		f += ", pinned"
	}
	if v.Scope == "global" {
		f += ", global"
	}
	if v.ArchivedAt != nil {
		f += ", archived"
	}
	return f
}

// oneLine keeps a memory on its line: line breaks become spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
