package memory

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/shortid"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/sdk/embedder"
)

// EditRequest is a correction of one memory (`memhost memory edit`, PATCH /memories/{id}, the
// console's editor): the fields to change, nil leaving one as it is. Version, when set, is the
// memory's UpdatedAt as the editor read it: an edit of a memory changed since is refused
// rather than overwriting what the editor never saw.
type EditRequest struct {
	Text       *string
	Kind       *string
	Importance *float64
	Version    time.Time
}

// EditResult is the memory after an edit; Changed is false when the request asked for what it
// already held (nothing was written).
type EditResult struct {
	Memory  View `json:"memory"`
	Changed bool `json:"changed"`
}

// duplicateError is an edit to a text another live memory already holds.
type duplicateError struct{ other uuid.UUID }

func (e duplicateError) Error() string {
	return fmt.Sprintf("memory %s already says this: %s", shortid.Of(e.other), rules.ErrConflict)
}
func (e duplicateError) Unwrap() error { return rules.ErrConflict }

// SafeMessage names the memory that holds the text, for surfaces that show it.
func (e duplicateError) SafeMessage() string {
	return fmt.Sprintf("conflict: memory %s already says this; archive one of the two instead", shortid.Of(e.other))
}

// errEditedMeanwhile refuses an edit of a memory changed since its editor read it.
type errEditedMeanwhile struct{ id uuid.UUID }

func (e errEditedMeanwhile) Error() string {
	return fmt.Sprintf("memory %s changed since it was read: %v", shortid.Of(e.id), rules.ErrConflict)
}
func (e errEditedMeanwhile) Unwrap() error { return rules.ErrConflict }

// SafeMessage tells the editor what to do.
func (e errEditedMeanwhile) SafeMessage() string {
	return "conflict: this memory changed since you opened it; nothing was changed: reload it and edit again"
}

// Edit corrects a live fact: its text (validated, redacted and embedded as a write's is; no
// fold: the memory keeps its id, merged_from and uses), its kind or its importance. History
// records an update with the text before and after. A text another live memory of the scope
// holds is refused (rules.ErrConflict, naming it); goal, plan and journal entries have their own
// paths; an archived memory is restored first. Bad input changes nothing.
func (s *Service) Edit(ctx context.Context, a Access, id uuid.UUID, req EditRequest) (EditResult, error) {
	s.called()
	if req.Text == nil && req.Kind == nil && req.Importance == nil {
		return EditResult{}, rules.Errf("body", "names nothing to change: give text, kind or importance")
	}
	var text string
	if req.Text != nil {
		text = *req.Text
		if err := s.validateText("text", text); err != nil {
			return EditResult{}, err
		}
		s.redactField(&text)
	}
	var kind store.Kind
	if req.Kind != nil {
		k, err := store.ParseKind(*req.Kind)
		if err != nil {
			return EditResult{}, rules.Errf("kind", "%s", strings.TrimPrefix(err.Error(), "kind: "))
		}
		kind = k
	}
	importance, err := unit("importance", req.Importance, 0)
	if err != nil {
		return EditResult{}, err
	}
	m, err := s.loadWritable(ctx, a, id)
	if err != nil {
		return EditResult{}, err
	}
	switch {
	case store.IsDocument(m.Kind):
		return EditResult{}, rules.Errf("id", "memory %s is the project's %s: set it with `memhost project %s set`", shortid.Of(id), m.Kind, m.Kind)
	case m.Kind == store.KindJournal:
		return EditResult{}, rules.Errf("id", "memory %s is a journal entry, the record of a session: it is not edited", shortid.Of(id))
	case m.Archived():
		return EditResult{}, rules.Errf("id", "memory %s is archived: restore it first (`memhost memory restore %s`)", shortid.Of(id), shortid.Of(id))
	case !req.Version.IsZero() && !req.Version.Equal(m.UpdatedAt):
		return EditResult{}, errEditedMeanwhile{id}
	}
	p := store.EditParams{ID: id, Kind: m.Kind, Importance: m.Importance, Before: m.Text, After: m.Text, Actor: a.Actor}
	var changed []string
	if req.Kind != nil && kind != m.Kind {
		p.Kind, changed = kind, append(changed, "kind")
	}
	if req.Importance != nil && float32(importance) != float32(m.Importance) {
		p.Importance, changed = importance, append(changed, "importance")
	}
	if req.Text != nil && text != m.Text {
		e, info, err := s.active(ctx)
		if err != nil {
			return EditResult{}, err
		}
		if p.Vector, err = s.embed(ctx, e, info, embedder.PurposeDocument, text); err != nil {
			return EditResult{}, err
		}
		p.Text, p.After, changed = text, text, append(changed, "text")
	}
	if len(changed) == 0 {
		return EditResult{Memory: ViewOf(m)}, nil
	}
	p.Detail = map[string]any{"edited": changed}
	var out store.Memory
	err = s.store.WithScopeLock(ctx, store.ScopeRef{Scope: m.Scope, Key: m.ScopeKey}, func(tx store.ScopeTx) error {
		if p.Text != "" {
			c, err := tx.Lookup(ctx, p.Text, store.Vector{}, nil)
			if err != nil {
				return err
			}
			if c.Exact != nil && c.Exact.ID != id {
				return duplicateError{other: c.Exact.ID}
			}
		}
		var err error
		out, err = tx.Edit(ctx, p)
		return err
	})
	if err != nil {
		return EditResult{}, err
	}
	s.index.Apply(changeOf(out))
	return EditResult{Memory: ViewOf(out), Changed: true}, nil
}
