package bm25

import "github.com/memhost/memhost/sdk/tokenize"

// commonTerms are stemmed terms that appear in a large share of
// project-memory notes and so say little about which fact a note states.
// They stand in for a low IDF, which a stateless embedder cannot measure.
// The list is keyed by tokenize's stemmed form, so it is built through
// tokenize.Terms and stays right if the stemmer's output changes.
var commonTerms = func() map[string]struct{} {
	words := `use used using uses need needs make makes get gets set sets run runs
		add adds new old file files code project repo repository work works
		instead should must want like see note thing things way
		time now currently default please`
	m := map[string]struct{}{}
	for _, t := range tokenize.Terms(words) {
		m[t] = struct{}{}
	}
	return m
}()
