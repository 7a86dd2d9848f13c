package rank

import (
	"math"
	"time"
)

// Signals is everything Score looks at for one memory.
type Signals struct {
	// HasQuery is true for search: Relevance is then the base of the score. Spawn injection
	// has no query and ranks by Importance instead.
	HasQuery bool
	// Relevance is the fused query similarity in [0, 1] (see Fuse).
	Relevance  float64
	Importance float64 // [0, 1]
	Confidence float64 // [0, 1]
	HitCount   int64
	Pinned     bool
	// Age is the time since the memory was last reinforced: written, folded into, or hit.
	Age time.Duration
	// HalfLife is the kind's recency half-life: after one half-life recency is 0.5.
	HalfLife time.Duration
}

// Weights of the quality blend. They sum to 1, so quality stays in [0, 1].
const (
	weightConfidence = 0.45
	weightRecency    = 0.35
	weightHits       = 0.20
	// hitScale is the hit count at which the usage signal reaches 1 - 1/e.
	hitScale = 5.0
)

// Score ranks a memory. With q = 0.45·confidence + 0.35·recency + 0.20·usage, where
// recency = 0.5^(age/half-life) and usage = 1 - e^(-hits/5), and q = 1 for pinned memories:
//
//	score = base · (0.5 + 0.5·q),  base = relevance (search) or importance (spawn)
//
// So the score lies in [0, 1] and never exceeds its base: quality can halve a weak memory's
// standing but cannot lift an irrelevant one above a relevant one. A NaN signal counts as 0,
// so a score is never NaN. The score is the sum of its terms (Explain), so what the console
// shows of a score is what the score is made of.
func Score(s Signals) float64 { return Explain(s).Sum() }

// Terms is a score taken apart into the ranker's own terms; Sum is the score. Base is the
// half of the score its base earns alone (0.5·base); the other half is base·0.5·q, split
// into Confidence, Recency and Usage by their weights in q, or all of it in Pinned.
type Terms struct {
	// Base is 0.5·base. In search Lexical and Vector split it by the two paths' shares of
	// relevance (Hybrid.Parts) when the caller knows them (SplitBase); in spawn mode it is
	// importance's.
	Base       float64 `json:"base"`
	Lexical    float64 `json:"lexical"`
	Vector     float64 `json:"vector"`
	Confidence float64 `json:"confidence"`
	Recency    float64 `json:"recency"`
	Usage      float64 `json:"usage"`
	Pinned     float64 `json:"pinned"`
	// Supersession is what DemoteSuperseded took off a statement a newer one replaces (<= 0;
	// the search sets it when it moves the statement down).
	Supersession float64 `json:"supersession"`
}

// Sum is the score the terms make up. Lexical and Vector are parts of Base, not added again.
func (t Terms) Sum() float64 {
	return t.Base + t.Confidence + t.Recency + t.Usage + t.Pinned + t.Supersession
}

// Explain takes Score apart: Explain(s).Sum() is Score(s), by construction.
func Explain(s Signals) Terms {
	base := s.Importance
	if s.HasQuery {
		base = s.Relevance
	}
	half := 0.5 * clamp01(base)
	t := Terms{Base: half}
	if s.Pinned {
		t.Pinned = half
		return t
	}
	t.Confidence = half * weightConfidence * clamp01(s.Confidence)
	t.Recency = half * weightRecency * Recency(s.Age, s.HalfLife)
	t.Usage = half * weightHits * Usage(s.HitCount)
	return t
}

// SplitBase divides t.Base between the lexical and vector paths in the shares Fuse gave them
// for one candidate (Hybrid.Parts), so the two shown add up to Base.
func (t Terms) SplitBase(p Parts) Terms {
	if total := p.Vector + p.Lexical; total > 0 {
		t.Vector = t.Base * p.Vector / total
		t.Lexical = t.Base - t.Vector
	}
	return t
}

// Recency is 0.5^(age/halfLife); a non-positive half-life means no decay.
func Recency(age, halfLife time.Duration) float64 {
	if halfLife <= 0 || age <= 0 {
		return 1
	}
	return math.Exp2(-float64(age) / float64(halfLife))
}

// Usage saturates the hit count into [0, 1).
func Usage(hits int64) float64 {
	if hits <= 0 {
		return 0
	}
	return 1 - math.Exp(-float64(hits)/hitScale)
}

// Hybrid is one embedder's part in relevance: how much its vectors weigh against the lexical
// score, and the cosine below which they say nothing. Both depend on the model (a word-vector
// model puts distinct facts at cosine .93, a modest sentence encoder unrelated ones at .3), so
// they are set per embedder: measured by `memhost embedder calibrate`, the floor also at the
// embedder's first use (docs/ranking.md).
type Hybrid struct {
	// VectorWeight is the vector path's share of relevance, the lexical path getting the rest.
	VectorWeight float64
	// Floor is the cosine unrelated texts reach under the embedder. A cosine at or below it is
	// no evidence (the nearest-neighbour lookup returns the nearest memories however far they
	// are); above it the cosine is read on the rest of the scale, (cosine − Floor) / (1 − Floor).
	// 0 for the BM25 floor, whose unrelated texts share no term.
	Floor float64
}

// The hybrids before an embedder is calibrated.
var (
	// HybridSemantic is for embedders whose vectors carry meaning beyond the words (dense
	// models), which find paraphrases the lexical path cannot. Its floor is measured at the
	// embedder's first use.
	HybridSemantic = Hybrid{VectorWeight: 0.6}
	// HybridLexical is for embedders whose vectors are themselves a lexical signal: the BM25
	// floor hashes the same terms the lexical index scores, without its IDF. On the retrieval
	// benchmark such a vector only adds noise beyond a tie-breaker (recall@10 0.89 at a 0.6
	// share, 0.95 at 0.1, 0.95 at 0; docs/ranking.md).
	HybridLexical = Hybrid{VectorWeight: 0.1}
)

// Similarity is what a cosine says under the embedder: 0 at or below Floor, rescaled onto
// [0, 1] above it. A NaN cosine (that of a zero vector) says nothing.
func (h Hybrid) Similarity(cosine float64) float64 {
	f := clamp01(h.Floor)
	if f >= 1 || !(cosine > f) {
		return 0
	}
	return clamp01((cosine - f) / (1 - f))
}

// Fuse combines one candidate's cosine (nil when unknown) and its BM25 score normalised into
// [0, 1] (nil when the lexical path did not see it) into Relevance: the vector path's
// Similarity weighs VectorWeight, the lexical score the rest. A missing or NaN signal adds 0.
func (h Hybrid) Fuse(cosine, lexical *float64) float64 {
	p := h.Parts(cosine, lexical)
	return p.Vector + p.Lexical
}

// Parts are the two paths' shares of a fused relevance: Fuse is their sum.
type Parts struct {
	Vector, Lexical float64
}

// Parts is Fuse, path by path.
func (h Hybrid) Parts(cosine, lexical *float64) Parts {
	w := clamp01(h.VectorWeight)
	var p Parts
	if cosine != nil {
		p.Vector = w * h.Similarity(*cosine)
	}
	if lexical != nil {
		p.Lexical = (1 - w) * clamp01(*lexical)
	}
	return p
}

// Lexical is the hybrid of a search without a query vector (the embedder is down, or the query
// has no terms it knows): the lexical score is all the relevance there is.
var Lexical = Hybrid{}

// NormalizeBM25 maps a raw BM25 score into [0, 1] relative to the best score of the same query
// (maxScore), scaled by coverage: the share of the query's distinct terms the document matched.
// A document that is the best match but shares one of five query terms gets 0.2, not 1.
func NormalizeBM25(score, maxScore, coverage float64) float64 {
	if maxScore <= 0 || score <= 0 {
		return 0
	}
	return clamp01(score/maxScore) * clamp01(coverage)
}

func clamp01(f float64) float64 {
	switch {
	case f < 0 || math.IsNaN(f):
		return 0
	case f > 1:
		return 1
	}
	return f
}
