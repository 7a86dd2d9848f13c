package embedders

import (
	"fmt"
	"slices"
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
