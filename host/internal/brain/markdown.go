package brain

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// frontMatter is the YAML header Claude Code writes on its memory files, read as flat
// "key: value" lines (the only shape it uses).
type frontMatter struct {
	Name, Description, Type string
}

var (
	headingRe = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	bulletRe  = regexp.MustCompile(`^(\s*)([-*+]|\d{1,9}[.)])\s+`)
	fenceRe   = regexp.MustCompile("^\\s*(```|~~~)")
)

// splitMarkdown cuts a markdown document into chunks: each list item (nested items stay with
// their parent) and each paragraph becomes one, behind the path of headings above it
// ("Testing > Go: run go test -race"). A heading with nothing under it is a chunk of its
// own. Front matter (Claude Code's memory files) names the file: its name heads every chunk
// and its description is a chunk. Code fences are never split. An item loses its list marker
// (withoutMarker). Every line of text ends up in exactly one chunk, so an import loses
// nothing; chunks over maxBytes are split at line (then rune) boundaries.
func splitMarkdown(doc string, maxBytes int) (frontMatter, []chunk) {
	doc = strings.ReplaceAll(doc, "\r\n", "\n")
	fm, body := parseFrontMatter(doc)
	var (
		out      []chunk
		headings []string // by level: headings[i] is the level-(i+1) heading in force
		block    []string
		inFence  bool
		fenceTag string
		pending  string // the path of a heading not yet followed by any content
		level    int    // pending's heading level
	)
	context := func() string {
		parts := []string{}
		if fm.Name != "" {
			parts = append(parts, fm.Name)
		}
		for _, h := range headings {
			if h != "" {
				parts = append(parts, h)
			}
		}
		return strings.Join(parts, " > ")
	}
	flush := func() {
		text := withoutMarker(strings.TrimSpace(strings.Join(block, "\n")))
		block = block[:0]
		if text == "" {
			return
		}
		pending = ""
		out = append(out, withContext(context(), text, maxBytes)...)
	}
	if fm.Description != "" {
		out = append(out, withContext(context(), fm.Description, maxBytes)...)
	}
	for _, line := range strings.Split(body, "\n") {
		if inFence {
			block = append(block, line)
			if strings.HasPrefix(strings.TrimSpace(line), fenceTag) {
				inFence = false
			}
			continue
		}
		if m := fenceRe.FindStringSubmatch(line); m != nil {
			inFence, fenceTag = true, m[1]
			block = append(block, line)
			continue
		}
		if m := headingRe.FindStringSubmatch(line); m != nil {
			flush()
			// An empty heading is kept unless the new one is under it (its path carries it).
			if pending != "" && len(m[1]) <= level {
				out = append(out, withContext("", pending, maxBytes)...)
			}
			level = len(m[1])
			for len(headings) < level {
				headings = append(headings, "")
			}
			headings = append(headings[:level-1], m[2])
			pending = context()
			continue
		}
		switch {
		case strings.TrimSpace(line) == "":
			flush()
		case bulletRe.MatchString(line) && !isNested(line, block):
			flush()
			block = append(block, line)
		default:
			block = append(block, line)
		}
	}
	flush()
	if pending != "" {
		out = append(out, withContext("", pending, maxBytes)...)
	}
	return fm, out
}

// withoutMarker drops the list marker ("- ", "* ", "+ ", "1. ", "1) ") an item starts with:
// a memory is the rule, not its place in a list, and the same rule written "- x" in one file
// and "* x" in another is one memory. Nested items keep theirs: they are the item's structure.
func withoutMarker(text string) string {
	if loc := bulletRe.FindStringIndex(text); loc != nil {
		return text[loc[1]:]
	}
	return text
}

// isNested reports whether a list item belongs to the item being collected: it is indented
// under a block that is itself a list item.
func isNested(line string, block []string) bool {
	if len(block) == 0 || !bulletRe.MatchString(block[0]) {
		return false
	}
	return indent(line) > indent(block[0])
}

func indent(line string) int { return len(line) - len(strings.TrimLeft(line, " \t")) }

// chunk is one piece of a document: text is what is stored, body the same without the
// heading path in front, which tells the same rule under two headings apart from two rules.
type chunk struct{ text, body string }

// withContext prefixes text with its heading path and splits the result to fit maxBytes.
func withContext(ctx, text string, maxBytes int) []chunk {
	prefix := ""
	if ctx != "" {
		prefix = ctx + ": "
	}
	if len(prefix) > maxBytes/2 {
		prefix = "" // a heading path that long says nothing useful
	}
	if len(prefix)+len(text) <= maxBytes {
		return []chunk{{prefix + text, text}}
	}
	var out []chunk
	var cur strings.Builder
	room := maxBytes - len(prefix)
	emit := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			out = append(out, chunk{prefix + s, s})
		}
		cur.Reset()
	}
	for _, line := range strings.SplitAfter(text, "\n") {
		for len(line) > room {
			if cur.Len() > 0 {
				emit()
			}
			// At the last space that leaves the piece at least half full, else between runes.
			cut := strings.LastIndexByte(line[:room], ' ') + 1
			if cut < room/2 {
				for cut = room; cut > 0 && !utf8.RuneStart(line[cut]); cut-- {
				}
			}
			cur.WriteString(line[:cut])
			emit()
			line = line[cut:]
		}
		if cur.Len()+len(line) > room {
			emit()
		}
		cur.WriteString(line)
	}
	emit()
	return out
}

// parseFrontMatter splits a leading "---" block off doc.
func parseFrontMatter(doc string) (frontMatter, string) {
	var fm frontMatter
	rest, ok := strings.CutPrefix(doc, "---\n")
	if !ok {
		return fm, doc
	}
	head, body, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		if head, ok = strings.CutSuffix(rest, "\n---"); !ok {
			return fm, doc
		}
	}
	for _, line := range strings.Split(head, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.Trim(strings.TrimSpace(v), `"'`)
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "name":
			fm.Name = v
		case "description":
			fm.Description = v
		case "type":
			fm.Type = strings.ToLower(v)
		}
	}
	return fm, body
}
