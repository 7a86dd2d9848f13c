package projectmap

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/memhost/memhost/host/internal/core/rules"
)

// Size limits of a map. Build stays within them by construction; Decode and Validate hold
// uploaded maps to them, so a map from another machine is as bounded as one built here.
const (
	MaxJSONBytes   = 512 << 10
	MaxLanguages   = 16
	MaxTools       = 64
	MaxCommands    = 80
	MaxDirs        = 100
	MaxModules     = 64
	MaxKeyFiles    = 32
	MaxEntryPoints = 32
	MaxLatest      = 10
	MaxHotFiles    = 20
	// MaxTextBytes bounds every free text: descriptions, commit subjects, names, kinds.
	MaxTextBytes = 200
	// MaxRunBytes bounds a command line.
	MaxRunBytes = 300
	// MaxPathBytes bounds every path.
	MaxPathBytes        = 512
	maxFingerprintBytes = 128
	maxHashBytes        = 64
)

// Decode reads a map's JSON form and validates it. Errors are *rules.FieldError. A newer format
// is refused before its fields are read, so the error names the version, not a field. Decode
// does not read a clock: a host that stores the map also calls CheckClock.
func Decode(data []byte) (Map, error) {
	if len(data) > MaxJSONBytes {
		return Map{}, rules.Errf("map", "is %d bytes; the limit is %d bytes", len(data), MaxJSONBytes)
	}
	var head struct {
		Format json.RawMessage `json:"format"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return Map{}, jsonErr(err)
	}
	var format int
	if len(head.Format) == 0 || json.Unmarshal(head.Format, &format) != nil {
		return Map{}, rules.Errf("format", "must be the integer %d", FormatVersion)
	}
	if format > FormatVersion {
		return Map{}, rules.Errf("format", "%d is newer than this host understands (%d); upgrade the host", format, FormatVersion)
	}
	if err := checkTimes(data); err != nil {
		return Map{}, err
	}
	var m Map
	if err := json.Unmarshal(data, &m); err != nil {
		return Map{}, jsonErr(err)
	}
	return m, m.Validate()
}

// jsonErr words a decoding error without Go type names.
func jsonErr(err error) error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return rules.Errf(typeErr.Field, "has the wrong type (%s)", typeErr.Value)
	case errors.As(err, &typeErr):
		return rules.Errf("map", "must be a JSON object")
	case errors.As(err, &syntaxErr):
		return rules.Errf("map", "is not valid JSON (at byte %d)", syntaxErr.Offset)
	default:
		// checkTimes reads the only fields with a decoder of their own first, so no error
		// should come here; if one does, its text may name Go types, which a user cannot act on.
		return rules.Errf("map", "is not a valid project map")
	}
}

// Validate checks a map against the format's rules and size limits. Errors are *rules.FieldError.
// Every text is one line (rules.CheckLine, the rule of every one-line field the host takes):
// the banner shows the map line by line, and a line break or an escape sequence in a
// description would let the map forge lines of its own.
func (m Map) Validate() error {
	v := validator{}
	if m.Format != FormatVersion {
		v.fail("format", "must be %d", FormatVersion)
	}
	if m.GeneratedAt.IsZero() {
		v.fail("generated_at", "must be set")
	}
	v.count("files", m.Files)
	// Lengths first: a list over its limit is refused before its items are read.
	v.list("truncated", len(m.Truncated), 3)
	v.list("languages", len(m.Languages), MaxLanguages)
	v.list("tools", len(m.Tools), MaxTools)
	v.list("commands", len(m.Commands), MaxCommands)
	v.list("dirs", len(m.Dirs), MaxDirs)
	v.list("modules", len(m.Modules), MaxModules)
	v.list("key_files", len(m.KeyFiles), MaxKeyFiles)
	v.list("entry_points", len(m.EntryPoints), MaxEntryPoints)
	if g := m.Git; g != nil {
		v.list("git.recent.latest", len(g.Recent.Latest), MaxLatest)
		v.list("git.recent.hot_files", len(g.Recent.HotFiles), MaxHotFiles)
	}
	if v.err != nil {
		return v.err
	}
	for _, f := range m.fields() {
		if f.path {
			v.path(f.name, *f.value)
		} else {
			v.text(f.name, *f.value, f.limit)
		}
	}
	for i, l := range m.Languages {
		v.count(fmt.Sprintf("languages[%d].files", i), l.Files)
	}
	for i, c := range m.Commands {
		if c.Run == "" {
			v.fail(fmt.Sprintf("commands[%d].run", i), "must not be empty")
		}
	}
	for i, d := range m.Dirs {
		v.count(fmt.Sprintf("dirs[%d].files", i), d.Files)
	}
	for i, mod := range m.Modules {
		v.count(fmt.Sprintf("modules[%d].files", i), mod.Files)
	}
	if g := m.Git; g != nil {
		v.count("git.recent.commits", g.Recent.Commits)
		if g.Recent.Since.After(m.GeneratedAt) {
			v.fail("git.recent.since", "must not be after generated_at")
		}
		for i, h := range g.Recent.HotFiles {
			v.count(fmt.Sprintf("git.recent.hot_files[%d].commits", i), h.Commits)
		}
	}
	return v.err
}

// validator keeps the first rule broken, so the error names one field.
type validator struct{ err error }

func (v *validator) fail(field, format string, args ...any) {
	if v.err == nil {
		v.err = rules.Errf(field, format, args...)
	}
}

// text holds a text to rules.CheckLine, the host's one rule for one-line fields.
func (v *validator) text(field, s string, limit int) {
	if v.err != nil {
		return
	}
	if err := rules.CheckLine(field, s, limit); err != nil {
		v.err = err
	}
}

func (v *validator) count(field string, n int) {
	if n < 0 {
		v.fail(field, "must not be negative")
	}
}

func (v *validator) list(field string, n, limit int) {
	if n > limit {
		v.fail(field, "has %d entries; the limit is %d", n, limit)
	}
}

// path holds a path to the map's rules: relative, slash-separated, inside the project.
func (v *validator) path(field, p string) {
	v.text(field, p, MaxPathBytes)
	if p == "" {
		return
	}
	if strings.HasPrefix(p, "/") {
		v.fail(field, "must be a relative path")
		return
	}
	for seg := range strings.SplitSeq(p, "/") {
		if seg == ".." {
			v.fail(field, "must stay inside the project (no .. segments)")
			return
		}
	}
}
