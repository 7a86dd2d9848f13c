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
	more := ""
	if o.NextCursor != "" {
		more = fmt.Sprintf("More: call project_journal with cursor %q.", o.NextCursor)
	}
	return briefItems(fmt.Sprintf("No journal entries in project %s.", o.Project),
		fmt.Sprintf("%d journal entries in project %s, newest first:", len(o.Entries), o.Project), len(o.Entries), func(i int) string {
			e := o.Entries[i]
			who := e.Agent
			if e.Session != "" {
				who += " session " + e.Session
			}
			return fmt.Sprintf("- %s%s: %s", e.CreatedAt.UTC().Format("2006-01-02 15:04"), by(strings.TrimSpace(who)), oneLine(e.Text))
		}, more)
}

func (o ProjectSearchOutput) brief() string {
	names := shortNames(len(o.Hits), func(i int) uuid.UUID { return o.Hits[i].ID })
	return degradedNote(o.Degraded) + briefItems(fmt.Sprintf(noMatch, o.Project),
		fmt.Sprintf("%d results in project %s, best first:", len(o.Hits), o.Project), len(o.Hits), func(i int) string {
			h := o.Hits[i]
			label := h.Layer
			if h.Layer == "fact" {
				label = string(h.Kind) + flags(h.View)
			}
			return fmt.Sprintf("%d. [%s] %s (id %s, score %.2f)", i+1, label, oneLine(h.Text), names[h.ID], h.Score)
		}, "")
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
