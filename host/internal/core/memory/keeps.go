package memory

import (
	"slices"

	"github.com/memhost/memhost/sdk/tokenize"
)

// DroppedSpecifics returns the specifics of inputs that merged lacks, sorted: the numbers,
// versions, paths and identifiers (Distinct's specifics) of any input missing from merged,
// and "negation" when an input is negated ("not", "never", "don't", ...) and merged is not.
// A merge of several memories into one canonical statement is only safe when it drops
// nothing: "Go 1.24" merged into "Go 1.23", "/etc/app.conf" lost, or "never use npm" becoming
// "use npm" changes the fact. Consolidation rejects such an answer and leaves the memories
// apart; its deterministic pre-pass asks it both ways to call two texts' specifics the same.
func DroppedSpecifics(inputs []string, merged string) []string {
	have := specifics(merged)
	negated := isNegated(merged)
	var dropped []string
	for _, in := range inputs {
		for s := range specifics(in) {
			if !have[s] && !slices.Contains(dropped, s) {
				dropped = append(dropped, s)
			}
		}
		if !negated && isNegated(in) && !slices.Contains(dropped, "negation") {
			dropped = append(dropped, "negation")
		}
	}
	slices.Sort(dropped)
	return dropped
}

// isNegated reports whether text carries a negation term (negationTerms, which the fold's
// polarity check uses too).
func isNegated(text string) bool {
	for _, t := range tokenize.Terms(text) {
		if negationTerms[t] {
			return true
		}
	}
	return false
}
