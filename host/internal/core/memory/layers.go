package memory

import (
	"context"
	"time"

	"github.com/memhost/memhost/host/internal/core/rank"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/sdk/embedder"
)

// This file is what the project brain (package brain) takes from the two paths for the layer
// kinds (goal, plan, journal): the same text rules, redaction, active embedder, lexical index
// and ranker signals as facts. The fold is not offered: layer rows never fold.

// CheckMemoryText applies the rules of memory text, with this service's size limit.
func (s *Service) CheckMemoryText(field, text string) error { return s.validateText(field, text) }

// Redact replaces the secrets in *text in place and returns how many it replaced.
func (s *Service) Redact(text *string) int { return s.redactField(text) }

// EmbedDocument embeds text with the active embedder, as Store does: errors wrap
// rules.ErrUnavailable (retry) or rules.ErrRejected (the embedder refused the text for good).
func (s *Service) EmbedDocument(ctx context.Context, text string) (store.Vector, error) {
	e, info, err := s.active(ctx)
	if err != nil {
		return store.Vector{}, err
	}
	return s.embed(ctx, e, info, embedder.PurposeDocument, text)
}

// ActiveEmbedder names the active embedder: the one whose vectors searches, folds and
// consolidation compare.
func (s *Service) ActiveEmbedder(ctx context.Context) (string, error) {
	_, info, err := s.active(ctx)
	return info.Name, err
}

// Indexed applies a row written outside Store to this host's lexical index, so the host
// finds its own write at once (other hosts follow the change feed).
func (s *Service) Indexed(m store.Memory) { s.index.Apply(changeOf(m)) }

// SpawnScore ranks m with no query, as the spawn banner does: rank.Score in spawn mode, whose
// base is importance.
func (s *Service) SpawnScore(m store.Memory, now time.Time) float64 {
	return rank.Score(s.signals(m, false, 0, now))
}

// SpawnTerms is SpawnScore taken apart (rank.Explain): why a fact ranks where it does in the
// banner.
func (s *Service) SpawnTerms(m store.Memory, now time.Time) rank.Terms {
	return rank.Explain(s.signals(m, false, 0, now))
}
