package brain

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/shortid"
	"github.com/memhost/memhost/host/internal/core/store"
)

// The conflicts inbox: pairs of a project's memories the conflicts job (package maintenance)
// found contradicting, for an operator to accept (archiving one side, if asked) or dismiss. A
// decided pair is never flagged again.

// ConflictStore is what the conflicts inbox needs of the store (part of Store).
type ConflictStore interface {
	Conflict(ctx context.Context, key string, id uuid.UUID) (store.Conflict, error)
	Conflicts(ctx context.Context, q store.ConflictQuery) ([]store.Conflict, error)
	ConflictIDsEndingWith(ctx context.Context, key, digits string, limit int) ([]uuid.UUID, error)
	DecideConflict(ctx context.Context, d store.ConflictDecision) (store.Conflict, error)
}

// ConflictView is a conflict as the inbox shows it.
type ConflictView struct {
	ID        uuid.UUID  `json:"id"`
	Project   string     `json:"project"`
	Status    string     `json:"status"` // open, accepted or dismissed
	Severity  string     `json:"severity"`
	Evidence  string     `json:"evidence"`
	MemoryA   uuid.UUID  `json:"memory_a"`
	TextA     string     `json:"text_a"`
	MemoryB   uuid.UUID  `json:"memory_b"`
	TextB     string     `json:"text_b"`
	CreatedAt time.Time  `json:"created_at"`
	DecidedBy string     `json:"decided_by,omitempty"`
	DecidedAt *time.Time `json:"decided_at,omitempty"`
	Archived  *uuid.UUID `json:"archived,omitempty"` // the memory archived on acceptance
}

// conflictView is the one view of a conflict every surface answers (REST, MCP, the CLI through
// REST). Its evidence is a worker's words and its statements may be a merge's: a row stored
// before the write rules held a model's text may hold what a terminal obeys or hides, so they
// are shown printable (rules.Printable), the evidence as one line.
func conflictView(c store.Conflict) ConflictView {
	return ConflictView{ID: c.ID, Project: c.ScopeKey, Status: string(c.Status), Severity: rules.PrintableLine(c.Severity),
		Evidence: rules.PrintableLine(c.Evidence), MemoryA: c.MemoryA, TextA: rules.Printable(c.TextA), MemoryB: c.MemoryB,
		TextB: rules.Printable(c.TextB), CreatedAt: c.CreatedAt, DecidedBy: c.DecidedBy, DecidedAt: c.DecidedAt, Archived: c.Archived}
}

// ConflictsRequest lists a project's conflicts.
type ConflictsRequest struct {
	Status string // open (the default), accepted, dismissed or all
	Limit  int    // default 50, at most MaxInbox
}

// ConflictsPage is a project's conflicts, newest first.
type ConflictsPage struct {
	Project   string         `json:"project"`
	Conflicts []ConflictView `json:"conflicts"`
}

// Conflicts lists the project's conflicts, newest first.
func (s *Service) Conflicts(ctx context.Context, a memory.Access, req ConflictsRequest) (ConflictsPage, error) {
	limit, err := listLimit(a, req.Limit, defaultInbox, MaxInbox)
	if err != nil {
		return ConflictsPage{}, err
	}
	statuses, err := statusFilter(req.Status, store.ConflictOpen, store.ConflictOpen, store.ConflictAccepted, store.ConflictDismissed)
	if err != nil {
		return ConflictsPage{}, err
	}
	list, err := s.st.Conflicts(ctx, store.ConflictQuery{ScopeKey: a.Project, Limit: limit, Statuses: statuses})
	if err != nil {
		return ConflictsPage{}, err
	}
	return ConflictsPage{Project: a.Project, Conflicts: listPage(list, conflictView)}, nil
}

// Conflict shows one of the project's conflicts; another project's is not found.
func (s *Service) Conflict(ctx context.Context, a memory.Access, id uuid.UUID) (ConflictView, error) {
	c, err := s.conflict(ctx, a, id)
	return conflictView(c), err
}

func (s *Service) conflict(ctx context.Context, a memory.Access, id uuid.UUID) (store.Conflict, error) {
	if err := check(a); err != nil {
		return store.Conflict{}, err
	}
	c, err := s.st.Conflict(ctx, a.Project, id)
	if errors.Is(err, rules.ErrNotFound) {
		return c, notFound("not found: project %q has no conflict %s", a.Project, id)
	}
	return c, err
}

// ConflictID resolves what a caller names a conflict by: the whole id, or a short id as the
// inbox shows it (its last 8 or more hex digits).
func (s *Service) ConflictID(ctx context.Context, a memory.Access, ref string) (uuid.UUID, error) {
	return s.inboxID(ctx, a, "conflict", ref, s.st.ConflictIDsEndingWith)
}

// AcceptConflict closes an open conflict as real; archive, when not "", names one of its two
// memories (whole or short id), which is archived with reason "conflict <id>" (restorable
// until purge). Needs the admin grant.
func (s *Service) AcceptConflict(ctx context.Context, a memory.Access, id uuid.UUID, archive string) (ConflictView, error) {
	return s.decideConflict(ctx, a, id, store.ConflictAccepted, archive)
}

// sideOf resolves ref to one of c's two memories.
func sideOf(c store.Conflict, ref string) (uuid.UUID, error) {
	r, err := shortid.Parse("memory", ref)
	if err != nil {
		return uuid.Nil, rules.Errf("archive", "%s", err.Error())
	}
	for _, m := range []uuid.UUID{c.MemoryA, c.MemoryB} {
		if r.Whole() && r.ID == m || !r.Whole() && strings.HasSuffix(strings.ReplaceAll(m.String(), "-", ""), r.Digits) {
			return m, nil
		}
	}
	return uuid.Nil, rules.Errf("archive", "%q is not one of conflict %s's memories (%s, %s)", strings.TrimSpace(ref), c.ID, c.MemoryA, c.MemoryB)
}

// DismissConflict closes an open conflict as no conflict: the pair is never flagged again.
// Needs the admin grant.
func (s *Service) DismissConflict(ctx context.Context, a memory.Access, id uuid.UUID) (ConflictView, error) {
	return s.decideConflict(ctx, a, id, store.ConflictDismissed, "")
}

func (s *Service) decideConflict(ctx context.Context, a memory.Access, id uuid.UUID, status store.ConflictStatus, archiveRef string) (ConflictView, error) {
	if !a.Admin {
		return ConflictView{}, forbidden("forbidden: deciding a conflict needs a token with the admin scope")
	}
	c, err := s.conflict(ctx, a, id)
	if err != nil {
		return ConflictView{}, err
	}
	if c.Status != store.ConflictOpen {
		return ConflictView{}, conflict("conflict: conflict %s was already %s by %s", id, c.Status, c.DecidedBy)
	}
	var archive *uuid.UUID
	if archiveRef != "" {
		m, err := sideOf(c, archiveRef)
		if err != nil {
			return ConflictView{}, err
		}
		if _, err := s.mem.Archive(ctx, a, m, "conflict "+id.String()); err != nil {
			return ConflictView{}, err
		}
		archive = &m
	}
	c, err = s.st.DecideConflict(ctx, store.ConflictDecision{ScopeKey: a.Project, ID: id, Status: status, Actor: a.Actor, Archived: archive})
	if errors.Is(err, store.ErrConflictDecided) {
		return ConflictView{}, conflict("conflict: conflict %s was already %s by %s", id, c.Status, c.DecidedBy)
	}
	if err != nil {
		return ConflictView{}, err
	}
	return conflictView(c), nil
}
