package brain

import (
	"context"
	"strings"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/shortid"
)

// ProposalID resolves what a caller names a proposal by in its project: the whole id, or a
// short id as the inbox shows it (its last 8 or more hex digits; a prefix of an id printed by
// an older release is read too). An ambiguous short id asks for more digits.
func (s *Service) ProposalID(ctx context.Context, a memory.Access, ref string) (uuid.UUID, error) {
	return s.inboxID(ctx, a, "proposal", ref, s.st.ProposalIDsEndingWith)
}

// inboxID resolves ref, a whole or short id of one of the project's what (a proposal, a
// conflict), with endingWith, the store's lookup of the ids ending with given digits.
func (s *Service) inboxID(ctx context.Context, a memory.Access, what, ref string,
	endingWith func(ctx context.Context, project, digits string, limit int) ([]uuid.UUID, error)) (uuid.UUID, error) {
	r, err := shortid.Parse(what, ref)
	if err != nil {
		return uuid.Nil, rules.Errf("id", "%s", err.Error())
	}
	if r.Whole() {
		return r.ID, nil
	}
	if err := check(a); err != nil {
		return uuid.Nil, err
	}
	ids, err := endingWith(ctx, a.Project, r.Digits, 2)
	if err != nil {
		return uuid.Nil, err
	}
	switch len(ids) {
	case 0:
		return uuid.Nil, notFound("not found: project %q has no %s %s", a.Project, what, strings.TrimSpace(ref))
	case 1:
		return ids[0], nil
	}
	return uuid.Nil, rules.Errf("id", "%q matches more than one %s; pass more digits or the whole id", strings.TrimSpace(ref), what)
}
