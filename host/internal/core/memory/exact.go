package memory

import (
	"context"

	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/store"
)

// exactMatches answers a query that neither retrieval path can: one with no lexical terms and
// no direction in vector space, such as "🎉🎉🎉" (the tokenizer keeps letters and digits, the
// embedder maps it to the zero vector). Memories whose whole text is the query are stored and
// must be found, so they come back as perfect lexical matches.
func (s *Service) exactMatches(ctx context.Context, q store.TextQuery) ([]lexical.Hit, error) {
	ids, err := s.store.MatchText(ctx, q)
	if err != nil {
		return nil, err
	}
	hits := make([]lexical.Hit, len(ids))
	for i, id := range ids {
		hits[i] = lexical.Hit{ID: id, Score: 1, Coverage: 1}
	}
	return hits, nil
}
