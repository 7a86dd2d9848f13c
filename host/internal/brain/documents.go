package brain

import (
	"context"
	"errors"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
)

// DocumentView is a goal or plan as the surfaces show it.
type DocumentView struct {
	Project string    `json:"project"`
	Layer   string    `json:"layer"`
	ID      uuid.UUID `json:"id"`
	Text    string    `json:"text"`
	// Version counts the document's texts per project and layer: 1 for the first, one more
	// for each change. A proposal names the version it was made against (base_version) and
	// is stale once the document has another.
	Version   int64     `json:"version"`
	UpdatedAt time.Time `json:"updated_at"`
	// UpdatedBy is who wrote this version: the agent whose proposal was approved, or the
	// operator's source.
	UpdatedBy string `json:"updated_by,omitempty"`
}

func documentView(m store.Memory) DocumentView {
	by := m.Provenance.Agent
	if by == "" {
		by = m.Provenance.Source
	}
	return DocumentView{Project: m.ScopeKey, Layer: string(m.Kind), ID: m.ID, Text: m.Text, Version: m.Version, UpdatedAt: m.UpdatedAt, UpdatedBy: by}
}

// parseDocument checks a goal-or-plan name given by a caller.
func parseDocument(field, name string) (store.Kind, error) {
	switch k := store.Kind(name); k {
	case store.KindGoal, store.KindPlan:
		return k, nil
	}
	return "", rules.Errf(field, "%q is not one of goal, plan", name)
}

// Document returns the project's live goal or plan.
func (s *Service) Document(ctx context.Context, a memory.Access, kind store.Kind) (DocumentView, error) {
	if err := check(a); err != nil {
		return DocumentView{}, err
	}
	m, err := s.st.Document(ctx, a.Project, kind)
	switch {
	case errors.Is(err, rules.ErrNotFound):
		return DocumentView{}, notFound("project %q has no %s yet: agents propose one with project_%s_set, operators set it with `memhost project %s set`",
			a.Project, kind, kind, kind)
	case err != nil:
		return DocumentView{}, err
	}
	return documentView(m), nil
}

// SetRequest sets a goal or plan directly (operators; agents propose).
type SetRequest struct {
	Text   string
	Source string // where the text comes from: "rest", "cli" (a one-line provenance field)
}

// SetDocument replaces the project's goal or plan (or sets the first one). It needs the admin
// grant: agents propose instead. The old text stays in the history ledger, and proposals
// still pending for the document become stale.
func (s *Service) SetDocument(ctx context.Context, a memory.Access, kind store.Kind, req SetRequest) (DocumentView, error) {
	if err := check(a); err != nil {
		return DocumentView{}, err
	}
	if !a.Admin {
		return DocumentView{}, forbidden("forbidden: setting the %s directly needs a token with the admin scope; agents propose it with project_%s_set", kind, kind)
	}
	text, err := s.documentText(req.Text)
	if err != nil {
		return DocumentView{}, err
	}
	if err := s.line("source", &req.Source, rules.MaxProvenanceBytes); err != nil {
		return DocumentView{}, err
	}
	vec, err := s.mem.EmbedDocument(ctx, text)
	if err != nil {
		return DocumentView{}, err
	}
	m, err := s.st.SetDocument(ctx, store.DocumentWrite{ID: uuid.Must(uuid.NewV7()), ScopeKey: a.Project, Kind: kind, Text: text,
		Vector: vec, Provenance: store.Provenance{Source: req.Source}, Actor: a.Actor})
	if err != nil {
		return DocumentView{}, err
	}
	s.mem.Indexed(m)
	return documentView(m), nil
}

// documentText checks and redacts a goal or plan text.
func (s *Service) documentText(text string) (string, error) {
	if err := s.mem.CheckMemoryText("text", text); err != nil {
		return "", err
	}
	s.mem.Redact(&text)
	return text, nil
}

// line checks an optional one-line field (agent, session, reason) and redacts it in place.
func (s *Service) line(field string, v *string, limit int) error {
	if err := rules.CheckLine(field, *v, limit); err != nil {
		return err
	}
	s.mem.Redact(v)
	return nil
}
