package project

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// configEntry is one `key = value` line of a git config file with its section already applied.
// Section and key are lowercased because git treats them case-insensitively; the subsection
// keeps its case because git does too (remote "Origin" and "origin" are different remotes).
type configEntry struct {
	section    string
	subsection string
	key        string
	value      string
}

// parseGitConfig reads the subset of git-config(1) syntax that real config files use:
// [section], [section "subsection"], legacy [section.subsection], key = value with quoting,
// escapes, line continuations and # / ; comments. Entries come back in file order because
// remote selection depends on it.
func parseGitConfig(r io.Reader) ([]configEntry, error) {
	var (
		entries    []configEntry
		section    string
		subsection string
		lineNo     int
	)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		// A value may continue onto the next line with a trailing backslash outside quotes.
		for endsWithContinuation(line) && sc.Scan() {
			lineNo++
			line = line[:len(line)-1] + sc.Text()
		}
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || trimmed[0] == '#' || trimmed[0] == ';' {
			continue
		}
		if trimmed[0] == '[' {
			sec, sub, rest, err := parseSectionHeader(trimmed)
			if err != nil {
				return nil, fmt.Errorf("git config line %d: %w", lineNo, err)
			}
			section, subsection = sec, sub
			// git allows a key on the same line after the header: [core] bare = false
			trimmed = strings.TrimSpace(rest)
			if trimmed == "" || trimmed[0] == '#' || trimmed[0] == ';' {
				continue
			}
		}
		if section == "" {
			return nil, fmt.Errorf("git config line %d: key outside any section", lineNo)
		}
		key, value, err := parseKeyValue(trimmed)
		if err != nil {
			return nil, fmt.Errorf("git config line %d: %w", lineNo, err)
		}
		entries = append(entries, configEntry{section: section, subsection: subsection, key: key, value: value})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read git config: %w", err)
	}
	return entries, nil
}

// endsWithContinuation reports whether line ends in an unescaped backslash outside quotes.
func endsWithContinuation(line string) bool {
	inQuote := false
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			if i == len(line)-1 {
				return true
			}
			i++
		case '"':
			inQuote = !inQuote
		case '#', ';':
			if !inQuote {
				return false
			}
		}
	}
	return false
}

func parseSectionHeader(s string) (section, subsection, rest string, err error) {
	end := -1
	inQuote := false
	for i := 1; i < len(s); i++ {
		c := s[i]
		if inQuote && c == '\\' {
			i++
			continue
		}
		if c == '"' {
			inQuote = !inQuote
			continue
		}
		if c == ']' && !inQuote {
			end = i
			break
		}
	}
	if end < 0 {
		return "", "", "", fmt.Errorf("unterminated section header %q", s)
	}
	inner := strings.TrimSpace(s[1:end])
	rest = s[end+1:]
	if q := strings.IndexByte(inner, '"'); q >= 0 {
		section = strings.ToLower(strings.TrimSpace(inner[:q]))
		quoted := strings.TrimSpace(inner[q:])
		if len(quoted) < 2 || quoted[len(quoted)-1] != '"' {
			return "", "", "", fmt.Errorf("bad subsection in %q", s)
		}
		var b strings.Builder
		body := quoted[1 : len(quoted)-1]
		for i := 0; i < len(body); i++ {
			if body[i] == '\\' && i+1 < len(body) {
				i++
			}
			b.WriteByte(body[i])
		}
		subsection = b.String()
	} else if dot := strings.IndexByte(inner, '.'); dot >= 0 {
		// Deprecated [section.subsection] form: git lowercases the subsection here.
		section = strings.ToLower(inner[:dot])
		subsection = strings.ToLower(inner[dot+1:])
	} else {
		section = strings.ToLower(inner)
	}
	if section == "" {
		return "", "", "", fmt.Errorf("empty section name in %q", s)
	}
	return section, subsection, rest, nil
}

func parseKeyValue(s string) (key, value string, err error) {
	eq := strings.IndexByte(s, '=')
	if eq < 0 {
		// A bare key is boolean true in git; strip any trailing comment first.
		key = s
		if i := strings.IndexAny(key, "#;"); i >= 0 {
			key = key[:i]
		}
		key = strings.ToLower(strings.TrimSpace(key))
		if key == "" {
			return "", "", fmt.Errorf("empty key in %q", s)
		}
		return key, "true", nil
	}
	key = strings.ToLower(strings.TrimSpace(s[:eq]))
	if key == "" {
		return "", "", fmt.Errorf("empty key in %q", s)
	}
	value, err = parseValue(s[eq+1:])
	if err != nil {
		return "", "", fmt.Errorf("key %q: %w", key, err)
	}
	return key, value, nil
}

// parseValue applies git's value rules: quotes group, backslash escapes, unquoted runs of
// whitespace collapse and are trimmed, and # or ; outside quotes starts a comment.
func parseValue(raw string) (string, error) {
	var b strings.Builder
	inQuote := false
	pendingSpace := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '"':
			inQuote = !inQuote
			continue
		case c == '\\':
			if i+1 >= len(raw) {
				return "", fmt.Errorf("trailing backslash")
			}
			i++
			if pendingSpace && b.Len() > 0 {
				b.WriteByte(' ')
			}
			pendingSpace = false
			switch raw[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'b':
				s := b.String()
				if len(s) > 0 {
					b.Reset()
					b.WriteString(s[:len(s)-1])
				}
			case '"', '\\':
				b.WriteByte(raw[i])
			default:
				return "", fmt.Errorf("unknown escape \\%c", raw[i])
			}
			continue
		case !inQuote && (c == '#' || c == ';'):
			return b.String(), nil
		case !inQuote && (c == ' ' || c == '\t'):
			pendingSpace = true
			continue
		}
		if pendingSpace && b.Len() > 0 {
			b.WriteByte(' ')
		}
		pendingSpace = false
		b.WriteByte(c)
	}
	if inQuote {
		return "", fmt.Errorf("unterminated quote")
	}
	return b.String(), nil
}
