package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/store"
)

// EditRequest is an operator's edit of one memory (the console's editor). Text, Kind,
// Importance and Confidence replace the memory's own; an empty Text or Kind and a nil number
// keep them. Version is the memory's UpdatedAt as the editor read it (zero skips the check):
// an edit of a memory changed since is refused rather than overwriting what the editor never
// saw.
type EditRequest struct {
	Version    time.Time
	Text       string
	Kind       string
	Importance *float64
	Confidence *float64
}

// errEditedMeanwhile refuses an edit of a memory whose text changed since the editor read it.
type errEditedMeanwhile struct{ id uuid.UUID }

func (e errEditedMeanwhile) Error() string {
	return fmt.Sprintf("memory %s changed since it was read: %v", e.id, ErrConflict)
}
func (e errEditedMeanwhile) Unwrap() error { return ErrConflict }

// SafeMessage tells the editor what to do.
func (e errEditedMeanwhile) SafeMessage() string {
	return "conflict: this memory changed since you opened it; nothing was changed: reload it and edit again"
}

// Edit changes a live fact as an operator edited it: the new text held to the rules of every
// write (validated, secrets redacted, embedded), its kind one of the fact kinds, importance
// and confidence in 0..1. The change is recorded in history (an update with the text before
// and after), and the memory keeps its id, uses and links. Goal and plan have their own
// editor (brain.Service.SetDocument); journal entries are a session's record and not edited.
func (s *Service) Edit(ctx context.Context, a Access, id uuid.UUID, req EditRequest) (View, error) {
	m, err := s.loadWritable(ctx, a, id)
	if err != nil {
		return View{}, err
	}
	switch {
	case !slices.Contains(store.Kinds, m.Kind):
		return View{}, fieldErr("id", "memory %s is a %s, not a fact: it is not edited here", id, m.Kind)
	case m.Archived():
		return View{}, fieldErr("id", "memory %s is archived; restore it before editing", id)
	case !req.Version.IsZero() && !req.Version.Equal(m.UpdatedAt):
		return View{}, errEditedMeanwhile{id}
	}
	p := store.EditParams{ID: id, Expect: m.Text, Kind: m.Kind, Importance: m.Importance, Confidence: m.Confidence, Actor: a.Actor}
	if req.Kind != "" {
		k, err := store.ParseKind(req.Kind)
		if err != nil {
			return View{}, fieldErr("kind", "%s", strings.TrimPrefix(err.Error(), "kind: "))
		}
		p.Kind = k
	}
	if p.Importance, err = unit("importance", req.Importance, m.Importance); err != nil {
		return View{}, err
	}
	if p.Confidence, err = unit("confidence", req.Confidence, m.Confidence); err != nil {
		return View{}, err
	}
	if req.Text != "" && req.Text != m.Text {
		if p.Replacement, err = s.replacement(ctx, "text", req.Text); err != nil {
			return View{}, err
		}
	}
	out, err := s.store.Edit(ctx, p)
	if err != nil {
		return View{}, err
	}
	s.index.Apply(changeOf(out))
	return ViewOf(out), nil
}
