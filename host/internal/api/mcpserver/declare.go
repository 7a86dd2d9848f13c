package mcpserver

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memhost/memhost/host/internal/api/auth"
)

// Where is the pair of optional fields every tool's input has, which picks the call's project
// for a token bound to none (fieldsNote explains them once). Each input embeds it where its
// fields stand in the schema's property order.
type Where struct {
	Project string `json:"project,omitempty"`
	Cwd     string `json:"cwd,omitempty"`
}

func (w Where) where() (project, cwd string) { return w.Project, w.Cwd }

// Author is the pair of optional fields of the tools that write, which record who wrote
// (fieldsNote); the agent defaults to the MCP client's name.
type Author struct {
	Agent   string `json:"agent,omitempty"`
	Session string `json:"session,omitempty"`
}

// toolSpec declares one tool: what tools/list shows of it and what a call needs. The rest
// follows from write: a reading tool needs memory:read, counts against the read rate and is
// read-only, destructive never and idempotent always; a writing tool needs memory:write and
// counts against the write rate. No tool reaches outside memhost (OpenWorldHint false).
type toolSpec struct {
	name, title, description string
	write                    bool
	destructive              bool // a write that hides what agents rely on (DestructiveHint)
	idempotent               bool // a write whose repetition adds no further effect (IdempotentHint)
}

func (s toolSpec) tool() *mcp.Tool {
	return &mcp.Tool{Name: s.name, Title: s.title, Description: s.description, Annotations: &mcp.ToolAnnotations{
		Title: s.title, ReadOnlyHint: !s.write, DestructiveHint: ptr(s.write && s.destructive),
		IdempotentHint: !s.write || s.idempotent, OpenWorldHint: ptr(false),
	}}
}

func (s toolSpec) scope() auth.Scope {
	if s.write {
		return auth.ScopeWrite
	}
	return auth.ScopeRead
}

func ptr[T any](v T) *T { return &v }
