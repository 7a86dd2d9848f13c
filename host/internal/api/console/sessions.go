package console

import (
	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/wire"
)

// The Sessions screen (issue 28's records, read through brain.Service as REST reads them):
// each session of an agent CLI the host saw in a project, run or connected, with what it was
// given, searched and read, stored and cited; the project's value figures over a window; one
// session's every memory in the order it met them. Every figure is the host's (brain.Value,
// brain.Sessions): the page formats, it never counts.

// sessionsView is the Sessions screen's data.
type sessionsView struct {
	Since string // the window as asked, e.g. 7d
	Value brain.ValueReport
	Page  brain.SessionPage
	CLI   string
	Next  string // the next page's URL, "" on the last
}

// defaultSessionsWindow is the window the value figures cover unless ?since= says otherwise,
// as `memhost project value` defaults.
const defaultSessionsWindow = "7d"

func (c *Console) sessions(cl *call) error {
	if cl.p.ProjectKey == "" && cl.r.FormValue("project") == "" {
		return cl.redirect(Prefix, "")
	}
	acc, err := cl.resolve()
	if err != nil {
		return err
	}
	v := sessionsView{Since: cl.r.FormValue("since"), CLI: cl.r.FormValue("cli")}
	if v.Since == "" {
		v.Since = defaultSessionsWindow
	}
	d, ok := wire.ParseWindow(v.Since)
	if !ok {
		return errField("since", "%q is not a window: give a positive duration such as 7d, 36h or 90m", clip(20, v.Since))
	}
	ctx := cl.r.Context()
	if v.Value, err = c.Brain.Value(ctx, acc, brain.ValueRequest{Since: d}); err != nil {
		return err
	}
	if v.Page, err = c.Brain.Sessions(ctx, acc, brain.SessionsRequest{Since: d, CLI: v.CLI, Cursor: cl.r.FormValue("cursor")}); err != nil {
		return err
	}
	if v.Page.NextCursor != "" {
		v.Next = pageURL("sessions", "project", acc.Project, "since", v.Since, "cli", v.CLI, "cursor", v.Page.NextCursor)
	}
	c.render(cl.w, cl.r, cl, 200, "sessions", v)
	return nil
}

// sessionView is one session's page: its record, and the memories it met grouped by event.
type sessionView struct {
	S brain.SessionDetail
	// ByEvent are the memories per event, in the order the session met them.
	ByEvent []sessionEvent
	// Written is the session key its own writes carry (Provenance.Session): what it stored
	// and what a worker extracted from its transcript, listed on the Memories screen.
	Written string
}

// sessionEvent is one event's memories on a session's page.
type sessionEvent struct {
	Event, Heading string
	Memories       []brain.SessionMemory
}

// sessionEvents are the events a record keeps, in the order a session meets them.
var sessionEvents = []struct {
	event   store.SessionEvent
	heading string
}{
	{store.EventGiven, "Given (its banner, its prompt hooks)"},
	{store.EventRetrieved, "Searched and read (search hits, gets)"},
	{store.EventStored, "Stored"},
	{store.EventCited, "Cited in its answers"},
}

func (c *Console) session(cl *call) error {
	acc, err := cl.resolve()
	if err != nil {
		return err
	}
	d, err := c.Brain.Session(cl.r.Context(), acc, cl.r.PathValue("id"))
	if err != nil {
		return err
	}
	v := sessionView{S: d, Written: d.CLISession}
	if v.Written == "" {
		v.Written = d.Key
	}
	for _, e := range sessionEvents {
		se := sessionEvent{Event: string(e.event), Heading: e.heading}
		for _, m := range d.Memories {
			if m.Event == string(e.event) {
				se.Memories = append(se.Memories, m)
			}
		}
		v.ByEvent = append(v.ByEvent, se)
	}
	c.render(cl.w, cl.r, cl, 200, "session", v)
	return nil
}
