package server

import (
	"context"

	"github.com/memhost/memhost/host/internal/jobs/tasks"
)

// StartWorkers launches the LLM workers ([workers], or the agent CLIs on PATH) and sets
// c.Tasks. Serve calls it; commands that open a core for one operation do not, so they start
// no worker processes.
func (c *Core) StartWorkers(ctx context.Context) error {
	if c.Tasks != nil {
		return nil
	}
	r, err := tasks.Open(ctx, tasks.Options{Config: c.Config, Pool: c.Pool, Log: c.Log, Registerer: c.Registry})
	if err != nil {
		return err
	}
	c.Tasks = r
	return nil
}
