package auth

import "errors"

var (
	// ErrUnauthenticated means no valid token was presented: missing, malformed, unknown or
	// revoked. Callers answer 401 and must not say which, so probing learns nothing.
	ErrUnauthenticated = errors.New("unauthenticated")
	// ErrForbidden means the token is valid but lacks the scope or project binding needed.
	// It is wrapped with the detail, which is safe to show to the token's holder.
	ErrForbidden = errors.New("forbidden")
	// ErrProjectRequired means an unbound token made a project-scoped call without naming
	// the project.
	ErrProjectRequired = errors.New("project is required (pass project or cwd)")
	// ErrNotFound means no token has the given id.
	ErrNotFound = errors.New("token not found")
)
