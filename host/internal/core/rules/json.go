package rules

import (
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// maxFieldName bounds the object key CheckJSON names in its error; a longer key is not one
// of memhost's fields, and repeating it would only flood the message.
const maxFieldName = 64

// CheckJSON refuses a JSON document (a REST body, an MCP call's arguments) whose strings a
// decoder would silently change. Go's encoding/json replaces invalid UTF-8 and an unpaired
// UTF-16 surrogate escape ("\ud800") with U+FFFD, so without this check a field that must be
// valid UTF-8 would be stored altered and the write answered as a success. It reads the raw
// bytes, before any decoding; syntax is left to the decoder. The *FieldError names the object
// key whose value holds the problem, or "body".
func CheckJSON(data []byte) error {
	field := "body"
	for i := 0; i < len(data); i++ {
		if data[i] != '"' {
			if data[i] >= utf8.RuneSelf {
				if r, size := utf8.DecodeRune(data[i:]); r == utf8.RuneError && size == 1 {
					return Errf("body", "must be valid UTF-8 (byte 0x%02x at offset %d of the JSON is not)", data[i], i)
				}
			}
			continue
		}
		end, problem := scanString(data, i+1)
		isKey := followedByColon(data, end+1)
		if problem != "" {
			if isKey {
				return Errf("body", "has an object key that %s", problem)
			}
			return Errf(field, "%s", problem)
		}
		if isKey {
			field = "body"
			if key := data[i+1 : end]; len(key) <= maxFieldName {
				field = string(key)
			}
		}
		i = end
	}
	return nil
}

// scanString reads the JSON string whose contents start at data[start] up to its closing
// quote, and returns the quote's offset (len(data) when unterminated) and the first thing
// wrong with the contents, if any.
func scanString(data []byte, start int) (end int, problem string) {
	note := func(format string, args ...any) {
		if problem == "" {
			problem = fmt.Sprintf(format, args...)
		}
	}
	j := start
	for j < len(data) && data[j] != '"' {
		switch b := data[j]; {
		case b == '\\' && j+1 < len(data) && data[j+1] == 'u':
			r, ok := hex4(data, j+2)
			switch {
			case !ok:
				j += 2 // a malformed escape is the decoder's to report
			case !utf16.IsSurrogate(r):
				j += 6
			case r < 0xdc00 && pairedLow(data, j+6):
				j += 12
			default:
				note("must not hold an unpaired UTF-16 surrogate escape (\\u%04x at offset %d of the JSON): "+
					"a character beyond U+FFFF is written as a high and a low surrogate escape together, or as UTF-8", r, j)
				j += 6
			}
		case b == '\\':
			j += 2
		case b < utf8.RuneSelf:
			j++
		default:
			r, size := utf8.DecodeRune(data[j:])
			if r == utf8.RuneError && size == 1 {
				note("must be valid UTF-8 (byte 0x%02x at offset %d of the JSON is not)", b, j)
			}
			j += size
		}
	}
	return min(j, len(data)), problem
}

// pairedLow reports whether a low surrogate escape (\udc00..\udfff) starts at data[at].
func pairedLow(data []byte, at int) bool {
	low, ok := hex4(data, at+2)
	return ok && data[at] == '\\' && data[at+1] == 'u' && low >= 0xdc00 && low <= 0xdfff
}

// hex4 decodes the four hex digits at data[at:], as a \u escape holds them.
func hex4(data []byte, at int) (rune, bool) {
	if at+4 > len(data) {
		return 0, false
	}
	var r rune
	for _, c := range data[at : at+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// followedByColon reports whether the next character at or after data[at], past white space,
// is ':' (the string before it was an object key).
func followedByColon(data []byte, at int) bool {
	for ; at < len(data); at++ {
		switch data[at] {
		case ' ', '\t', '\n', '\r':
			continue
		case ':':
			return true
		}
		return false
	}
	return false
}
