package openaicompat

import (
	"encoding/json"
	"regexp"
	"strings"
)

// fenceRE matches a Markdown code fence, its info string (json or none)
// and its body.
var fenceRE = regexp.MustCompile("(?s)```[ \t]*([A-Za-z0-9_-]*)[ \t]*\r?\n(.*?)```")

// maxCandidates bounds how many opening brackets jsonCandidates tries, so
// that prose full of brackets costs a bounded amount of work.
const maxCandidates = 64

// jsonCandidates lists the JSON values in a model's answer, for runtimes
// that cannot be made to answer JSON alone, in the order to try them: the
// whole text when it is JSON, then each fenced block tagged json (or
// untagged) that is JSON, then each balanced {...} or [...] in the text that
// is JSON. Which one answers the task is for the task's schema to say: prose
// such as "see [1]" holds JSON that is not the answer.
func jsonCandidates(text string) []string {
	if s := strings.TrimSpace(text); s != "" && json.Valid([]byte(s)) {
		return []string{s}
	}
	var out []string
	for _, m := range fenceRE.FindAllStringSubmatch(text, -1) {
		tag, body := strings.ToLower(m[1]), strings.TrimSpace(m[2])
		if (tag == "json" || tag == "") && json.Valid([]byte(body)) {
			out = append(out, body)
		}
	}
	tried := 0
	for i := 0; i < len(text) && tried < maxCandidates; i++ {
		if text[i] != '{' && text[i] != '[' {
			continue
		}
		tried++
		if end := balancedEnd(text[i:]); end > 0 && json.Valid([]byte(text[i:i+end])) {
			out = append(out, text[i:i+end])
			// The next candidate starts after this value, not inside it.
			i += end - 1
		}
	}
	return out
}

// balancedEnd returns the length of the bracketed value s starts with,
// skipping brackets inside JSON strings, or 0 when it never closes.
func balancedEnd(s string) int {
	depth, inString, escaped := 0, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString && c == '"':
			inString = false
		case inString:
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return 0
}
