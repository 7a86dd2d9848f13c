package memory

import (
	"slices"

	"github.com/memhost/memhost/sdk/tokenize"
)

// This file is the merge guard: when consolidation may make one memory of several, and which
// text the one keeps. A merge keeps one of its inputs' own texts, never a model's rewording:
// no deterministic check can prove that a new sentence says exactly what several others said
// (issue 25 found rewordings that added an instruction and a codename, swapped "tabs" and
// "spaces" around a "not", turned "three" into "five" and 10 MB into 10 GB, and paired two
// ports with each other's services), but it can check that one of the inputs already says
// everything the others say. A model only judges whether the inputs state the same fact.

// MergeText returns the text a merge of texts keeps: the first of them (callers put the
// survivor's own text first) that keeps what every other one says (Unkept is empty for each),
// and nil. When none does, the inputs do not state one fact as far as the guard can tell: it
// returns "" and what the first text fails to keep of the others.
func MergeText(texts []string) (string, []string) {
	for _, c := range texts {
		if keepsAll(texts, c) {
			return c, nil
		}
	}
	var why []string
	for _, t := range texts[1:] {
		why = appendNew(why, Unkept(t, texts[0])...)
	}
	slices.Sort(why)
	return "", why
}

func keepsAll(texts []string, canonical string) bool {
	for _, t := range texts {
		if t != canonical && len(Unkept(t, canonical)) > 0 {
			return false
		}
	}
	return true
}

// Unkept returns what canonical does not keep of input, sorted; empty when canonical says
// everything input says, in the same sense (it may add specifics: "use pnpm" is kept by
// "use pnpm 9"). What a merge must keep:
//
//   - every specific of input (Distinct's: numbers, spelt out too, with their units,
//     versions, paths with their anchor, identifiers), named as found;
//   - its head, when it has one (who said it and when: "tim 7 48 pm");
//   - its sense: a negation, a reversal ("stop", "disabled") or a restriction ("only") either
//     text has and the other has not ("negation", "reversal", "restriction");
//   - its word order around a cue that orders things ("tabs, not spaces" is not "spaces, not
//     tabs"; "prefer X over Y"): "word order";
//   - what each specific goes with: a specific both say, in the company of a word the other
//     text puts with another specific ("api on 8080, metrics on 9090" against "api on 9090,
//     metrics on 8080"), or counting another thing ("3 replicas" against "3 workers"):
//     "what 8080 goes with".
func Unkept(input, canonical string) []string {
	var out []string
	have := specifics(canonical)
	for s := range specifics(input) {
		if !have[s] {
			out = append(out, s)
		}
	}
	si, sc := statementOf(input), statementOf(canonical)
	if si.head != "" && si.head != sc.head {
		out = append(out, "head "+si.head)
	}
	for _, p := range []struct {
		name string
		a, b bool
	}{{"negation", si.polarity.negated, sc.polarity.negated}, {"reversal", si.polarity.reversed, sc.polarity.reversed},
		{"restriction", si.polarity.restricted, sc.polarity.restricted}} {
		if p.a != p.b {
			out = append(out, p.name)
		}
	}
	if !sameObjects(si, sc) || !sameObjects(sc, si) {
		out = append(out, "word order")
	}
	for _, s := range repaired(pairingOf(input), pairingOf(canonical)) {
		out = append(out, "what "+s+" goes with")
	}
	slices.Sort(out)
	return out
}

// pairing is what a text's specifics go with: the content words of each one's clauses, and
// the word a number counts ("28 replicas").
type pairing struct {
	company map[string]map[string]bool // specific -> content terms of its clauses
	counts  map[string]string          // number -> the content term right after it
	terms   map[string]bool            // every content term of the text
}

func pairingOf(text string) pairing {
	p := pairing{company: map[string]map[string]bool{}, counts: map[string]string{}, terms: map[string]bool{}}
	var specs, terms []string
	words := scanWords(text)
	for i, w := range words {
		if w.specific != "" {
			specs = append(specs, w.specific)
			if w.number && !w.clauseEnd && i+1 < len(words) {
				if t := contentTerm(words[i+1].word); t != "" {
					p.counts[w.specific] = t
				}
			}
		} else if t := contentTerm(w.word); t != "" {
			terms = append(terms, t)
			p.terms[t] = true
		}
		if w.clauseEnd {
			for _, s := range specs {
				if p.company[s] == nil {
					p.company[s] = map[string]bool{}
				}
				for _, t := range terms {
					p.company[s][t] = true
				}
			}
			specs, terms = specs[:0], terms[:0]
		}
	}
	return p
}

// contentTerm is the term of a plain word that says what something is: not a stopword, a
// light word, a cue of negation or order.
func contentTerm(word string) string {
	if word == "" {
		return ""
	}
	terms := tokenize.Terms(word)
	if len(terms) == 0 {
		return ""
	}
	t := terms[0]
	if base, ok := irregularStems()[t]; ok {
		t = base
	}
	if lightTerms[t] || negationTerms[t] || reversalTerms[t] || orderCues[t] {
		return ""
	}
	return t
}

// repaired returns the specifics x and y both have that go with other words in each (see
// Unkept), sorted.
func repaired(x, y pairing) []string {
	var out []string
	for s, cx := range x.counts {
		if cy, ok := y.counts[s]; ok && cx != cy && !y.terms[cx] && !x.terms[cy] && !synonyms(cx, cy) {
			out = appendNew(out, s)
		}
	}
	for s, xs := range x.company {
		ys, ok := y.company[s]
		if !ok {
			continue
		}
		for t, xt := range x.company {
			yt, ok := y.company[t]
			if t == s || !ok {
				continue
			}
			for w := range xs {
				// w is s's in x and t's in y, and in neither text the other's.
				if !xt[w] && yt[w] && !ys[w] {
					out = appendNew(out, s)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// appendNew appends the values list lacks.
func appendNew(list []string, values ...string) []string {
	for _, v := range values {
		if !slices.Contains(list, v) {
			list = append(list, v)
		}
	}
	return list
}
