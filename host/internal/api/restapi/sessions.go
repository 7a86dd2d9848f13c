package restapi

import (
	"context"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/rules"
	"github.com/memhost/memhost/host/internal/wire"
)

// Session records and value figures (docs/value.md): the clients that run sessions post the
// task-scoped banner, each prompt's context and the session's end; operators and the console
// read the sessions, a memory's access log and the value report. A token bound to a project
// reaches only that project's.

// registerSessions mounts the session routes under /projects/{key}.
func (a *api) registerSessions(read, write gin.IRoutes) {
	const p = "/projects/:key"
	read.POST(p+"/banner", a.inProject(a.sessionBanner))
	read.POST(p+"/prompt-context", a.inProject(a.promptContext))
	write.POST(p+"/sessions/end", a.limit(a.Limits.Writes), a.inProject(a.endSession))
	read.GET(p+"/sessions", a.inProject(a.sessions))
	read.GET(p+"/sessions/:session", a.inProject(a.session))
	read.GET(p+"/memories/:id/access", a.inProject(a.memoryAccess))
	read.GET(p+"/value", a.inProject(a.value))
}

// sessionRef is the session a banner request names, if any.
func sessionRef(r *wire.SessionRef) brain.SessionRef {
	if r == nil {
		return brain.SessionRef{}
	}
	return *r
}

// sessionBanner answers POST .../banner: the banner for a session, led by the facts relevant
// to its task when the body names one, and kept in the session's record when it names the
// session. ?format=text answers the text alone, as GET does.
func (a *api) sessionBanner(ctx context.Context, acc memory.Access, c *gin.Context) (any, int, error) {
	var b wire.BannerRequest
	if err := a.decode(c, &b); err != nil {
		return nil, 0, err
	}
	format := c.DefaultQuery("format", "json")
	if format != "json" && format != "text" {
		return nil, 0, rules.Errf("format", "must be json or text")
	}
	v, err := a.Brain.Banner(ctx, acc, brain.BannerRequest{CLI: b.CLI, Budget: b.Budget, Task: b.Task, Session: sessionRef(b.Session)})
	if err == nil && format == "text" {
		c.Data(http.StatusOK, "text/plain; charset=utf-8", []byte(v.Text))
	}
	return v, 0, err
}

func (a *api) promptContext(ctx context.Context, acc memory.Access, c *gin.Context) (any, int, error) {
	var b wire.PromptRequest
	if err := a.decode(c, &b); err != nil {
		return nil, 0, err
	}
	p, err := a.Brain.PromptContext(ctx, acc, brain.PromptRequest{Session: b.Session, Prompt: b.Prompt, Budget: b.Budget})
	if err != nil {
		return nil, 0, err
	}
	out := wire.PromptContext{Project: p.Project, Text: p.Text, Tokens: p.Tokens, Memories: make([]string, len(p.Memories)), Mode: p.Mode}
	for i, id := range p.Memories {
		out.Memories[i] = id.String()
	}
	return out, 0, nil
}

func (a *api) endSession(ctx context.Context, acc memory.Access, c *gin.Context) (any, int, error) {
	var b wire.SessionEnd
	if err := a.decode(c, &b); err != nil {
		return nil, 0, err
	}
	r, err := a.Brain.EndSession(ctx, acc, b)
	if err != nil {
		return nil, 0, err
	}
	return wire.SessionEndResult{Project: r.Project, Session: r.Session.String(), Recorded: r.Recorded, Used: r.Used, Saved: r.Saved, SavedFacts: r.SavedFacts}, 0, nil
}

func (a *api) sessions(ctx context.Context, acc memory.Access, c *gin.Context) (any, int, error) {
	limit, err := intQuery(c, "limit")
	if err != nil {
		return nil, 0, err
	}
	since, err := windowQuery(c, "since")
	if err != nil {
		return nil, 0, err
	}
	page, err := a.Brain.Sessions(ctx, acc, brain.SessionsRequest{Since: since, CLI: c.Query("cli"), Limit: limit, Cursor: c.Query("cursor")})
	return page, 0, err
}

func (a *api) session(ctx context.Context, acc memory.Access, c *gin.Context) (any, int, error) {
	d, err := a.Brain.Session(ctx, acc, c.Param("session"))
	return d, 0, err
}

func (a *api) memoryAccess(ctx context.Context, acc memory.Access, c *gin.Context) (any, int, error) {
	log, err := a.Brain.MemoryAccess(ctx, acc, c.Param("id"))
	return log, 0, err
}

// value answers GET .../value?since=7d&unused_after=5&sessions=50.
func (a *api) value(ctx context.Context, acc memory.Access, c *gin.Context) (any, int, error) {
	since, err := windowQuery(c, "since")
	if err != nil {
		return nil, 0, err
	}
	unused, err := intQuery(c, "unused_after")
	if err != nil {
		return nil, 0, err
	}
	rows, err := intQuery(c, "sessions")
	if err != nil {
		return nil, 0, err
	}
	r, err := a.Brain.Value(ctx, acc, brain.ValueRequest{Since: since, UnusedAfter: unused, Sessions: rows})
	return r, 0, err
}

// windowQuery reads an optional window: a Go duration (36h, 90m) or a number of days (7d);
// absent is 0.
func windowQuery(c *gin.Context, name string) (time.Duration, error) {
	v := c.Query(name)
	if v == "" {
		return 0, nil
	}
	d, ok := wire.ParseWindow(v)
	if !ok {
		return 0, rules.Errf(name, "%q is not a window: give a positive duration such as 7d, 36h or 90m", v)
	}
	return d, nil
}
