package memory

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/store"
)

// MinIDPrefix is the shortest id prefix Lookup accepts: the spawn banner shows 8 hex digits per
// memory so an agent can act on one without paying for a whole UUID in tokens.
const MinIDPrefix = 8

// Lookup resolves what a caller names a memory by: its full UUID, or a prefix of at least
// MinIDPrefix hex digits (dashes ignored) that matches exactly one memory visible in the
// caller's project. An ambiguous prefix is an error asking for more digits.
func (s *Service) Lookup(ctx context.Context, a Access, ref string) (uuid.UUID, error) {
	ref = strings.TrimSpace(ref)
	if id, err := uuid.Parse(ref); err == nil {
		return id, nil
	}
	digits := strings.ToLower(strings.ReplaceAll(ref, "-", ""))
	if _, err := hex.DecodeString(digits + strings.Repeat("0", len(digits)%2)); err != nil || len(digits) < MinIDPrefix || len(digits) >= 32 {
		return uuid.Nil, fieldErr("id", "%q is not a memory id: pass the UUID or at least its first %d hex digits", ref, MinIDPrefix)
	}
	if err := a.check(); err != nil {
		return uuid.Nil, err
	}
	lo, hi := prefixRange(digits)
	ids, err := s.store.IDsBetween(ctx, lo, hi, []store.ScopeRef{store.Project(a.Project), store.Global}, 2)
	if err != nil {
		return uuid.Nil, err
	}
	switch len(ids) {
	case 0:
		return uuid.Nil, fmt.Errorf("memory %s in project %q: %w", ref, a.Project, ErrNotFound)
	case 1:
		return ids[0], nil
	}
	return uuid.Nil, fieldErr("id", "%q matches more than one memory; pass more digits or the whole id", ref)
}

// prefixRange is the id interval [lo, hi) of every UUID starting with the hex digits; hi is nil
// when the prefix is all f's (no upper bound).
func prefixRange(digits string) (uuid.UUID, *uuid.UUID) {
	pad := func(s string) uuid.UUID {
		b, _ := hex.DecodeString(s + strings.Repeat("0", 32-len(s)))
		var id uuid.UUID
		copy(id[:], b)
		return id
	}
	lo := pad(digits)
	next := []byte(digits)
	for i := len(next) - 1; i >= 0; i-- {
		if next[i] != 'f' {
			next[i] = "0123456789abcdef"[strings.IndexByte("0123456789abcdef", next[i])+1]
			hi := pad(string(next[:i+1]))
			return lo, &hi
		}
	}
	return lo, nil
}
