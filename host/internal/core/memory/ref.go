package memory

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/shortid"
	"github.com/memhost/memhost/host/internal/core/store"
)

// Lookup resolves what a caller names a memory by: its full UUID, or a short id
// (shortid.Parse) that matches exactly one memory visible in the caller's project. A short id
// is read as the end of an id first (what memhost shows), then as its start (what older
// releases showed). An ambiguous one is an error asking for more digits.
func (s *Service) Lookup(ctx context.Context, a Access, ref string) (uuid.UUID, error) {
	r, err := shortid.Parse("memory", ref)
	if err != nil {
		return uuid.Nil, rules.Errf("id", "%s", err.Error())
	}
	if r.Whole() {
		return r.ID, nil
	}
	if err := a.check(); err != nil {
		return uuid.Nil, err
	}
	scopes := []store.ScopeRef{store.Project(a.Project), store.Global}
	ids, err := s.store.IDsEndingWith(ctx, r.Digits, scopes, 2)
	if err != nil {
		return uuid.Nil, err
	}
	if len(ids) == 0 {
		lo, hi := prefixRange(r.Digits)
		if ids, err = s.store.IDsBetween(ctx, store.IDRangeQuery{Lo: lo, Hi: hi, Scopes: scopes, Limit: 2}); err != nil {
			return uuid.Nil, err
		}
	}
	switch len(ids) {
	case 0:
		return uuid.Nil, fmt.Errorf("memory %s in project %q: %w", strings.TrimSpace(ref), a.Project, rules.ErrNotFound)
	case 1:
		return ids[0], nil
	}
	return uuid.Nil, rules.Errf("id", "%q matches more than one memory; pass more digits or the whole id", strings.TrimSpace(ref))
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
