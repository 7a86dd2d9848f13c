package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memhost/memhost/host/internal/api/auth"
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
	addTool(srv, t.tools, &mcp.Tool{
		Name:        ToolConflicts,
		Title:       "Open conflicts",
		Description: "Pairs of this project's memories that contradict each other, open until a human decides: check before relying on either.",
		Annotations: &mcp.ToolAnnotations{Title: "Open conflicts", ReadOnlyHint: true, DestructiveHint: no, IdempotentHint: true, OpenWorldHint: no},
	}, auth.ScopeRead, false, t.conflicts)
}

func (t *projectTools) conflicts(ctx context.Context, _ caller, a memory.Access, _ ProjectInput) (ConflictsOutput, error) {
	page, err := t.brain.Conflicts(ctx, a, brain.ConflictsRequest{})
	return ConflictsOutput{page}, err
}

func (o ConflictsOutput) brief() string {
	if len(o.Conflicts) == 0 {
		return fmt.Sprintf("No open conflicts in project %s.", o.Project)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n%d open conflicts in project %s, newest first (a human decides them with `memhost project conflicts`):\n", dataNotice, len(o.Conflicts), o.Project)
	for _, c := range o.Conflicts {
		fmt.Fprintf(&b, "- %s severity: memory %s %q vs memory %s %q: %s\n", c.Severity, shortid.Of(c.MemoryA), oneLine(c.TextA),
			shortid.Of(c.MemoryB), oneLine(c.TextB), oneLine(c.Evidence))
	}
	return strings.TrimRight(b.String(), "\n")
}
