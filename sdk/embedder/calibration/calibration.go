package calibration

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/memhost/memhost/sdk/embedder"
)

// Pair is two facts and whether they state the same fact. One JSON object
// per line: {"a": "...", "b": "...", "same": true, "kind": "paraphrase"}.
type Pair struct {
	// A is the text already stored, B the incoming write.
	A string `json:"a"`
	B string `json:"b"`
	// Same is true for paraphrases (should fold) and false for different
	// facts that merely share words (must not fold).
	Same bool `json:"same"`
	// Kind optionally names the family the pair belongs to ("paraphrase",
	// "speaker", "negation", ...), so rates can be broken down by it.
	Kind string `json:"kind,omitempty"`
}

// ReadPairs reads JSON Lines of Pair. Blank lines are skipped.
func ReadPairs(r io.Reader) ([]Pair, error) {
	var pairs []Pair
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var p Pair
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			return nil, fmt.Errorf("pairs line %d: %w", line, err)
		}
		if p.A == "" || p.B == "" {
			return nil, fmt.Errorf("pairs line %d: both a and b are required", line)
		}
		pairs = append(pairs, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read pairs: %w", err)
	}
	return pairs, nil
}

// ReadPairsFile reads pairs from a JSON Lines file, such as the plugin's
// bm25/testdata/pairs.jsonl.
func ReadPairsFile(path string) ([]Pair, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open pairs: %w", err)
	}
	defer f.Close()
	return ReadPairs(f)
}

// Scored is a pair with the cosine similarity of its two embeddings.
type Scored struct {
	Pair
	Cosine float64
}

// Score embeds every pair with e (as documents, in batches that respect
// MaxBatch) and returns the pairs with their cosine similarity, in order.
func Score(ctx context.Context, e embedder.Embedder, pairs []Pair) ([]Scored, error) {
	info, err := e.Describe(ctx)
	if err != nil {
		return nil, fmt.Errorf("calibration: %w", err)
	}
	texts := make([]string, 0, 2*len(pairs))
	for _, p := range pairs {
		texts = append(texts, p.A, p.B)
	}
	vecs := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += info.MaxBatch {
		batch := texts[start:min(start+info.MaxBatch, len(texts))]
		v, err := e.Embed(ctx, embedder.PurposeDocument, batch)
		if err != nil {
			return nil, fmt.Errorf("calibration: %w", err)
		}
		vecs = append(vecs, v...)
	}
	scored := make([]Scored, len(pairs))
	for i, p := range pairs {
		scored[i] = Scored{Pair: p, Cosine: Cosine(vecs[2*i], vecs[2*i+1])}
	}
	return scored, nil
}

// Rates are the outcome of a fold decision over labelled pairs.
type Rates struct {
	// FalseFold is the share of distinct pairs at or above the threshold:
	// different facts the host would wrongly merge.
	FalseFold float64
	// MissedFold is the share of paraphrase pairs below the threshold:
	// duplicates the host would keep apart.
	MissedFold float64
	// Paraphrases and Distinct count the pairs of each label.
	Paraphrases, Distinct int
	// FalseFolds and MissedFolds count the pairs behind the two rates.
	FalseFolds, MissedFolds int
}

// RatesAt computes the fold rates of scored pairs at threshold. It fails
// when either label is missing, since a rate over no pairs means nothing.
func RatesAt(scored []Scored, threshold float64) (Rates, error) {
	return RatesOf(scored, func(s Scored) bool { return s.Cosine >= threshold })
}

// RatesOf computes the fold rates of any fold decision, such as a
// threshold plus a host's own guards. It fails when either label is
// missing.
func RatesOf(scored []Scored, folds func(Scored) bool) (Rates, error) {
	r := tally(scored, folds)
	if r.Paraphrases == 0 || r.Distinct == 0 {
		return Rates{}, errors.New("calibration needs both paraphrase and distinct pairs")
	}
	return r, nil
}

// RatesByKind is RatesOf per Pair.Kind. A kind may hold one label only; its
// other rate is then zero over zero pairs.
func RatesByKind(scored []Scored, folds func(Scored) bool) map[string]Rates {
	byKind := map[string][]Scored{}
	for _, s := range scored {
		byKind[s.Kind] = append(byKind[s.Kind], s)
	}
	out := make(map[string]Rates, len(byKind))
	for k, ss := range byKind {
		out[k] = tally(ss, folds)
	}
	return out
}

func tally(scored []Scored, folds func(Scored) bool) Rates {
	var r Rates
	for _, s := range scored {
		f := folds(s)
		if s.Same {
			r.Paraphrases++
			if !f {
				r.MissedFolds++
			}
		} else {
			r.Distinct++
			if f {
				r.FalseFolds++
			}
		}
	}
	if r.Distinct > 0 {
		r.FalseFold = float64(r.FalseFolds) / float64(r.Distinct)
	}
	if r.Paraphrases > 0 {
		r.MissedFold = float64(r.MissedFolds) / float64(r.Paraphrases)
	}
	return r
}

// Calibrate scores pairs with e and returns the rates at threshold.
func Calibrate(ctx context.Context, e embedder.Embedder, pairs []Pair, threshold float64) (Rates, error) {
	scored, err := Score(ctx, e, pairs)
	if err != nil {
		return Rates{}, err
	}
	return RatesAt(scored, threshold)
}

// Cosine is the cosine similarity of a and b, or 0 when either is zero or
// their lengths differ.
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// Floor is the cosine unrelated texts reach under an embedder, from the cosines of pairs known
// to be unrelated and of related ones (a question and the fact that answers it): the 95th
// percentile of the unrelated, held at or below the midpoint between the unrelated and the
// related medians, so that a model whose related pairs sit barely above its unrelated ones
// keeps most of them above the floor. A search reads a cosine only above it: real models put
// unrelated texts anywhere from .1 to .9 (a word-vector model's means sit close together),
// and below the floor the nearest neighbours are noise. 0 without unrelated pairs.
func Floor(unrelated, related []float64) float64 {
	if len(unrelated) == 0 {
		return 0
	}
	f := quantile(unrelated, 0.95)
	if len(related) > 0 {
		f = min(f, (quantile(unrelated, 0.5)+quantile(related, 0.5))/2)
	}
	return max(f, 0)
}

// quantile is the q-quantile of xs (0 <= q <= 1), interpolated between the nearest ranks.
func quantile(xs []float64, q float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	pos := q * float64(len(s)-1)
	lo := int(pos)
	if lo >= len(s)-1 {
		return s[len(s)-1]
	}
	return s[lo] + (pos-float64(lo))*(s[lo+1]-s[lo])
}
