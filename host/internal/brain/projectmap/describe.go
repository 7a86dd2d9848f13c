package projectmap

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/knadh/koanf/parsers/toml/v2"

	"github.com/memhost/memhost/host/internal/core/rules"
)

// Read limits. A manifest larger than maxManifestBytes is not parsed; prose (a README, a
// doc.go) is read only as far as maxProseBytes, which holds any first paragraph.
const (
	maxManifestBytes = 512 << 10
	maxProseBytes    = 32 << 10
)

var errTooLarge = errors.New("file too large")

// readWhole reads a manifest, which must be complete to parse.
func (b *builder) readWhole(rel string) ([]byte, error) {
	data, err := b.readHead(rel, maxManifestBytes+1)
	if err == nil && len(data) > maxManifestBytes {
		return nil, errTooLarge
	}
	return data, err
}

// readTOML reads a TOML manifest whole; ok is false when it cannot be read or parsed, and
// the map then says nothing of it.
func (b *builder) readTOML(rel string) (doc map[string]any, ok bool) {
	data, err := b.readWhole(rel)
	if err != nil {
		return nil, false
	}
	doc, err = toml.Parser().Unmarshal(data)
	return doc, err == nil
}

// readJSON reads a JSON manifest whole into v; false when it cannot be read or parsed.
func (b *builder) readJSON(rel string, v any) bool {
	data, err := b.readWhole(rel)
	return err == nil && json.Unmarshal(data, v) == nil
}

// readHead reads at most n bytes of a regular file of the tree, never through a symlink, so
// nothing outside the project leaks into the map.
func (b *builder) readHead(rel string, n int64) ([]byte, error) {
	p := filepath.Join(b.root, filepath.FromSlash(rel))
	info, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, os.ErrNotExist
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, n))
}

var (
	mdLink      = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	mdDecor     = strings.NewReplacer("**", "", "__", "", "`", "")
	mdEmphasis  = regexp.MustCompile(`\*([^*\s][^*]*)\*`)
	htmlTag     = regexp.MustCompile(`<[^>]*>`)
	sentenceEnd = regexp.MustCompile(`[.!?](\s|$)`)
)

// readmeDescription is the first prose paragraph of a Markdown README, as one sentence;
// failing that, its first heading. Badges, HTML and front matter are passed over.
func readmeDescription(data []byte) string {
	var heading string
	var para []string
	inFence, inFront := false, false
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case i == 0 && line == "---":
			inFront = true
			continue
		case inFront:
			inFront = line != "---"
			continue
		case strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~"):
			inFence = !inFence
			continue
		case inFence:
			continue
		}
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "<") ||
			strings.HasPrefix(line, "![") || strings.HasPrefix(line, "[![") || strings.HasPrefix(line, "|") ||
			strings.HasPrefix(line, "===") || strings.HasPrefix(line, "---") || strings.HasPrefix(line, ">") {
			if strings.HasPrefix(line, "#") && heading == "" {
				heading = strings.TrimSpace(strings.TrimLeft(line, "#"))
			}
			if len(para) > 0 {
				break
			}
			continue
		}
		para = append(para, line)
	}
	if text := firstSentence(strings.Join(para, " ")); text != "" {
		return text
	}
	return firstSentence(heading)
}

// docGoDescription is the first sentence of a Go package comment ("Package x owns ...").
func docGoDescription(data []byte) string {
	var lines []string
	for line := range strings.SplitSeq(string(data), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "//go:") || strings.HasPrefix(line, "//go "):
			continue
		case strings.HasPrefix(line, "//"):
			lines = append(lines, strings.TrimSpace(strings.TrimPrefix(line, "//")))
		case strings.HasPrefix(line, "package "):
			return firstSentence(strings.Join(lines, " "))
		default:
			// A blank line or a build constraint ends a comment that is not the package's.
			lines = lines[:0]
		}
	}
	return ""
}

// firstSentence cleans Markdown out of text and keeps its first sentence, clipped to the
// map's text limit.
func firstSentence(text string) string {
	text = mdLink.ReplaceAllString(text, "$1")
	text = htmlTag.ReplaceAllString(text, "")
	text = mdEmphasis.ReplaceAllString(mdDecor.Replace(text), "$1")
	text = strings.Join(strings.Fields(text), " ")
	if loc := sentenceEnd.FindStringIndex(text); loc != nil {
		text = text[:loc[0]+1]
	}
	return clip(text, MaxTextBytes)
}

// clip makes s a map text of at most n bytes: one line (line breaks and tabs become spaces,
// other control characters go), cut on a rune boundary with the cut marked by an ellipsis.
// Build passes every text it reads (READMEs, manifests, Makefile help, commit subjects)
// through it, so the map it builds meets Validate's rule for texts (rules.CheckLine)
// whatever the tree holds: a text that rule still refuses (one of only invisible characters)
// becomes "", as if the project gave none.
func clip(s string, n int) string {
	s = strings.ToValidUTF8(s, "")
	s = strings.TrimSpace(strings.Map(func(r rune) rune {
		switch {
		case !unicode.IsControl(r):
			return r
		case unicode.IsSpace(r):
			return ' '
		}
		return -1
	}, s))
	if len(s) > n {
		const ellipsis = "…"
		cut := n - len(ellipsis)
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = strings.TrimSpace(s[:cut]) + ellipsis
	}
	if rules.CheckLine("text", s, n) != nil {
		return ""
	}
	return s
}
