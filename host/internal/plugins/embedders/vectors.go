package embedders

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// truncate cuts every text longer than max bytes (0: no limit) at the last
// UTF-8 boundary at or before max, copying the slice only when it must.
func truncate(texts []string, max int) []string {
	if max <= 0 {
		return texts
	}
	out := texts
	for i, t := range texts {
		if len(t) <= max {
			continue
		}
		if &out[0] == &texts[0] {
			out = slices.Clone(texts)
		}
		cut := max
		for cut > 0 && !utf8.RuneStart(t[cut]) {
			cut--
		}
		out[i] = t[:cut]
	}
	return out
}

// checkVectors holds an Embed answer to the protocol: one vector per text,
// each of dims components, all finite. A NaN or an infinity would poison
// every cosine, fold and ranking it touched.
func checkVectors(vecs [][]float32, texts, dims int) error {
	if len(vecs) != texts {
		return fmt.Errorf("invalid answer: %d vectors for %d texts", len(vecs), texts)
	}
	for i, v := range vecs {
		if len(v) != dims {
			return fmt.Errorf("invalid answer: vector %d has %d dimensions, Describe promised %d", i, len(v), dims)
		}
		for j, x := range v {
			// x-x is 0 for every finite x and NaN for NaN and the infinities: one
			// subtraction per component instead of two classifications.
			if x-x != 0 {
				return fmt.Errorf("invalid answer: vector %d component %d is %v", i, j, x)
			}
		}
	}
	return nil
}

// lexicalPrefix names the vector spaces of the BM25 floor ("bm25-v1-384"): hashed terms,
// whose zero vector is an answer (a text with no terms, or two terms whose hashes cancel).
const lexicalPrefix = "bm25-"

// checkDirections refuses the zero vector for a text with a letter or a digit from an embedder
// whose vectors are not hashed terms: a model maps every text it reads somewhere, so the zero
// vector (or nulls, which decode as zeros) is a broken answer. Stored, it would have no
// direction, no neighbours and never be embedded again (the row has a vector); refused, the
// write says the embedder failed and the re-embed job tries again.
func checkDirections(vecs [][]float32, texts []string, embedder string) error {
	if strings.HasPrefix(embedder, lexicalPrefix) {
		return nil
	}
	for i, v := range vecs {
		if slices.ContainsFunc(v, func(x float32) bool { return x != 0 }) {
			continue
		}
		if strings.IndexFunc(texts[i], func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			return fmt.Errorf("invalid answer: vector %d is all zeros for a text with words", i)
		}
	}
	return nil
}
