package memory

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/store"
	"github.com/memhost/memhost/sdk/embedder"
)

// maxProvenanceBytes bounds agent, session and source strings.
const maxProvenanceBytes = 200

// StoreRequest is one memory_store call.
type StoreRequest struct {
	Text       string
	Scope      string   // "project" (default) or "global"
	Kind       string   // default "fact"
	Importance *float64 // [0, 1], default 0.5
	Confidence *float64 // [0, 1], default 0.8
	Pinned     bool
	Agent      string
	Session    string
	Source     string
}

// StoreResult says where the text ended up.
type StoreResult struct {
	ID         uuid.UUID `json:"id"`
	Folded     bool      `json:"folded"`
	Exact      bool      `json:"exact_duplicate"`
	Similarity float64   `json:"similarity"`
	Redactions int       `json:"redactions"`
	Memory     View      `json:"memory"`
}

// Store is the write path: validate, redact, embed, then fold into the nearest neighbour or
// insert. There is no LLM call here.
func (s *Service) Store(ctx context.Context, a Access, req StoreRequest) (StoreResult, error) {
	start := s.now()
	w, err := s.validateStore(a, req)
	if err != nil {
		s.metrics.write("invalid", start)
		return StoreResult{}, err
	}
	redactions := 0
	if s.redact != nil {
		w.Text, redactions = s.redact(w.Text)
	}
	e, info, err := s.active(ctx)
	if err != nil {
		s.metrics.write("unavailable", start)
		return StoreResult{}, err
	}
	if w.Vector, err = s.embed(ctx, e, info, embedder.PurposeDocument, w.Text); err != nil {
		s.metrics.write("unavailable", start)
		return StoreResult{}, err
	}
	w.FoldThreshold = s.foldThreshold(info)
	w.Distinct = Distinct
	res, err := s.store.Write(ctx, w)
	if err != nil {
		s.metrics.write("error", start)
		return StoreResult{}, err
	}
	s.index.Apply(changeOf(res.Memory))
	outcome := "insert"
	switch {
	case res.Exact:
		outcome = "fold_exact"
	case res.Folded:
		outcome = "fold"
	}
	s.metrics.write(outcome, start)
	return StoreResult{ID: res.Memory.ID, Folded: res.Folded, Exact: res.Exact, Similarity: res.Similarity,
		Redactions: redactions, Memory: ViewOf(res.Memory)}, nil
}

func (s *Service) validateStore(a Access, req StoreRequest) (store.Write, error) {
	if err := a.check(); err != nil {
		return store.Write{}, err
	}
	if err := s.validateText("text", req.Text); err != nil {
		return store.Write{}, err
	}
	scope, err := store.ParseScope(req.Scope)
	if err != nil {
		return store.Write{}, fieldErr("scope", "%q is not one of project, global", req.Scope)
	}
	if scope == store.ScopeGlobal && !a.Admin {
		return store.Write{}, fmt.Errorf("%w: global memories need a token with the admin scope", ErrForbidden)
	}
	kind, err := store.ParseKind(req.Kind)
	if err != nil {
		return store.Write{}, fieldErr("kind", "%s", strings.TrimPrefix(err.Error(), "kind: "))
	}
	importance, err := unit("importance", req.Importance, 0.5)
	if err != nil {
		return store.Write{}, err
	}
	confidence, err := unit("confidence", req.Confidence, 0.8)
	if err != nil {
		return store.Write{}, err
	}
	for field, v := range map[string]string{"agent": req.Agent, "session": req.Session, "source": req.Source} {
		if len(v) > maxProvenanceBytes || !utf8.ValidString(v) || strings.ContainsRune(v, 0) {
			return store.Write{}, fieldErr(field, "must be valid UTF-8 without NUL, at most %d bytes", maxProvenanceBytes)
		}
	}
	w := store.Write{
		ID: uuid.Must(uuid.NewV7()), Scope: scope, Kind: kind, Text: req.Text, Importance: importance,
		Confidence: confidence, Pinned: req.Pinned, MergedFromMax: s.cfg.MergedFromMax, Actor: a.Actor,
		Provenance: store.Provenance{Agent: req.Agent, Session: req.Session, Source: req.Source},
	}
	if scope == store.ScopeProject {
		w.ScopeKey = a.Project
	}
	return w, nil
}

// validateText applies the text rules shared by memories and queries.
func (s *Service) validateText(field, text string) error {
	switch {
	case strings.TrimSpace(text) == "":
		return fieldErr(field, "must not be empty")
	case len(text) > s.cfg.MaxTextBytes:
		return fieldErr(field, "is %d bytes; the limit is %d bytes", len(text), s.cfg.MaxTextBytes)
	case !utf8.ValidString(text):
		return fieldErr(field, "must be valid UTF-8")
	case strings.ContainsRune(text, 0):
		return fieldErr(field, "must not contain NUL bytes")
	}
	return nil
}

func unit(field string, v *float64, def float64) (float64, error) {
	if v == nil {
		return def, nil
	}
	if !(*v >= 0 && *v <= 1) {
		return 0, fieldErr(field, "%v is out of range 0..1", *v)
	}
	return *v, nil
}
