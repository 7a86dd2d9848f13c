package memory

import (
	"cmp"
	"context"
	"slices"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/rank"
	"github.com/memhost/memhost/host/internal/core/store"
)

// This file loads a search's candidates: the union of the lexical and vector paths, each with
// an upper bound on the score it can reach, so the rows that cannot make the result are never
// read. Reading a row is a random heap page in a large database, and most of the pool (100 per
// path) ranks far below the top ten.

// candidate is one memory either path found.
type candidate struct {
	id      uuid.UUID
	lexical *float64 // normalised BM25 (rank.NormalizeBM25); nil when the lexical path missed it
	bound   float64  // the best score it can reach (rank.Hybrid.Fuse with what is known, quality 1)
}

// newCandidates merges the two paths' hits, best bound first. A vector hit's cosine is exact
// (the store computed it); a lexical-only hit's cosine is unknown until its row is read, so its
// bound takes the best cosine there is.
func newCandidates(lex []lexical.Hit, ann []store.VectorHit, hybrid rank.Hybrid) []candidate {
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
		out = append(out, candidate{id: h.ID, lexical: &v, bound: hybrid.Fuse(&cos, &v)})
	}
	for _, h := range ann {
		if seen[h.ID] {
			continue
		}
		seen[h.ID] = true
		cos := h.Similarity
		out = append(out, candidate{id: h.ID, bound: hybrid.Fuse(&cos, nil)})
	}
	slices.SortStableFunc(out, func(a, b candidate) int { return cmp.Compare(b.bound, a.bound) })
	return out
}

// firstLoad is how many candidates a search reads in its first round, per result it needs.
const firstLoad = 4

// loader reads one search's candidate rows and keeps the hits, so that candidates found later
// (the vector path's, when it runs) are weighed against what was already read.
type loader struct {
	want  int
	get   func(context.Context, []uuid.UUID) ([]store.Loaded, error)
	score func(store.Loaded, *float64) (SearchHit, bool) // false: the row may not be shown
	read  map[uuid.UUID]bool
	hits  []SearchHit
}

func newLoader(want int, get func(context.Context, []uuid.UUID) ([]store.Loaded, error), score func(store.Loaded, *float64) (SearchHit, bool)) *loader {
	return &loader{want: want, get: get, score: score, read: map[uuid.UUID]bool{}}
}

// load reads candidates' rows, best bound first and skipping rows already read, until the
// want-th best score so far beats every bound not yet read: those rows cannot enter the first
// want results, whatever they hold, because a score never exceeds its relevance (rank.Score).
// Usually one round trip of firstLoad·want rows decides; otherwise the rest are read too.
func (l *loader) load(ctx context.Context, cands []candidate) error {
	cands = slices.DeleteFunc(slices.Clone(cands), func(c candidate) bool { return l.read[c.id] })
	if len(cands) == 0 || l.wanted() > cands[0].bound {
		return nil // what was read already beats every candidate (the vector path's, mostly)
	}
	first := min(len(cands), firstLoad*l.want)
	if err := l.fetch(ctx, cands[:first]); err != nil {
		return err
	}
	if first == len(cands) || l.wanted() > cands[first].bound {
		return nil
	}
	return l.fetch(ctx, cands[first:])
}

func (l *loader) fetch(ctx context.Context, part []candidate) error {
	if len(part) == 0 {
		return nil
	}
	ids := make([]uuid.UUID, len(part))
	lexOf := make(map[uuid.UUID]*float64, len(part))
	for i, c := range part {
		ids[i] = c.id
		lexOf[c.id] = c.lexical
		l.read[c.id] = true
	}
	loaded, err := l.get(ctx, ids)
	if err != nil {
		return err
	}
	for _, row := range loaded {
		if h, ok := l.score(row, lexOf[row.ID]); ok {
			l.hits = append(l.hits, h)
		}
	}
	return nil
}

// wanted is the want-th best score read so far, or -1 when fewer rows could be shown.
func (l *loader) wanted() float64 {
	if len(l.hits) < l.want {
		return -1
	}
	scores := make([]float64, len(l.hits))
	for i, h := range l.hits {
		scores[i] = h.Score
	}
	slices.Sort(scores)
	return scores[len(scores)-l.want]
}

// needsVector reports whether a memory only the vector path can find might still enter the
// first want results. The search scores such a memory on its cosine alone (it has no lexical
// score), so its score is at most the hybrid's Fuse of cosine 1 and nothing: the vector path's
// weight. With the BM25 floor's weight (a tie-breaker, rank.HybridLexical) the lexical hits
// usually settle the result and the nearest-neighbour lookup is never run; with a semantic
// embedder's it usually runs.
func (l *loader) needsVector(hybrid rank.Hybrid) bool {
	return l.wanted() <= hybrid.Fuse(&one, nil)
}

var one = 1.0
