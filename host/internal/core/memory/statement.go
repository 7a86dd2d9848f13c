package memory

import (
	"slices"
	"strings"
	"unicode"

	"github.com/memhost/memhost/sdk/tokenize"
)

// SameStatement reports whether two texts an embedder found similar state the same thing, so
// that one may fold into the other. Similarity alone cannot tell: "[7:48 pm] Tim: ..." and
// "[7:48 pm] John: ..." share a long prefix, "use pnpm" and "never use pnpm" share every
// content word, and "billing retries 4 times" and "scheduler retries 4 times" differ in one
// word. Two texts are one statement when
//
//   - they carry the same head (a leading timestamp, speaker or tag such as "Decision:"),
//     since who said it and when is part of what was said;
//   - their bodies agree on negation ("never", "do not", "instead of"), on reversal ("stop",
//     "remove", "disabled", "is off") and on restriction ("only", "except", "unless"), so "do
//     not stop X" is neither "stop X" nor "X", and "only admins" is not "admins";
//   - words that order or oppose things ("not", "then", "than", "before", "after", "over")
//     govern no two words swapped, so "main, not develop" is not "develop, not main";
//   - their specifics (numbers, identifiers, paths) do not differ both ways (Distinct);
//   - and their words match (wordsMatch): every word of one body is in the other as often, up
//     to a typo, a synonym (synonymGroups: "belongs" / "owned", "keeps" / "stores"), a compound
//     written apart ("timeout" / "time out") and a few light words, and the other adds at most
//     maxAddedWords more. Reordering, inflection (irregular verbs too: "built" / "builds") and
//     a refinement ("use pnpm" then "use pnpm 9") fold; any other substituted word does not,
//     because another verb between the same things ("the importer skips rows" / "rows are
//     reported by the importer") is as often another statement as a rewording.
//
// Filler lead-ins ("Note:", "Keep in mind:", "Remember that", "As we found,") are not part of
// a statement, and every way of forbidding ("never X", "do not X", "no need to X") is one.
//
// The rule is lexical and embedder-independent: it only vetoes candidates the embedder put at
// or above its fold threshold. It prefers a missed fold (a reworded duplicate stays a second
// row, which a later consolidation pass can merge) to a false one (a different statement
// hidden in merged_from). bench's fold set measures both (docs/benchmarks.md).
func SameStatement(a, b string) bool {
	sa, sb := statementOf(a), statementOf(b)
	if sa.head != sb.head || sa.polarity != sb.polarity || !sameObjects(sa, sb) || !sameObjects(sb, sa) ||
		Distinct(sa.body, sb.body) {
		return false
	}
	return wordsMatch(sa, sb) || wordsMatch(sb, sa)
}

// maxAddedWords is how many plain words the longer of two bodies may add to the shorter one
// and still state the same thing ("The billing service listens on 8080" vs "billing listens on
// 8080"). More, and the shorter is a question or a part of a larger statement.
const maxAddedWords = 1

// statement is a text split for comparison.
type statement struct {
	head     string              // normalised head: timestamps, speaker, tag; "" when none
	body     string              // the text after the head
	polarity polarity            // negation, reversal and restriction cues present
	objects  map[string][]string // ordering cue -> the words it governs
	words    map[string]*word    // content term -> its uses
}

// polarity is which kinds of cue that change a statement's sense a body carries.
type polarity struct{ negated, reversed, restricted bool }

// word is one content term of a body: how often it occurs and the word it first came from.
type word struct {
	n       int
	surface string
}

func statementOf(text string) statement {
	head, body := splitHead(text)
	s := statement{head: head, body: body, words: map[string]*word{}, objects: map[string][]string{}}
	var pending []string // ordering cues waiting for the term they govern
	fields := strings.FieldsFunc(body, unicode.IsSpace)
	for i, field := range fields {
		bare := strings.ToLower(strings.Trim(field, trimSet))
		switch {
		case clauseEnd(field, false):
			// "Urgent or not, PRs wait": a cue ending its clause governs nothing after it.
		case bare == "never" || bare == "instead" || bare == "rather":
			// "never merge" governs like "do not merge", "pnpm instead of npm" and "pnpm
			// rather than npm" like "pnpm, not npm".
			pending = append(pending, "not")
		case bare == "than" && i > 0 && strings.EqualFold(fields[i-1], "rather"):
			// "rather" already governs what follows "than".
		case orderCues[bare]:
			pending = append(pending, bare)
		case strings.HasSuffix(bare, "n't") || strings.HasSuffix(bare, "n’t"):
			pending = append(pending, "not") // "don't merge" governs like "do not merge"
		}
		if restrictionCues[bare] {
			s.polarity.restricted = true
		}
		if pronounContraction(bare) {
			continue // "I'm", "we'll": a pronoun and an auxiliary, both stopwords when spelt out
		}
		if bare == "need" && i > 0 && strings.EqualFold(fields[i-1], "no") {
			continue // "there is no need to run X": "no" already negates it, like "do not run X"
		}
		if bare == "off" && clauseEnd(field, i == len(fields)-1) ||
			bare == "out" && i+1 < len(fields) && strings.EqualFold(fields[i+1], "of") {
			// "dark mode is off", "jobs run out of order"; not "cut branches off main".
			s.polarity.reversed = true
			continue
		}
		terms, surface := tokenize.Terms(field), bare
		switch {
		case numberWords[bare] != "":
			terms, surface = []string{numberWords[bare]}, numberWords[bare] // "two weeks" is "2 weeks"
		case len(terms) == 0 && isAcronym(field):
			terms = []string{bare} // "US", "IT": stopwords in lower case, names in capitals
		case len(terms) == 0 && singleLetterName(bare):
			// "returns m as the encoding of m" is not "returns v as ... v": a one-letter word
			// other than "a" and "I" names something (a variable, a flag, an axis).
			terms = []string{bare}
		case len(terms) > 1 && (strings.ContainsAny(terms[0], "-_./\\:") || isIdentifierField(field) || terms[0] == bare):
			// An identifier ("fast-exports", "internal/queue/retry.go") is one word here: its
			// parts must not stand in for plain words ("the new exports flow").
			terms = terms[:1]
		}
		for _, t := range terms {
			if base, ok := irregularStems()[t]; ok {
				t = base // "built", "kept", "written": the stemmer leaves irregular forms alone
			}
			switch {
			case negationTerms[t]:
				s.polarity.negated = true
			case reversalTerms[t]:
				s.polarity.reversed = true
			case lightTerms[t]:
			default:
				if w := s.words[t]; w != nil {
					w.n++
				} else {
					s.words[t] = &word{n: 1, surface: surface}
				}
				if orderCues[bare] {
					continue // a cue such as "before" or "over" is a word too, but governs what follows it
				}
				for _, cue := range pending {
					s.objects[cue] = append(s.objects[cue], t)
				}
				pending = pending[:0]
			}
		}
	}
	return s
}

// trimSet is the punctuation around a word.
const trimSet = ".,;:!?()[]{}\"'`“”‘’"

// orderCues are words whose meaning depends on which term follows them: "X, not Y", "first X,
// then Y", "X rather than Y", "before X", "prefer X over Y".
var orderCues = map[string]bool{"not": true, "then": true,
	"than": true, "before": true, "after": true, "over": true, "vs": true, "versus": true}

// restrictionCues narrow a statement to some of what it names: "only admins" is not "admins".
var restrictionCues = map[string]bool{"only": true, "except": true, "unless": true, "solely": true,
	"exclusively": true}

// sameObjects reports whether a and b order things alike: no two words the same ordering cue
// governs are swapped ("main, not develop" is not "develop, not main"; "backend first, then
// the frontend" is not "frontend first, then the backend"), and a preference names the same
// loser in both ("prefer pnpm over npm" is not "prefer npm"). A cue may govern a word the other
// body words differently ("must not store" / "do not keep its records"; "larger than 5 MB" /
// "capped at 5 MB"): the word match judges those.
func sameObjects(a, b statement) bool {
	for cue := range a.objects {
		if strays(a, b, cue) && (preferenceCues[cue] || strays(b, a, cue)) {
			return false
		}
	}
	return true
}

// preferenceCues name what a statement prefers something to.
var preferenceCues = map[string]bool{"over": true, "vs": true, "versus": true}

// strays reports whether a word cue governs in a is in b without cue governing it there.
func strays(a, b statement, cue string) bool {
	return slices.ContainsFunc(a.objects[cue], func(t string) bool {
		return b.words[t] != nil && !slices.ContainsFunc(b.objects[cue], func(u string) bool { return u == t || typoOf(u, t) })
	})
}

// pronounContraction reports whether a lower-cased word is a pronoun contracted with an
// auxiliary ("i'm", "you'll", "we've", "they'd", "let's"), which tokenize keeps as one term.
func pronounContraction(w string) bool {
	pronoun, aux, ok := strings.Cut(strings.ReplaceAll(w, "’", "'"), "'")
	if !ok {
		return false
	}
	switch pronoun {
	case "i", "you", "we", "they", "he", "she", "it", "that", "there", "let", "who", "what":
		switch aux {
		case "m", "ll", "ve", "re", "d", "s":
			return true
		}
	}
	return false
}

// clauseEnd reports whether a field ends a clause: the last field, or one followed by
// punctuation.
func clauseEnd(field string, last bool) bool {
	return last || strings.ContainsAny(field[len(field)-1:], ".,;:!?)")
}

// isAcronym reports whether a field is a word in capitals ("US", "EU", "IT").
// singleLetterName reports whether a lower-cased bare word is one letter that is not an English
// word of its own ("a", "i").
func singleLetterName(bare string) bool {
	return len(bare) == 1 && bare[0] >= 'b' && bare[0] <= 'z' && bare != "i"
}

func isAcronym(field string) bool {
	f := strings.Trim(field, trimSet)
	if len(f) < 2 {
		return false
	}
	for _, r := range f {
		if !unicode.IsUpper(r) {
			return false
		}
	}
	return true
}

// isIdentifierField reports whether a whitespace-separated field is one identifier written in
// camel case ("parseHTTPResponse"), whose tokenize terms are the whole and its parts.
func isIdentifierField(field string) bool {
	prev := rune(0)
	for _, r := range strings.Trim(field, trimSet) {
		if unicode.IsUpper(r) && unicode.IsLower(prev) {
			return true
		}
		prev = r
	}
	return false
}
