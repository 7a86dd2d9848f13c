package mcpserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/shortid"
)

// ToolConflicts lists the project's open conflicts: read-only, since an operator decides them.
const ToolConflicts = "memory_conflicts"

// ConflictsOutput is memory_conflicts' result.
type ConflictsOutput struct {
	brain.ConflictsPage
}

func (t *projectTools) registerConflicts(srv *mcp.Server) {
	addTool(srv, t.tools, toolSpec{name: ToolConflicts, title: "Open conflicts",
		description: "Pairs of this project's memories that contradict each other, open until a human decides: check before relying on either."}, t.conflicts)
}

func (t *projectTools) conflicts(ctx context.Context, _ caller, a memory.Access, _ ProjectInput) (ConflictsOutput, error) {
	page, err := t.brain.Conflicts(ctx, a, brain.ConflictsRequest{})
	return ConflictsOutput{page}, err
}

func (o ConflictsOutput) brief() string {
	return briefItems(fmt.Sprintf("No open conflicts in project %s.", o.Project),
		fmt.Sprintf("%d open conflicts in project %s, newest first (a human decides them with `memhost project conflicts`):", len(o.Conflicts), o.Project),
		len(o.Conflicts), func(i int) string {
			c := o.Conflicts[i]
			return fmt.Sprintf("- %s severity: memory %s %q vs memory %s %q: %s", c.Severity, shortid.Of(c.MemoryA), oneLine(c.TextA),
				shortid.Of(c.MemoryB), oneLine(c.TextB), oneLine(c.Evidence))
		}, "")
}
