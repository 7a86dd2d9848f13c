package restapi

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/wire"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/gin-gonic/gin"

	"github.com/memhost/memhost/host/internal/api/access"
	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/core/memory"
)

// registerMaintenance mounts the maintenance routes on the admin group. An operator's token
// (admin, bound to no project) shows and runs jobs across every project; an admin token bound
// to a project sees only the runs over its project and runs only project-scoped jobs, there
// (maintenanceProject), and archives only its own project (inProject).
func (a *api) registerMaintenance(admin gin.IRoutes) {
	admin.GET("/maintenance", a.maintenanceStatus)
	admin.POST("/maintenance/:job/run", a.limit(a.Limits.Writes), a.maintenanceRun)
	admin.POST("/projects/:key/archive", a.limit(a.Limits.Writes), a.inProject(a.archiveProject))
	admin.POST("/projects/:key/unarchive", a.limit(a.Limits.Writes), a.inProject(a.unarchiveProject))
}

// Maintenance is what the maintenance routes need of the scheduler (*maintenance.Maintenance,
// which the daemon passes): the jobs' status and a run by hand, answered in wire's types, which
// jobs are host-wide, and a project's archiving.
type Maintenance interface {
	StatusReport(ctx context.Context, project string) ([]wire.MaintenanceJob, error)
	RunReport(ctx context.Context, job string, o wire.RunOptions) (wire.MaintenanceReport, error)
	HostWide(job string) bool
	ArchiveProject(ctx context.Context, project, actor string) error
	UnarchiveProject(ctx context.Context, project, actor string) ([]uuid.UUID, error)
}

// archiveProject marks the project archived; the dormancy job, queued in the same
// transaction, archives its never-retrieved facts shortly after.
func (a *api) archiveProject(ctx context.Context, acc memory.Access, _ *gin.Context) (any, int, error) {
	if err := a.Maintenance.ArchiveProject(ctx, acc.Project, acc.Actor); err != nil {
		return nil, 0, err
	}
	return wire.ProjectLifecycle{Project: acc.Project, Archived: true}, 0, nil
}

func (a *api) unarchiveProject(ctx context.Context, acc memory.Access, _ *gin.Context) (any, int, error) {
	restored, err := a.Maintenance.UnarchiveProject(ctx, acc.Project, acc.Actor)
	if err != nil {
		return nil, 0, err
	}
	return wire.ProjectLifecycle{Project: acc.Project, Restored: len(restored)}, 0, nil
}

func (a *api) maintenanceStatus(c *gin.Context) {
	jobs, err := a.Maintenance.StatusReport(c.Request.Context(), principal(c).ProjectKey)
	if err != nil {
		fail(c, a.Logger, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"jobs": jobs})
}

// maintenanceProject decides which project a run by hand covers: for a token bound to a
// project, that project (it may name no other); for an operator's token, the project it names,
// "" for every project.
func maintenanceProject(p auth.Principal, requested string) (string, error) {
	if p.ProjectKey == "" {
		return access.CleanKey("project", requested)
	}
	acc, err := access.Resolve(p, access.Target{Project: requested})
	return acc.Project, err
}

func (a *api) maintenanceRun(c *gin.Context) {
	job := c.Param("job")
	dry := false
	if v := c.Query("dry_run"); v != "" {
		var err error
		if dry, err = strconv.ParseBool(v); err != nil {
			fail(c, a.Logger, &rules.FieldError{Field: "dry_run", Message: fmt.Sprintf("%q is not true or false", v)})
			return
		}
	}
	p := principal(c)
	project, err := maintenanceProject(p, c.Query("project"))
	if err != nil {
		fail(c, a.Logger, err)
		return
	}
	if a.Maintenance.HostWide(job) {
		if err := p.RequireHostWide(fmt.Sprintf("the %s job", job)); err != nil {
			fail(c, a.Logger, err)
			return
		}
	}
	opts := wire.RunOptions{Project: project, DryRun: dry, Actor: "token:" + p.Name}
	if v := c.Query("older_than"); v != "" {
		d, err := config.ParseAge(v)
		if err != nil || d < time.Second {
			fail(c, a.Logger, &rules.FieldError{Field: "older_than", Message: fmt.Sprintf("%q is not a duration of at least 1s (90d, 36h, 30m)", v)})
			return
		}
		opts.OlderThan = d
	}
	// A run by hand answers when it is done, bounded by its job's max_duration, which may
	// exceed the server's write timeout (server.write_timeout, 60 s): lift it for this answer.
	// The client going away still cancels the run through the request's context.
	if err := http.NewResponseController(c.Writer).SetWriteDeadline(time.Time{}); err != nil {
		a.Logger.Warn("maintenance run: keep the write deadline", "err", err)
	}
	rep, err := a.Maintenance.RunReport(c.Request.Context(), job, opts)
	if err != nil {
		fail(c, a.Logger, err)
		return
	}
	c.JSON(http.StatusOK, rep)
}
