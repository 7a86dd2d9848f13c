package restapi

import (
	"cmp"
	"context"
	"net/http"
	"strconv"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/api/access"
	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
)

// The project brain's routes live under /api/v1/projects/{key}. A project key holds slashes
// (github.com/acme/app), so clients percent-encode it as one path segment
// (github.com%2Facme%2Fapp) and the engine must route on the raw path (gin's UseRawPath, which
// the host sets); a token bound to a project reaches only that project.

// registerProjects mounts the project routes on the read, write and admin groups.
func (a *api) registerProjects(read, write, admin gin.IRoutes) {
	const p = "/projects/:key"
	limitWrites := a.limit(a.Limits.Writes)
	read.GET(p+"/goal", a.inProject(a.document(store.KindGoal)))
	read.GET(p+"/plan", a.inProject(a.document(store.KindPlan)))
	admin.PUT(p+"/goal", limitWrites, a.inProject(a.setDocument(store.KindGoal)))
	admin.PUT(p+"/plan", limitWrites, a.inProject(a.setDocument(store.KindPlan)))
	read.GET(p+"/proposals", a.inProject(a.inbox))
	write.POST(p+"/proposals", limitWrites, a.inProject(a.propose))
	read.GET(p+"/proposals/:id", a.inProject(a.proposal))
	admin.POST(p+"/proposals/:id/approve", limitWrites, a.inProject(a.decide(true)))
	admin.POST(p+"/proposals/:id/reject", limitWrites, a.inProject(a.decide(false)))
	read.GET(p+"/journal", a.inProject(a.journal))
	write.POST(p+"/journal", limitWrites, a.inProject(a.appendJournal))
	read.POST(p+"/search", a.inProject(a.projectSearch))
	read.GET(p+"/map", a.inProject(a.getMap))
	write.PUT(p+"/map", limitWrites, a.inProject(a.putMap))
	read.GET(p+"/banner", a.inProject(a.banner))
	read.GET(p+"/health", a.inProject(a.health))
	a.registerSessions(read, write)
}

// projectOp serves one project route once the project is resolved; status is the success
// status (0 means 200). An op that writes the response itself returns nothing.
type projectOp func(ctx context.Context, acc memory.Access, c *gin.Context) (out any, status int, err error)

// inProject resolves {key} through the front door and runs op.
func (a *api) inProject(op projectOp) gin.HandlerFunc {
	return func(c *gin.Context) {
		acc, err := access.Resolve(principal(c), access.Target{Project: c.Param("key")})
		if err != nil {
			fail(c, a.Logger, err)
			return
		}
		out, status, err := op(c.Request.Context(), acc, c)
		a.answer(c, out, status, err)
	}
}

// answer writes a route's answer: out as JSON with status (0: 200 OK), or err through fail;
// nothing when the route already answered in a format of its own.
func (a *api) answer(c *gin.Context, out any, status int, err error) {
	switch {
	case err != nil:
		fail(c, a.Logger, err)
		return
	case c.Writer.Written():
		return
	}
	if status == 0 {
		status = http.StatusOK
	}
	c.JSON(status, out)
}

func (a *api) document(kind store.Kind) projectOp {
	return func(ctx context.Context, acc memory.Access, _ *gin.Context) (any, int, error) {
		d, err := a.Brain.Document(ctx, acc, kind)
		return d, 0, err
	}
}

type documentBody struct {
	Text string `json:"text"`
	// Source is the provenance the client names (the memhost CLI: "cli"); "" is "rest".
	Source string `json:"source"`
}

func (a *api) setDocument(kind store.Kind) projectOp {
	return func(ctx context.Context, acc memory.Access, c *gin.Context) (any, int, error) {
		var b documentBody
		if err := a.decode(c, &b); err != nil {
			return nil, 0, err
		}
		d, err := a.Brain.SetDocument(ctx, acc, kind, brain.SetRequest{Text: b.Text, Source: cmp.Or(b.Source, "rest")})
		return d, 0, err
	}
}

func (a *api) inbox(ctx context.Context, acc memory.Access, c *gin.Context) (any, int, error) {
	limit, err := intQuery(c, "limit")
	if err != nil {
		return nil, 0, err
	}
	page, err := a.Brain.Inbox(ctx, acc, brain.InboxRequest{Status: c.Query("status"), Limit: limit})
	return page, 0, err
}

type proposeBody struct {
	Layer   string `json:"layer"`
	Text    string `json:"text"`
	Reason  string `json:"reason"`
	Agent   string `json:"agent"`
	Session string `json:"session"`
}

func (a *api) propose(ctx context.Context, acc memory.Access, c *gin.Context) (any, int, error) {
	var b proposeBody
	if err := a.decode(c, &b); err != nil {
		return nil, 0, err
	}
	res, err := a.Brain.Propose(ctx, acc, brain.ProposeRequest{Layer: b.Layer, Text: b.Text, Reason: b.Reason, Agent: b.Agent, Session: b.Session})
	if res.Duplicate {
		return res, http.StatusOK, err
	}
	return res, http.StatusCreated, err
}

// proposalID resolves :id, a whole id or a short one as the inbox shows it.
func (a *api) proposalID(ctx context.Context, acc memory.Access, c *gin.Context) (uuid.UUID, error) {
	return a.Brain.ProposalID(ctx, acc, c.Param("id"))
}

func (a *api) proposal(ctx context.Context, acc memory.Access, c *gin.Context) (any, int, error) {
	id, err := a.proposalID(ctx, acc, c)
	if err != nil {
		return nil, 0, err
	}
	d, err := a.Brain.Proposal(ctx, acc, id)
	return d, 0, err
}

func (a *api) decide(approve bool) projectOp {
	return func(ctx context.Context, acc memory.Access, c *gin.Context) (any, int, error) {
		id, err := a.proposalID(ctx, acc, c)
		if err != nil {
			return nil, 0, err
		}
		if approve {
			res, err := a.Brain.Approve(ctx, acc, id)
			return res, 0, err
		}
		res, err := a.Brain.Reject(ctx, acc, id)
		return res, 0, err
	}
}

func (a *api) journal(ctx context.Context, acc memory.Access, c *gin.Context) (any, int, error) {
	limit, err := intQuery(c, "limit")
	if err != nil {
		return nil, 0, err
	}
	page, err := a.Brain.Journal(ctx, acc, brain.JournalQuery{Limit: limit, Cursor: c.Query("cursor")})
	return page, 0, err
}

type journalBody struct {
	Text           string `json:"text"`
	Agent          string `json:"agent"`
	Session        string `json:"session"`
	Transcript     string `json:"transcript"`
	TranscriptNote string `json:"transcript_note"`
}

func (a *api) appendJournal(ctx context.Context, acc memory.Access, c *gin.Context) (any, int, error) {
	var b journalBody
	if err := a.decode(c, &b); err != nil {
		return nil, 0, err
	}
	res, err := a.Brain.AppendJournal(ctx, acc, brain.JournalRequest{Text: b.Text, Agent: b.Agent, Session: b.Session, Source: "rest",
		Transcript: b.Transcript, TranscriptNote: b.TranscriptNote})
	return res, http.StatusCreated, err
}

type projectSearchBody struct {
	Query    string   `json:"query"`
	Layers   []string `json:"layers"`
	TopK     int      `json:"top_k"`
	MinScore float64  `json:"min_score"`
}

func (a *api) projectSearch(ctx context.Context, acc memory.Access, c *gin.Context) (any, int, error) {
	var b projectSearchBody
	if err := a.decode(c, &b); err != nil {
		return nil, 0, err
	}
	res, err := a.Brain.Search(ctx, acc, brain.SearchRequest{Query: b.Query, Layers: b.Layers, TopK: b.TopK, MinScore: b.MinScore})
	return res, 0, err
}

func (a *api) getMap(ctx context.Context, acc memory.Access, _ *gin.Context) (any, int, error) {
	m, err := a.Brain.Map(ctx, acc, brain.MapRequest{})
	return m, 0, err
}

// putMap stores the map in the body, projectmap's JSON form, as the CLI uploads it.
func (a *api) putMap(ctx context.Context, acc memory.Access, c *gin.Context) (any, int, error) {
	data, err := a.rawBody(c)
	if err != nil {
		return nil, 0, err
	}
	m, err := a.Brain.PutMap(ctx, acc, data)
	m.Map = nil // the caller sent it
	return m, 0, err
}

// banner answers JSON, or the banner's text alone with ?format=text (for hooks that print it).
func (a *api) banner(ctx context.Context, acc memory.Access, c *gin.Context) (any, int, error) {
	budget, err := intQuery(c, "budget")
	if err != nil {
		return nil, 0, err
	}
	format := c.DefaultQuery("format", "json")
	if format != "json" && format != "text" {
		return nil, 0, &rules.FieldError{Field: "format", Message: "must be json or text"}
	}
	b, err := a.Brain.Banner(ctx, acc, brain.BannerRequest{CLI: c.Query("cli"), Budget: budget})
	if err == nil && format == "text" {
		c.Data(http.StatusOK, "text/plain; charset=utf-8", []byte(b.Text))
	}
	return b, 0, err
}

func (a *api) health(ctx context.Context, acc memory.Access, _ *gin.Context) (any, int, error) {
	h, err := a.Brain.Health(ctx, acc)
	return h, 0, err
}

// intQuery reads an optional integer query parameter; absent is 0.
func intQuery(c *gin.Context, name string) (int, error) {
	v := c.Query(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, &rules.FieldError{Field: name, Message: "must be an integer"}
	}
	return n, nil
}
