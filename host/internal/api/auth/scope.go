package auth

import (
	"fmt"
	"slices"
	"strings"
)

// Scope is a permission carried by a token.
type Scope string

const (
	// ScopeRead allows searching and reading memories.
	ScopeRead Scope = "memory:read"
	// ScopeWrite allows adding, updating and archiving memories.
	ScopeWrite Scope = "memory:write"
	// ScopeAdmin implies every other scope and additionally allows writing the global scope
	// and managing the host.
	ScopeAdmin Scope = "admin"
)

// AllScopes lists every valid scope, in the order help text shows them.
var AllScopes = []Scope{ScopeRead, ScopeWrite, ScopeAdmin}

// Valid reports whether s is a known scope.
func (s Scope) Valid() bool { return slices.Contains(AllScopes, s) }

func validScopeList() string {
	names := make([]string, len(AllScopes))
	for i, s := range AllScopes {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

// ParseScopes parses a comma-separated scope list such as "memory:read,memory:write".
// Whitespace is ignored and duplicates are dropped; the result keeps first-seen order.
func ParseScopes(list string) ([]Scope, error) {
	var scopes []Scope
	for part := range strings.SplitSeq(list, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		s := Scope(part)
		if !s.Valid() {
			return nil, fmt.Errorf("unknown scope %q (valid scopes: %s)", part, validScopeList())
		}
		if !slices.Contains(scopes, s) {
			scopes = append(scopes, s)
		}
	}
	if len(scopes) == 0 {
		return nil, fmt.Errorf("no scopes given (valid scopes: %s)", validScopeList())
	}
	return scopes, nil
}

// checkScopes validates a scope list built in code rather than parsed.
func checkScopes(scopes []Scope) error {
	if len(scopes) == 0 {
		return fmt.Errorf("no scopes given (valid scopes: %s)", validScopeList())
	}
	for _, s := range scopes {
		if !s.Valid() {
			return fmt.Errorf("unknown scope %q (valid scopes: %s)", s, validScopeList())
		}
	}
	return nil
}
