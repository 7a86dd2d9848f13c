package memory

import (
	"strings"
	"unicode"
)

// This file holds how a text is split into its head (timestamp, speaker, tag) and its body.

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
	// A filler ("Note: ", "Remember that ") may stand before the note's own label, as when an
	// agent restates "Gotcha: ..." as "Remember that gotcha: ...".
	for rest = trimLeadIn(rest); ; {
		label, after, ok := headLabel(rest)
		if !ok {
			break
		}
		rest = trimLeadIn(after)
		if !fillerLabels[normalizeHead(label)] {
			parts = append(parts, label)
			break
		}
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
	"important": true, "psa": true, "ps": true, "update": true, "keep in mind": true, "remember": true}

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

// fillerLeadIns are the openings with which a note restates what it says ("Remember that the
// API listens on 8080"), dropped with the punctuation after them.
var fillerLeadIns = []string{"keep in mind that", "remember that", "note that", "as we found", "as we learned",
	"as a reminder", "it turns out that", "it turns out", "turns out", "just so you know", "don't forget that",
	"do not forget that"}

// trimLeadIn drops a leading filler lead-in from body.
func trimLeadIn(body string) string {
	for _, l := range fillerLeadIns {
		if len(body) > len(l) && strings.EqualFold(body[:len(l)], l) && !unicode.IsLetter(rune(body[len(l)])) {
			return strings.TrimLeft(body[len(l):], " ,:;-—")
		}
	}
	return body
}
