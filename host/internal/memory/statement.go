package memory

import (
	"strings"
	"unicode"
	"unicode/utf8"

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
//   - their bodies agree on negation ("never", "do not", "without" ...);
//   - and one body says nothing the other lacks: every content term of one appears in the
//     other, up to a typo and a few light words. Reordering, inflection and a refinement
//     ("use pnpm" then "use pnpm 9") fold; a substitution of any word does not.
//
// The rule is lexical and embedder-independent: it only vetoes candidates the embedder put at
// or above its fold threshold. It prefers a missed fold (two rows that the background
// consolidation can still merge) to a false one (a different statement hidden in merged_from).
func SameStatement(a, b string) bool {
	sa, sb := statementOf(a), statementOf(b)
	if sa.head != sb.head || sa.negated != sb.negated {
		return false
	}
	return contained(sa.terms, sb.terms) || contained(sb.terms, sa.terms)
}

// statement is a text split for comparison.
type statement struct {
	head    string          // normalised head: timestamps, speaker, tag; "" when there is none
	negated bool            // the body carries a negation cue
	terms   map[string]bool // the body's content terms (tokenize), negations and light words left out
}

func statementOf(text string) statement {
	head, body := splitHead(text)
	s := statement{head: head, terms: map[string]bool{}}
	for _, t := range tokenize.Terms(body) {
		switch {
		case negationTerms[t]:
			s.negated = true
		case !lightTerms[t]:
			s.terms[t] = true
		}
	}
	return s
}

// contained reports whether every term of x is in y, an unmatched plain word being allowed to
// match one of y's unmatched words it differs from by a typo.
func contained(x, y map[string]bool) bool {
	var missing []string
	for t := range x {
		if !y[t] {
			missing = append(missing, t)
		}
	}
	if len(missing) == 0 {
		return true
	}
	var spare []string
	for t := range y {
		if !x[t] {
			spare = append(spare, t)
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
	return true
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
		if a[i+1:] == b[i+1:] {
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
// groups ("[7:48 pm on 21 May, 2023]", "(2024-03-02)") followed by an optional label of at most
// four words ending in a colon ("Tim:", "Decision:", "Tim (21 May 2023, 7:48 pm):"). The head is
// returned normalised (lower-cased, single-spaced); a text without one has head "".
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
		parts = append(parts, label)
		rest = after
	}
	if len(parts) == 0 {
		return "", text
	}
	return strings.ToLower(strings.Join(strings.Fields(strings.Join(parts, " ")), " ")), rest
}

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
	return s[:end+1], s[end+1:], true
}

// maxLabelWords bounds a head label: a speaker or a tag, not a clause that ends in a colon.
const maxLabelWords = 4

// headLabel takes a leading label ending in ": " off s: up to four words, optionally followed
// by one bracketed group, with no sentence punctuation.
func headLabel(s string) (label, rest string, ok bool) {
	colon := strings.Index(s, ":")
	if colon <= 0 || colon+1 >= len(s) {
		return "", s, false
	}
	if r, _ := utf8.DecodeRuneInString(s[colon+1:]); !unicode.IsSpace(r) {
		return "", s, false // "http://", "12:30", "pkg:name" are not labels
	}
	label = s[:colon]
	words := label
	if open := strings.IndexAny(label, "(["); open > 0 {
		g, after, ok := bracketGroup(label[open:])
		if !ok || strings.TrimSpace(after) != "" {
			return "", s, false
		}
		_ = g
		words = label[:open]
	}
	if n := len(strings.Fields(words)); n == 0 || n > maxLabelWords || strings.ContainsAny(words, ".,;!?`\"") {
		return "", s, false
	}
	return label + ":", strings.TrimLeftFunc(s[colon+1:], unicode.IsSpace), true
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

// negationTerms mark a body as negated. Stopwords ("do", "is") are gone by then, and the
// apostrophe is elided, so "do not", "don't" and "never" all leave a term from this list.
var negationTerms = termSet(`not no never none nothing nobody neither nor without cannot
	dont doesnt didnt isnt arent wasnt werent wont wouldnt shouldnt mustnt couldnt cant hasnt havent
	avoid avoids avoided`)

// lightTerms are words that restate a fact without changing it ("we use pnpm in this repo",
// "FYI, ..."), so one body may have them and the other not.
var lightTerms = termSet(`use uses used using here repo repository project codebase please always
	really actually currently fyi heads up reminder just know so`)
