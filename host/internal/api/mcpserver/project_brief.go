package mcpserver

import (
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/shortid"
)

// Briefs of the project brain's tools: what the model needs to act, in few tokens.

func (o DocumentOutput) brief() string {
	return fmt.Sprintf("%s of project %s (version %d, updated %s%s):\n%s\n%s", capitalize(o.Layer), o.Project, o.Version,
		day(o.UpdatedAt), by(o.UpdatedBy), dataNotice, o.Text)
}

func (o ProposeOutput) brief() string {
	p := o.Proposal
	if o.Duplicate {
		return fmt.Sprintf("An identical %s proposal is already waiting (proposal %s); nothing new was filed. A human decides it in the memhost inbox.", p.Layer, shortid.Of(p.ID))
	}
	return fmt.Sprintf("Proposal %s filed: the %s is unchanged until a human approves it in the memhost inbox (`memhost project inbox`).", shortid.Of(p.ID), p.Layer)
}

func (o JournalAppendOutput) brief() string {
	s := fmt.Sprintf("Logged journal entry %s in project %s.", shortid.Of(o.Entry.ID), o.Project)
	if o.Redactions > 0 {
		s += fmt.Sprintf(" %d secret(s) were redacted before storage.", o.Redactions)
	}
	return s
}

func (o JournalOutput) brief() string {
	if len(o.Entries) == 0 {
		return fmt.Sprintf("No journal entries in project %s.", o.Project)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n%d journal entries in project %s, newest first:\n", dataNotice, len(o.Entries), o.Project)
	for _, e := range o.Entries {
		who := e.Agent
		if e.Session != "" {
			who += " session " + e.Session
		}
		fmt.Fprintf(&b, "- %s%s: %s\n", e.CreatedAt.UTC().Format("2006-01-02 15:04"), by(strings.TrimSpace(who)), oneLine(e.Text))
	}
	if o.NextCursor != "" {
		fmt.Fprintf(&b, "More: call project_journal with cursor %q.", o.NextCursor)
	}
	return strings.TrimRight(b.String(), "\n")
}

func (o ProjectSearchOutput) brief() string {
	var b strings.Builder
	if o.Degraded != "" {
		fmt.Fprintf(&b, "note: %s\n", o.Degraded)
	}
	if len(o.Hits) == 0 {
		fmt.Fprintf(&b, noMatch, o.Project)
		return b.String()
	}
	fmt.Fprintf(&b, "%s\n%d results in project %s, best first:\n", dataNotice, len(o.Hits), o.Project)
	names := shortNames(len(o.Hits), func(i int) uuid.UUID { return o.Hits[i].ID })
	for i, h := range o.Hits {
		label := h.Layer
		if h.Layer == "fact" {
			label = string(h.Kind) + flags(h.View)
		}
		fmt.Fprintf(&b, "%d. [%s] %s (id %s, score %.2f)\n", i+1, label, oneLine(h.Text), names[h.ID], h.Score)
	}
	return strings.TrimRight(b.String(), "\n")
}

func (o MapOutput) brief() string {
	note := ""
	if o.Stale {
		note = " It is stale: ask for it with refresh=true and cwd, or run `memhost project map refresh` in the project."
	}
	return fmt.Sprintf("Project map of %s (built %s).%s\n%s\n%s", o.Project, day(o.GeneratedAt), note, dataNotice, o.Summary)
}

// The banner frames its agents' notes as data itself (package banner).
func (o LoadContextOutput) brief() string { return o.Text }

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func day(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

func by(who string) string {
	if who == "" {
		return ""
	}
	return " by " + who
}
