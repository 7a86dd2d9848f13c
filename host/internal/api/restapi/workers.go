package restapi

import (
	"context"
	"net/http"

	"github.com/memhost/memhost/host/internal/wire"

	"github.com/gin-gonic/gin"
)

// The workers' routes are the operator's (an admin token bound to no project: the workers and
// their chains serve every project): each worker's state and last 24 hours, a sample task
// through a chain, and a chain changed at runtime.

// registerWorkers mounts /workers on the host-wide group.
func (a *api) registerWorkers(hostWide gin.IRoutes) {
	hostWide.GET("/workers", a.workerOp(func(ctx context.Context, _ *gin.Context) (any, error) {
		return a.Workers.Status(ctx)
	}))
	hostWide.POST("/workers/try", a.workerOp(func(ctx context.Context, c *gin.Context) (any, error) {
		var b struct {
			Task   string `json:"task"`
			Worker string `json:"worker"`
		}
		if err := a.decode(c, &b); err != nil {
			return nil, err
		}
		return a.Workers.Try(ctx, b.Task, b.Worker)
	}))
	hostWide.PUT("/workers/chains/:task", a.workerOp(func(ctx context.Context, c *gin.Context) (any, error) {
		var b struct {
			Workers []string `json:"workers"`
		}
		if err := a.decode(c, &b); err != nil {
			return nil, err
		}
		task := c.Param("task")
		if err := a.Workers.SetChain(task, b.Workers); err != nil {
			return nil, err
		}
		return gin.H{"task": task, "chain": b.Workers}, nil
	}))
}

// workerOp answers op's result as JSON, or its error through the front door's mapping.
func (a *api) workerOp(op func(ctx context.Context, c *gin.Context) (any, error)) gin.HandlerFunc {
	return func(c *gin.Context) {
		out, err := op(c.Request.Context(), c)
		if err != nil {
			fail(c, a.Logger, err)
			return
		}
		c.JSON(http.StatusOK, out)
	}
}

// Workers is what the workers' routes need of the task runner.
type Workers interface {
	Status(ctx context.Context) (wire.WorkersStatus, error)
	Try(ctx context.Context, task, worker string) (wire.TryResult, error)
	SetChain(task string, workers []string) error
}
