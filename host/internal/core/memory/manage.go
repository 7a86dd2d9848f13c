package memory

import (
	"context"
	"fmt"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/store"
)

func (s *Service) loadWritable(ctx context.Context, a Access, id uuid.UUID) (store.Memory, error) {
	m, err := s.load(ctx, a, id)
	if err != nil {
		return m, err
	}
	if !a.writable(m) {
		return m, fmt.Errorf("%w: memory %s is global; changing it needs an admin token not bound to a project", rules.ErrForbidden, id)
	}
	if store.IsDocument(m.Kind) && !a.Admin {
		// Agents change a goal or plan only through a proposal a human decides.
		return m, fmt.Errorf("%w: memory %s is the project's %s; propose a change with project_%s_set, or use a token with the admin scope", rules.ErrForbidden, id, m.Kind, m.Kind)
	}
	return m, nil
}

// Archive soft-deletes a memory. It stays restorable (and in history) until purge. The
// reason is held to the rules of every free-text field and redacted like memory text.
func (s *Service) Archive(ctx context.Context, a Access, id uuid.UUID, reason string) (View, error) {
	if err := rules.CheckLine("reason", reason, rules.MaxReasonBytes); err != nil {
		return View{}, err
	}
	s.redactField(&reason)
	if reason == "" {
		reason = "archived by " + a.Actor
	}
	if _, err := s.loadWritable(ctx, a, id); err != nil {
		return View{}, err
	}
	m, err := s.store.SetArchived(ctx, store.ArchiveParams{ID: id, Archived: true, Reason: reason, Actor: a.Actor})
	if err != nil {
		return View{}, err
	}
	s.index.Apply(changeOf(m))
	return ViewOf(m), nil
}

// Restore brings an archived memory back.
func (s *Service) Restore(ctx context.Context, a Access, id uuid.UUID) (View, error) {
	if _, err := s.loadWritable(ctx, a, id); err != nil {
		return View{}, err
	}
	m, err := s.store.SetArchived(ctx, store.ArchiveParams{ID: id, Actor: a.Actor})
	if err != nil {
		return View{}, err
	}
	s.index.Apply(changeOf(m))
	return ViewOf(m), nil
}

// SetPinned pins (always full quality in ranking, never folded away) or unpins a memory.
func (s *Service) SetPinned(ctx context.Context, a Access, id uuid.UUID, pinned bool) (View, error) {
	if _, err := s.loadWritable(ctx, a, id); err != nil {
		return View{}, err
	}
	m, err := s.store.SetPinned(ctx, id, pinned, a.Actor)
	if err != nil {
		return View{}, err
	}
	return ViewOf(m), nil
}
