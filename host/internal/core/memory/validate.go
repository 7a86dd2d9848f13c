package memory

import (
	"fmt"
	"strings"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/store"
)

// This file is the one owner of input rules: every path that takes text from a caller (store,
// search, archive; the surfaces only pass it on) checks it here, so a field is held to the same
// rules whichever tool or endpoint it arrives through. rules.CheckText and rules.CheckLine are exported for
// paths outside the service that take the same fields (import).

func (s *Service) validateText(field, text string) error {
	return rules.CheckText(field, text, s.cfg.MaxTextBytes)
}

// unit checks an optional [0, 1] value and applies its default.
func unit(field string, v *float64, def float64) (float64, error) {
	if v == nil {
		return def, nil
	}
	if !(*v >= 0 && *v <= 1) {
		return 0, rules.Errf(field, "%v is out of range 0..1", *v)
	}
	return *v, nil
}

// validateStore checks a store request and turns it into a write (not yet redacted or
// embedded).
func (s *Service) validateStore(a Access, req StoreRequest) (store.Write, error) {
	if err := a.check(); err != nil {
		return store.Write{}, err
	}
	if err := s.validateText("text", req.Text); err != nil {
		return store.Write{}, err
	}
	scope, err := store.ParseScope(req.Scope)
	if err != nil {
		return store.Write{}, rules.Errf("scope", "%q is not one of project, global", req.Scope)
	}
	if scope == store.ScopeGlobal && !a.global() {
		return store.Write{}, fmt.Errorf("%w: global memories need an admin token not bound to a project", rules.ErrForbidden)
	}
	kind, err := store.ParseKind(req.Kind)
	if err != nil {
		return store.Write{}, rules.Errf("kind", "%s", strings.TrimPrefix(err.Error(), "kind: "))
	}
	importance, err := unit("importance", req.Importance, 0.5)
	if err != nil {
		return store.Write{}, err
	}
	confidence, err := unit("confidence", req.Confidence, 0.8)
	if err != nil {
		return store.Write{}, err
	}
	for _, f := range []struct{ name, value string }{{"agent", req.Agent}, {"session", req.Session}, {"source", req.Source}} {
		if err := rules.CheckLine(f.name, f.value, rules.MaxProvenanceBytes); err != nil {
			return store.Write{}, err
		}
	}
	w := store.Write{
		ID: uuid.Must(uuid.NewV7()), Scope: scope, Kind: kind, Text: req.Text, Importance: importance,
		Confidence: confidence, Pinned: req.Pinned, Actor: a.Actor,
		Provenance: store.Provenance{Agent: req.Agent, Session: req.Session, Source: req.Source},
	}
	if scope == store.ScopeProject {
		w.ScopeKey = a.Project
	}
	return w, nil
}

// redactWrite replaces secrets in every free-text field of w and returns how many it
// replaced: a token pasted as an agent name is as much a secret as one in the text.
func (s *Service) redactWrite(w *store.Write) int {
	n := 0
	for _, f := range []*string{&w.Text, &w.Provenance.Agent, &w.Provenance.Session, &w.Provenance.Source} {
		n += s.redactField(f)
	}
	return n
}

// redactField redacts one field in place.
func (s *Service) redactField(f *string) int {
	if s.redact == nil || *f == "" {
		return 0
	}
	var n int
	*f, n = s.redact(*f)
	return n
}
