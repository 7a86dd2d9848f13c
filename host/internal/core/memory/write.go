package memory

import (
	"context"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"
)

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

// StoreResult says where the text ended up. Stored is false only for a veto, which has no id
// and no memory: the answer never names a row that does not exist.
type StoreResult struct {
	// Stored is true when memory now holds the text: inserted as a new memory, or folded into
	// an existing one (Folded), whose id and memory follow.
	Stored     bool      `json:"stored"`
	ID         uuid.UUID `json:"id,omitzero"`
	Folded     bool      `json:"folded"`
	Exact      bool      `json:"exact_duplicate"`
	Similarity float64   `json:"similarity"`
	Redactions int       `json:"redactions"`
	// VectorPending is true when the text was stored before its embedder answered: its vector
	// follows within seconds, search finds it by its words meanwhile, and a fold was decided by
	// the statement check alone (Similarity is 0 then).
	VectorPending bool `json:"vector_pending,omitempty"`
	Memory        View `json:"memory,omitzero"`
	// Vetoed, when set, says why the gatekeeper judged the text not durable: nothing was
	// stored (not an error: the agent learns why and moves on). It is a model's words, shown
	// as one printable line.
	Vetoed string `json:"vetoed,omitempty"`
}

// Store is the write path: validate, redact, embed, then fold into the nearest neighbour or
// insert (FoldOrInsert). A slow embedder's vector follows the write (vectors.go). There is no LLM call here but the optional gatekeeper's, which is
// bounded by its own budget and fails open.
func (s *Service) Store(ctx context.Context, a Access, req StoreRequest) (StoreResult, error) {
	s.called()
	start := s.now()
	w, err := s.validateStore(a, req)
	if err != nil {
		s.metrics.write("invalid", start)
		return StoreResult{}, err
	}
	redactions := s.redactWrite(&w)
	e, info, err := s.active(ctx)
	if err != nil {
		s.metrics.write("unavailable", start)
		return StoreResult{}, err
	}
	// The fold candidates come from this process's index while the plugin embeds the text.
	candidates := make(chan []uuid.UUID, 1)
	text, scope := w.Text, w.Ref()
	go func() { candidates <- s.foldCandidates(text, scope) }()
	vetoed := s.veto(ctx, w.ScopeKey, w.Text)
	var inflight <-chan embedResult
	w.Vector, inflight, err = s.documentVector(ctx, e, info, w.Text)
	folds, why := <-candidates, <-vetoed
	if why != "" {
		s.metrics.write("vetoed", start)
		return StoreResult{Redactions: redactions, Vetoed: rules.PrintableLine(why)}, nil
	}
	if err != nil {
		s.metrics.write("unavailable", start)
		return StoreResult{}, err
	}
	res, err := FoldOrInsert(ctx, s.store, w, FoldRule{Threshold: s.foldThreshold(info), MergedFromMax: s.cfg.MergedFromMax}, folds)
	if err != nil {
		s.metrics.write("error", start)
		return StoreResult{}, err
	}
	s.index.Apply(changeOf(res.Memory))
	if w.Vector.Pending() && !res.Exact && res.Memory.Text == w.Text {
		// The memory holds the write's text, and that text has no vector yet.
		s.followVector(pendingVector{id: res.Memory.ID, text: w.Text, embedder: info.Name, at: time.Now(), inflight: inflight})
	}
	outcome := "insert"
	switch {
	case res.Exact:
		outcome = "fold_exact"
	case res.Folded:
		outcome = "fold"
	}
	s.metrics.write(outcome, start)
	return StoreResult{Stored: true, ID: res.Memory.ID, Folded: res.Folded, Exact: res.Exact, Similarity: res.Similarity,
		Redactions: redactions, Memory: ViewOf(res.Memory), VectorPending: w.Vector.Pending() && !res.Exact}, nil
}
