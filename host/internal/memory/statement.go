package memory

import (
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
//     govern the same words in both, so "main, not develop" is not "develop, not main";
//   - their specifics (numbers, identifiers, paths) do not differ both ways (Distinct);
//   - and their words match: every word of one body is in the other as often, up to a typo and
//     a few light words, and the other adds at most maxAddedWords more. Reordering, inflection
//     and a refinement ("use pnpm" then "use pnpm 9") fold; a substituted word does not.
//
// The rule is lexical and embedder-independent: it only vetoes candidates the embedder put at
// or above its fold threshold. It prefers a missed fold (a reworded duplicate stays a second
// row, which a later consolidation pass can merge) to a false one (a different statement
// hidden in merged_from). bench's fold set measures both (docs/benchmarks.md).
func SameStatement(a, b string) bool {
	sa, sb := statementOf(a), statementOf(b)
	if sa.head != sb.head || sa.polarity != sb.polarity || !sameObjects(sa.objects, sb.objects) ||
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
		if bare == "off" && clauseEnd(field, i == len(fields)-1) ||
			bare == "out" && i+1 < len(fields) && strings.EqualFold(fields[i+1], "of") {
			// "dark mode is off", "jobs run out of order"; not "cut branches off main".
			s.polarity.reversed = true
			continue
		}
		terms := tokenize.Terms(field)
		switch {
		case len(terms) == 0 && isAcronym(field):
			terms = []string{bare} // "US", "IT": stopwords in lower case, names in capitals
		case len(terms) > 1 && (strings.ContainsAny(terms[0], "-_./\\:") || isIdentifierField(field)):
			// An identifier ("fast-exports", "internal/queue/retry.go") is one word here: its
			// parts must not stand in for plain words ("the new exports flow").
			terms = terms[:1]
		}
		for _, t := range terms {
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
					s.words[t] = &word{n: 1, surface: bare}
				}
				for _, cue := range pending {
					s.objects[cue] = append(s.objects[cue], bare)
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
var orderCues = map[string]bool{"not": true, "never": true, "instead": true, "rather": true, "then": true,
	"than": true, "before": true, "after": true, "over": true, "vs": true, "versus": true}

// restrictionCues narrow a statement to some of what it names: "only admins" is not "admins".
var restrictionCues = map[string]bool{"only": true, "except": true, "unless": true, "solely": true,
	"exclusively": true}

// sameObjects reports whether every ordering cue both bodies use governs the same words, in
// order, up to a typo.
func sameObjects(a, b map[string][]string) bool {
	for cue, x := range a {
		y, ok := b[cue]
		if !ok {
			continue
		}
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i] != y[i] && !typoOf(x[i], y[i]) {
				return false
			}
		}
	}
	return true
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

// wordsMatch reports whether every word of x is in y as often, up to a typo, with y adding at
// most maxAddedWords plain words (specifics it adds are a refinement, which Distinct bounds).
func wordsMatch(x, y statement) bool {
	var missing, spare []string
	for t, w := range x.words {
		for range w.n - y.count(t) {
			missing = append(missing, w.surface)
		}
	}
	for t, w := range y.words {
		for range w.n - x.count(t) {
			spare = append(spare, w.surface)
		}
	}
	used := make([]bool, len(spare))
next:
	for _, m := range missing {
		for i, s := range spare {
			if !used[i] && typoOf(m, s) {
				used[i] = true
				continue next
			}
		}
		return false
	}
	added := 0
	for i, s := range spare {
		if !used[i] && !isSpecific(s) {
			added++
		}
	}
	return added <= maxAddedWords
}

func (s statement) count(term string) int {
	if w := s.words[term]; w != nil {
		return w.n
	}
	return 0
}

// typoOf reports whether two plain words differ by one edit (a letter inserted, dropped,
// changed or two swapped), as a typo or a British and an American spelling do. Words shorter
// than five letters, and anything with a digit or connector, never match: "v1.2" and "v1.3",
// or "dev" and "qa", name different things.
func typoOf(a, b string) bool {
	if len(a) < 5 || len(b) < 5 || !plainWord(a) || !plainWord(b) {
		return false
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b)-len(a) > 1 {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	if len(a) == len(b) {
		if i == len(a) || a[i+1:] == b[i+1:] {
			return true // one letter changed
		}
		return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:] // two swapped
	}
	return a[i:] == b[i+1:] // one letter inserted
}

func plainWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// splitHead splits a text into its head and body. A head is any run of leading bracketed
// groups ("[7:48 pm on 21 May, 2023]", "(2024-03-02)", "[ops]") followed by an optional label of
// at most four words ending in a colon ("Tim:", "Decision:", "Tim (21 May 2023, 7:48 pm):").
// The head is returned normalised (normalizeHead); a text without one has head "". Filler
// labels ("FYI:", "Note:") are dropped.
func splitHead(text string) (head, body string) {
	rest := strings.TrimLeftFunc(text, unicode.IsSpace)
	var parts []string
	for {
		g, after, ok := bracketGroup(rest)
		if !ok {
			break
		}
		parts = append(parts, g)
		rest = strings.TrimLeftFunc(after, unicode.IsSpace)
	}
	if label, after, ok := headLabel(rest); ok {
		if !fillerLabels[normalizeHead(label)] {
			parts = append(parts, label)
		}
		rest = after
	}
	if len(parts) == 0 {
		return "", rest
	}
	return normalizeHead(strings.Join(parts, " ")), rest
}

// normalizeHead keeps a head's letters and digits, lower-cased and single-spaced, so the same
// timestamp and speaker compare equal however they were punctuated or quoted.
func normalizeHead(h string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(h), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}

// fillerLabels are labels that introduce a note without saying who or when ("FYI: ...");
// they are dropped rather than compared.
var fillerLabels = map[string]bool{"fyi": true, "note": true, "nb": true, "reminder": true, "heads up": true,
	"important": true, "psa": true, "ps": true, "update": true}

// maxHeadGroup bounds one bracketed group of a head: a timestamp or a session tag, not a
// parenthetical sentence.
const maxHeadGroup = 48

// bracketGroup takes one leading "[...]" or "(...)" group off s.
func bracketGroup(s string) (group, rest string, ok bool) {
	if s == "" || (s[0] != '[' && s[0] != '(') {
		return "", s, false
	}
	closer := byte(']')
	if s[0] == '(' {
		closer = ')'
	}
	end := strings.IndexByte(s, closer)
	if end < 0 || end > maxHeadGroup {
		return "", s, false
	}
	// A timestamp or session carries a digit, a tag ("[ops]") is a word or two; anything else
	// is a parenthetical remark that belongs to the body.
	if inner := s[1:end]; !strings.ContainsAny(inner, "0123456789") && len(strings.Fields(inner)) > 2 {
		return "", s, false
	}
	return s[:end+1], s[end+1:], true
}

// maxLabelWords bounds a head label: a speaker or a tag, not a clause that ends in a colon.
const maxLabelWords = 4

// headLabel takes a leading label ending in ": " off s: up to four words with no sentence
// punctuation, optionally followed by one bracketed group ("Tim (21 May 2023, 7:48 pm): ").
func headLabel(s string) (label, rest string, ok bool) {
	end := strings.IndexAny(s, ":([")
	if end <= 0 {
		return "", s, false
	}
	words, after := s[:end], s[end:]
	if after[0] != ':' {
		if _, after, ok = bracketGroup(after); !ok {
			return "", s, false
		}
	}
	if !strings.HasPrefix(after, ": ") {
		return "", s, false // "http://x", "12:30" and "pkg:name" are not labels
	}
	if n := len(strings.Fields(words)); n == 0 || n > maxLabelWords || strings.ContainsAny(words, ".,;!?`\"") {
		return "", s, false
	}
	return s[:len(s)-len(after)+1], strings.TrimLeftFunc(after[1:], unicode.IsSpace), true
}

// termSet is the set of tokenize terms of words, so the lists below stay right if the
// stemmer's output changes.
func termSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, t := range tokenize.Terms(words) {
		m[t] = true
	}
	return m
}

// negationTerms mark a negated body. Stopwords ("do", "is") are gone by then and the
// apostrophe is elided, so "do not", "don't" and "never" all leave a term from this list.
var negationTerms = termSet(`not no never none nothing nobody neither nor without cannot
	dont doesnt didnt isnt arent wasnt werent wont wouldnt shouldnt mustnt couldnt cant hasnt havent
	avoid avoids avoided instead rather`)

// reversalTerms mark a body that undoes or refuses what it names ("stop using X", "remove X",
// "X is disabled"): one word that turns "use X" into its opposite. statementOf adds "off" at
// the end of a clause and "out of".
var reversalTerms = termSet(`stop stops stopped remove removes removed delete deletes deleted
	disable disables disabled forbid forbids forbidden`)

// lightTerms are words that restate a fact without changing it ("we use pnpm in this repo",
// "FYI, ..."), so one body may have them and the other not.
var lightTerms = termSet(`use uses used using here repo repository project codebase please always
	really actually currently fyi heads up reminder just know so`)
