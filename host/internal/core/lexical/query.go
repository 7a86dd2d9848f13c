package lexical

import "github.com/memhost/memhost/sdk/tokenize"

// concept is one idea of a query: the query terms it covers, each scored as plain BM25, and
// the thesaurus expansions found for them, of which a memory scores the best one. Coverage
// counts concepts, so "package manager" is one idea whether a memory says "package", "pnpm" or
// both.
type concept struct {
	terms []string
	adds  []expansion
}

// plan analyses query text into concepts. Without expansion every distinct term is its own
// concept with nothing added, which is exactly Okapi BM25 over the query's terms.
func plan(text string, expand bool) []concept {
	terms := tokenize.Terms(text)
	seen := make(map[string]bool, len(terms))
	var out []concept
	for i := 0; i < len(terms); {
		var c concept
		n := 1
		if expand {
			if e, ok := lookup(terms[i:]); ok {
				c.adds, n = e.adds, len(e.key)
			}
		}
		for _, t := range terms[i : i+n] {
			if !seen[t] {
				seen[t] = true
				c.terms = append(c.terms, t)
			}
		}
		i += n
		if len(c.terms) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// lookup finds the longest thesaurus key that starts the term sequence.
func lookup(terms []string) (thesaurusEntry, bool) {
	for _, e := range thesaurus()[terms[0]] {
		if len(e.key) <= len(terms) && equalTerms(e.key, terms[:len(e.key)]) {
			return e, true
		}
	}
	return thesaurusEntry{}, false
}
