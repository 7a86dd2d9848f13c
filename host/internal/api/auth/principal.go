package auth

import (
	"fmt"
	"slices"

	"github.com/google/uuid"
)

// Principal is the identity a request runs as: the token that authenticated it.
type Principal struct {
	TokenID uuid.UUID
	Name    string
	Scopes  []Scope
	// ProjectKey binds the token to one project; "" means any project.
	ProjectKey string
}

// Has reports whether the principal holds scope s; admin holds every scope.
func (p Principal) Has(s Scope) bool {
	return slices.Contains(p.Scopes, ScopeAdmin) || slices.Contains(p.Scopes, s)
}

func (p Principal) boundTo(key string) bool {
	return p.ProjectKey == "" || p.ProjectKey == key
}

// CanReadProject reports whether the principal may read memories of project key.
func (p Principal) CanReadProject(key string) bool {
	return p.Has(ScopeRead) && p.boundTo(key)
}

// CanWriteProject reports whether the principal may write memories of project key.
func (p Principal) CanWriteProject(key string) bool {
	return p.Has(ScopeWrite) && p.boundTo(key)
}

// CanWriteGlobal reports whether the principal may write global memories. Only an admin
// token bound to no project may: a global memory is injected into every project, so one
// agent's mistake would spread, and a token bound to a project changes nothing outside it.
func (p Principal) CanWriteGlobal() bool { return p.HostWide() }

// HostWide reports whether the principal may act on the host as a whole: an admin token bound
// to no project. What is not confined to one project (the workers and their chains, a reload,
// maintenance over every project or of what all projects share) is an operator's, and a token
// bound to a project changes nothing outside it.
func (p Principal) HostWide() bool { return p.Has(ScopeAdmin) && p.ProjectKey == "" }

// RequireHostWide answers why the principal may not do what, a host-wide operation (e.g.
// "POST /api/v1/admin/reload"), or nil when it may (HostWide). The error wraps ErrForbidden
// and is safe to show the token's holder.
func (p Principal) RequireHostWide(what string) error {
	switch {
	case !p.Has(ScopeAdmin):
		return fmt.Errorf("%w: %s needs a token with the %s scope", ErrForbidden, what, ScopeAdmin)
	case p.ProjectKey != "":
		return fmt.Errorf("%w: %s is host-wide: it needs an admin token not bound to a project (this token is bound to project %q)", ErrForbidden, what, p.ProjectKey)
	}
	return nil
}

// ResolveProject decides which project a call acts on. A bound token defaults to its
// project and may not name another; an unbound token must name one.
func (p Principal) ResolveProject(requested string) (string, error) {
	switch {
	case p.ProjectKey != "" && requested == "":
		return p.ProjectKey, nil
	case p.ProjectKey != "" && requested != p.ProjectKey:
		return "", fmt.Errorf("%w: token %q is bound to project %q, not %q", ErrForbidden, p.Name, p.ProjectKey, requested)
	case requested == "":
		return "", ErrProjectRequired
	default:
		return requested, nil
	}
}
