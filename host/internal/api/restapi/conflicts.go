package restapi

import (
	"context"

	"github.com/gin-gonic/gin"

	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/memory"
)

// The conflicts inbox under /api/v1/projects/{key}/conflicts: read to list and show, admin to
// accept or dismiss, as the proposals inbox.
func (a *api) registerConflicts(read, admin gin.IRoutes) {
	const p = "/projects/:key/conflicts"
	limitWrites := a.limit(a.Limits.Writes)
	read.GET(p, a.inProject(a.conflictList))
	read.GET(p+"/:id", a.inProject(a.conflictShow))
	admin.POST(p+"/:id/accept", limitWrites, a.inProject(a.conflictAccept))
	admin.POST(p+"/:id/dismiss", limitWrites, a.inProject(a.conflictDismiss))
}

func (a *api) conflictList(ctx context.Context, acc memory.Access, c *gin.Context) (any, int, error) {
	limit, err := intQuery(c, "limit")
	if err != nil {
		return nil, 0, err
	}
	page, err := a.Brain.Conflicts(ctx, acc, brain.ConflictsRequest{Status: c.Query("status"), Limit: limit})
	return page, 0, err
}

func (a *api) conflictShow(ctx context.Context, acc memory.Access, c *gin.Context) (any, int, error) {
	id, err := a.Brain.ConflictID(ctx, acc, c.Param("id"))
	if err != nil {
		return nil, 0, err
	}
	v, err := a.Brain.Conflict(ctx, acc, id)
	return v, 0, err
}

type acceptBody struct {
	// Archive names one of the conflict's two memories (whole or short id) to archive.
	Archive string `json:"archive"`
}

func (a *api) conflictAccept(ctx context.Context, acc memory.Access, c *gin.Context) (any, int, error) {
	id, err := a.Brain.ConflictID(ctx, acc, c.Param("id"))
	if err != nil {
		return nil, 0, err
	}
	var b acceptBody
	if c.Request.ContentLength != 0 { // the body is optional
		if err := a.decode(c, &b); err != nil {
			return nil, 0, err
		}
	}
	v, err := a.Brain.AcceptConflict(ctx, acc, id, b.Archive)
	return v, 0, err
}

func (a *api) conflictDismiss(ctx context.Context, acc memory.Access, c *gin.Context) (any, int, error) {
	id, err := a.Brain.ConflictID(ctx, acc, c.Param("id"))
	if err != nil {
		return nil, 0, err
	}
	v, err := a.Brain.DismissConflict(ctx, acc, id)
	return v, 0, err
}
