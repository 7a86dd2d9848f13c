package restapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/gin-gonic/gin"

	"github.com/memhost/memhost/host/internal/api/access"
	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/jobs/maintenance"
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

// ProjectLifecycle answers POST /projects/{key}/archive and /unarchive.
type ProjectLifecycle struct {
	Project  string `json:"project"`
	Archived bool   `json:"archived"`
	// Restored counts the facts unarchiving brought back (dormancy had archived them).
	Restored int `json:"restored"`
}

// archiveProject marks the project archived; the dormancy job, queued in the same
// transaction, archives its never-retrieved facts shortly after.
func (a *api) archiveProject(ctx context.Context, acc memory.Access, _ *gin.Context) (any, int, error) {
	if err := a.Maintenance.ArchiveProject(ctx, acc.Project, acc.Actor); err != nil {
		return nil, 0, err
	}
	return ProjectLifecycle{Project: acc.Project, Archived: true}, 0, nil
}

func (a *api) unarchiveProject(ctx context.Context, acc memory.Access, _ *gin.Context) (any, int, error) {
	restored, err := a.Maintenance.UnarchiveProject(ctx, acc.Project, acc.Actor)
	if err != nil {
		return nil, 0, err
	}
	return ProjectLifecycle{Project: acc.Project, Restored: len(restored)}, 0, nil
}

// MaintenanceJob is one job in GET /api/v1/maintenance.
type MaintenanceJob struct {
	Job     string          `json:"job"`
	Kind    string          `json:"kind"` // River's job kind, as in its tables
	Enabled bool            `json:"enabled"`
	Every   string          `json:"every"`
	Next    *time.Time      `json:"next_run,omitempty"`
	Last    *MaintenanceRun `json:"last_run,omitempty"`
}

// MaintenanceRun is one run of a job.
type MaintenanceRun struct {
	Trigger    string     `json:"trigger"` // periodic, manual or event
	Project    string     `json:"project,omitempty"`
	DryRun     bool       `json:"dry_run"`
	Host       string     `json:"host"`
	StartedAt  time.Time  `json:"started_at"`
	FinishedAt *time.Time `json:"finished_at,omitempty"`
	Outcome    string     `json:"outcome"` // running, ok, partial, failed or skipped
	Error      string     `json:"error,omitempty"`
	Examined   int64      `json:"examined"`
	Changed    int64      `json:"changed"`
	LLMCalls   int64      `json:"llm_calls"`
	Tokens     int64      `json:"tokens"`
}

// MaintenanceReport is POST /api/v1/maintenance/{job}/run's answer: the run and what it
// changed (or, dry, would change), at most 100 items; the counts are complete.
type MaintenanceReport struct {
	Job   string             `json:"job"`
	Run   MaintenanceRun     `json:"run"`
	Items []maintenance.Item `json:"items"`
}

func runOf(r pgstore.MaintenanceRun) MaintenanceRun {
	return MaintenanceRun{Trigger: r.Trigger, Project: r.Project, DryRun: r.DryRun, Host: r.Host, StartedAt: r.StartedAt,
		FinishedAt: r.FinishedAt, Outcome: r.Outcome, Error: r.Error, Examined: r.Examined, Changed: r.Changed,
		LLMCalls: r.LLMCalls, Tokens: r.Tokens}
}

func (a *api) maintenanceStatus(c *gin.Context) {
	st, err := a.Maintenance.Status(c.Request.Context(), principal(c).ProjectKey)
	if err != nil {
		fail(c, a.Logger, err)
		return
	}
	out := make([]MaintenanceJob, 0, len(st))
	for _, s := range st {
		j := MaintenanceJob{Job: s.Job, Kind: s.Kind, Enabled: s.Enabled, Every: s.Every.String(), Next: s.Next}
		if s.Last != nil {
			r := runOf(*s.Last)
			j.Last = &r
		}
		out = append(out, j)
	}
	c.JSON(http.StatusOK, gin.H{"jobs": out})
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
	opts := maintenance.RunOptions{Project: project, DryRun: dry, Actor: "token:" + p.Name}
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
	rep, err := a.Maintenance.RunNow(c.Request.Context(), job, opts)
	if errors.Is(err, maintenance.ErrUnknownJob) {
		err = &rules.FieldError{Field: "job", Message: fmt.Sprintf("unknown job %q (valid: %s)", job, strings.Join(a.Maintenance.Jobs(), ", "))}
	}
	if err != nil {
		fail(c, a.Logger, err)
		return
	}
	run := runOf(rep.Run)
	items := rep.Result.Items
	if items == nil {
		items = []maintenance.Item{}
	}
	c.JSON(http.StatusOK, MaintenanceReport{Job: job, Run: run, Items: items})
}
