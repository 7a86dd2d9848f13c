package memory

import (
	"cmp"
	"context"
	"slices"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/lexical"
	"github.com/memhost/memhost/host/internal/rank"
	"github.com/memhost/memhost/host/internal/store"
)

// This file loads a search's candidates: the union of the lexical and vector paths, each with
// an upper bound on the score it can reach, so the rows that cannot make the result are never
// read. Reading a row is a random heap page in a large database, and most of the pool (100 per
// path) ranks far below the top ten.

// candidate is one memory either path found.
type candidate struct {
	id      uuid.UUID
	lexical *float64 // normalised BM25 (rank.NormalizeBM25); nil when the lexical path missed it
	bound   float64  // the best score it can reach (rank.Fuse with what is known, quality 1)
}

// newCandidates merges the two paths' hits, best bound first. A vector hit's cosine is exact
// (the store computed it); a lexical-only hit's cosine is unknown until its row is read, so its
// bound takes the best cosine there is.
func newCandidates(lex []lexical.Hit, ann []store.VectorHit, weight float64) []candidate {
	var best float64
	for _, h := range lex {
		best = max(best, h.Score)
	}
	cosine := make(map[uuid.UUID]float64, len(ann))
	for _, h := range ann {
		cosine[h.ID] = h.Similarity
	}
	out := make([]candidate, 0, len(lex)+len(ann))
	seen := make(map[uuid.UUID]bool, len(lex)+len(ann))
	for _, h := range lex {
		if seen[h.ID] {
			continue
		}
		seen[h.ID] = true
		v := rank.NormalizeBM25(h.Score, best, h.Coverage)
		cos, ok := cosine[h.ID]
		if !ok {
			cos = 1
		}
		out = append(out, candidate{id: h.ID, lexical: &v, bound: rank.Fuse(&cos, &v, weight)})
	}
	for _, h := range ann {
		if seen[h.ID] {
			continue
		}
		seen[h.ID] = true
		cos := h.Similarity
		out = append(out, candidate{id: h.ID, bound: rank.Fuse(&cos, nil, weight)})
	}
	slices.SortStableFunc(out, func(a, b candidate) int { return cmp.Compare(b.bound, a.bound) })
	return out
}

// firstLoad is how many candidates a search reads in its first round, per result it needs.
const firstLoad = 4

// loadBest reads candidates' rows with get, best bound first, and scores them with score
// (false: the row may not be shown), until the want-th best score so far beats every bound not
// yet read: those rows cannot enter the first want results, whatever their rows hold, because
// a score never exceeds its relevance (rank.Score). Usually one round trip of firstLoad·want
// rows decides; otherwise the rest are read too. The hits come back unordered.
func loadBest(ctx context.Context, cands []candidate, want int, get func(context.Context, []uuid.UUID) ([]store.Loaded, error), score func(store.Loaded, *float64) (SearchHit, bool)) ([]SearchHit, error) {
	lexOf := make(map[uuid.UUID]*float64, len(cands))
	for _, c := range cands {
		lexOf[c.id] = c.lexical
	}
	var hits []SearchHit
	read := func(part []candidate) error {
		if len(part) == 0 {
			return nil
		}
		ids := make([]uuid.UUID, len(part))
		for i, c := range part {
			ids[i] = c.id
		}
		loaded, err := get(ctx, ids)
		if err != nil {
			return err
		}
		for _, l := range loaded {
			if h, ok := score(l, lexOf[l.ID]); ok {
				hits = append(hits, h)
			}
		}
		return nil
	}
	first := min(len(cands), firstLoad*want)
	if err := read(cands[:first]); err != nil {
		return nil, err
	}
	if first == len(cands) || wantedScore(hits, want) > cands[first].bound {
		return hits, nil
	}
	return hits, read(cands[first:])
}

// wantedScore is the want-th best score among hits, or -1 when there are fewer.
func wantedScore(hits []SearchHit, want int) float64 {
	if len(hits) < want {
		return -1
	}
	scores := make([]float64, len(hits))
	for i, h := range hits {
		scores[i] = h.Score
	}
	slices.Sort(scores)
	return scores[len(scores)-want]
}
