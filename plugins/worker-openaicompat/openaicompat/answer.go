package openaicompat

import (
	"encoding/json"
	"regexp"
	"strings"
)

// fenceRE matches a Markdown code fence, its info string (json or none)
// and its body.
var fenceRE = regexp.MustCompile("(?s)```[ \t]*([A-Za-z0-9_-]*)[ \t]*\r?\n(.*?)```")

// maxCandidates bounds how many opening brackets extractJSON tries, so that
// prose full of brackets costs a bounded amount of work.
const maxCandidates = 64

// extractJSON finds the JSON value in a model's answer, for runtimes that
// cannot be made to answer JSON alone: the whole text when it is JSON, else
// the first fenced block tagged json (or untagged) that is JSON, else the
// first balanced {...} or [...] in the prose that is JSON. It reports false
// when there is none; whether the value satisfies the task's schema is
// Task.CheckAnswer's call.
func extractJSON(text string) (string, bool) {
	if s := strings.TrimSpace(text); json.Valid([]byte(s)) && s != "" {
		return s, true
	}
	for _, m := range fenceRE.FindAllStringSubmatch(text, -1) {
		tag, body := strings.ToLower(m[1]), strings.TrimSpace(m[2])
		if (tag == "json" || tag == "") && json.Valid([]byte(body)) {
			return body, true
		}
	}
	tried := 0
	for i := 0; i < len(text) && tried < maxCandidates; i++ {
		if text[i] != '{' && text[i] != '[' {
			continue
		}
		tried++
		if end := balancedEnd(text[i:]); end > 0 && json.Valid([]byte(text[i:i+end])) {
			return text[i : i+end], true
		}
	}
	return "", false
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
