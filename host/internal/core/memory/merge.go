package memory

import (
	"context"
	"fmt"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/sdk/embedder"
)

// MergeRequest is one merge the consolidation job decided: Survivor absorbs Absorbed. Texts
// are the members' texts as the job read them (a member changed since is rules.ErrConflict).
// Text, when not "", is the survivor's new canonical statement (an absorbed member's text),
// held to the rules of memory text and redacted like any write.
type MergeRequest struct {
	Survivor uuid.UUID
	Absorbed []uuid.UUID
	Texts    map[uuid.UUID]string
	Text     string
	Actor    string
	Detail   map[string]any
}

// Merge applies a consolidation merge (store.Store.Merge) and indexes its rows on this host.
// The caller chose the text with MergeText: one of the members' own, which keeps what every
// other says.
func (s *Service) Merge(ctx context.Context, req MergeRequest) (store.Memory, error) {
	p := store.MergeParams{Survivor: req.Survivor, Absorbed: req.Absorbed, Texts: req.Texts,
		MergedFromMax: s.cfg.MergedFromMax, Actor: req.Actor, Detail: req.Detail}
	if req.Text != "" && req.Text != req.Texts[req.Survivor] {
		r, err := s.replacement(ctx, "text", req.Text)
		if err != nil {
			return store.Memory{}, err
		}
		p.Replacement = r
	}
	sv, absorbed, err := s.store.Merge(ctx, p)
	if err != nil {
		return sv, err
	}
	s.index.Apply(changeOf(sv))
	for _, m := range absorbed {
		s.index.Apply(changeOf(m))
	}
	return sv, nil
}

// replacement checks, redacts and embeds a text a maintenance step gives a memory.
func (s *Service) replacement(ctx context.Context, field, text string) (*store.Replacement, error) {
	if err := s.validateText(field, text); err != nil {
		return nil, err
	}
	s.redactField(&text)
	e, info, err := s.active(ctx)
	if err != nil {
		return nil, err
	}
	v, err := s.embed(ctx, e, info, embedder.PurposeDocument, text)
	if err != nil {
		return nil, err
	}
	return &store.Replacement{Text: text, Vector: v}, nil
}

// Unmerge undoes what consolidation merged into id: the memories it absorbed come back (one
// whose text a live memory now has stays archived) and, when a merge rewrote id's text, that
// text goes back to what it was. The decision sticks: consolidation never merges id and what
// came back again. It needs write access to id; history records it all.
func (s *Service) Unmerge(ctx context.Context, a Access, id uuid.UUID) (View, error) {
	if _, err := s.loadWritable(ctx, a, id); err != nil {
		return View{}, err
	}
	sv, err := s.store.Get(ctx, id)
	if err != nil {
		return View{}, err
	}
	undo, err := s.store.PendingUnmerge(ctx, sv)
	if err != nil {
		return View{}, err
	}
	if len(undo.Absorbed) == 0 && undo.PriorText == "" {
		return View{}, rules.Errf("id", "memory %s has nothing merged into it to restore", id)
	}
	p := store.UnmergeParams{Survivor: id, Expect: sv.Text, Restore: undo.Absorbed, Actor: a.Actor}
	if undo.PriorText != "" {
		e, info, err := s.active(ctx)
		if err != nil {
			return View{}, err
		}
		v, err := s.embed(ctx, e, info, embedder.PurposeDocument, undo.PriorText)
		if err != nil {
			return View{}, fmt.Errorf("embed the prior text of %s: %w", id, err)
		}
		p.Prior = &store.Replacement{Text: undo.PriorText, Vector: v}
	}
	out, restored, err := s.store.Unmerge(ctx, p)
	if err != nil {
		return View{}, err
	}
	s.index.Apply(changeOf(out))
	for _, m := range restored {
		s.index.Apply(changeOf(m))
	}
	return ViewOf(out), nil
}

// Unsupersede undoes the conflicts job's finding that id was replaced: it is no longer ranked
// below or shown as superseded by its successor, and the job never pairs the two again. It
// needs write access to id.
func (s *Service) Unsupersede(ctx context.Context, a Access, id uuid.UUID) (View, error) {
	if _, err := s.loadWritable(ctx, a, id); err != nil {
		return View{}, err
	}
	m, changed, err := s.store.Unsupersede(ctx, id, a.Actor)
	if err != nil {
		return View{}, err
	}
	if !changed {
		return View{}, rules.Errf("id", "memory %s is not superseded", id)
	}
	s.index.Apply(changeOf(m))
	return ViewOf(m), nil
}
