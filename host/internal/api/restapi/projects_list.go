package restapi

import (
	"context"
	"fmt"
	"net/http"

	"github.com/memhost/memhost/host/internal/core/rules"
	"github.com/memhost/memhost/host/internal/wire"

	"github.com/gin-gonic/gin"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/core/store"
)

// GET /api/v1/projects is the operator's overview of a shared database (`memhost projects`):
// every project that holds anything, most recently active first, with its counts. It needs
// the admin scope: the keys of other projects are not an agent's business. A token bound to a
// project sees that project's row alone, as it reaches no other project anywhere.

// ProjectLister lists the projects that hold anything; *pgstore.Store implements it.
type ProjectLister interface {
	Projects(ctx context.Context, q store.ProjectsQuery) ([]store.ProjectSummary, error)
}

const (
	defaultProjects = 50
	maxProjects     = 200
)

func (a *api) registerProjectList(authed gin.IRouter) {
	authed.GET("/projects", a.require(auth.ScopeAdmin), a.limit(a.Limits.Reads), a.listProjects)
}

func (a *api) listProjects(c *gin.Context) {
	page, err := a.projectPage(c)
	if err != nil {
		fail(c, a.Logger, err)
		return
	}
	c.JSON(http.StatusOK, page)
}

func (a *api) projectPage(c *gin.Context) (wire.ProjectsPage, error) {
	limit, err := intQuery(c, "limit")
	switch {
	case err != nil:
		return wire.ProjectsPage{}, err
	case limit == 0:
		limit = defaultProjects
	case limit < 1 || limit > maxProjects:
		return wire.ProjectsPage{}, &rules.FieldError{Field: "limit", Message: fmt.Sprintf("%d is out of range 1..%d", limit, maxProjects)}
	}
	q := store.ProjectsQuery{Key: principal(c).ProjectKey, Limit: limit + 1}
	if v := c.Query("cursor"); v != "" {
		cur, ok := store.ParseProjectsCursor(v)
		if !ok {
			return wire.ProjectsPage{}, &rules.FieldError{Field: "cursor", Message: "is not a cursor returned by a previous page"}
		}
		q.After = &cur
	}
	rows, err := a.Projects.Projects(c.Request.Context(), q)
	if err != nil {
		return wire.ProjectsPage{}, err
	}
	var page wire.ProjectsPage
	if len(rows) > limit {
		rows = rows[:limit]
		page.NextCursor = store.ProjectsCursorOf(rows[limit-1]).String()
	}
	page.Projects = make([]wire.ProjectRow, len(rows))
	for i, p := range rows {
		page.Projects[i] = wire.ProjectRow{Key: p.Key, Memories: p.Memories, Archived: p.Archived,
			PendingProposals: p.PendingProposals, JournalEntries: p.Journal, LastActivity: p.LastActivity}
	}
	return page, nil
}
