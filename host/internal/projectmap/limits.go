package projectmap

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
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
)

// FieldError is a map that breaks a rule: it names the field and the rule, in words a user
// can act on.
type FieldError struct {
	Field   string
	Message string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Message }

func fieldErr(field, format string, args ...any) error {
	return &FieldError{Field: field, Message: fmt.Sprintf(format, args...)}
}

// Decode reads a map's JSON form and validates it. Errors are *FieldError. A newer format
// is refused before its fields are read, so the error names the version, not a field.
func Decode(data []byte) (Map, error) {
	if len(data) > MaxJSONBytes {
		return Map{}, fieldErr("map", "is %d bytes; the limit is %d bytes", len(data), MaxJSONBytes)
	}
	var head struct {
		Format json.RawMessage `json:"format"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return Map{}, jsonErr(err)
	}
	var format int
	if len(head.Format) == 0 || json.Unmarshal(head.Format, &format) != nil {
		return Map{}, fieldErr("format", "must be the integer %d", FormatVersion)
	}
	if format > FormatVersion {
		return Map{}, fieldErr("format", "%d is newer than this host understands (%d); upgrade the host", format, FormatVersion)
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
		return fieldErr(typeErr.Field, "has the wrong type (%s)", typeErr.Value)
	case errors.As(err, &syntaxErr):
		return fieldErr("map", "is not valid JSON (at byte %d)", syntaxErr.Offset)
	default:
		return fieldErr("map", "must be a JSON object")
	}
}

// Validate checks a map against the format's rules and size limits. Errors are *FieldError.
func (m Map) Validate() error {
	v := validator{}
	if m.Format != FormatVersion {
		v.fail("format", "must be %d", FormatVersion)
	}
	if m.GeneratedAt.IsZero() {
		v.fail("generated_at", "must be set")
	}
	v.text("fingerprint", m.Fingerprint, maxFingerprintBytes)
	v.text("description", m.Description, MaxTextBytes)
	v.count("files", m.Files)
	v.list("truncated", len(m.Truncated), 3)
	for i, r := range m.Truncated {
		v.text(fmt.Sprintf("truncated[%d]", i), r, MaxTextBytes)
	}
	v.list("languages", len(m.Languages), MaxLanguages)
	for i, l := range m.Languages {
		v.text(fmt.Sprintf("languages[%d].name", i), l.Name, MaxTextBytes)
		v.count(fmt.Sprintf("languages[%d].files", i), l.Files)
	}
	v.list("tools", len(m.Tools), MaxTools)
	for i, t := range m.Tools {
		f := fmt.Sprintf("tools[%d]", i)
		v.text(f+".name", t.Name, MaxTextBytes)
		v.text(f+".kind", t.Kind, MaxTextBytes)
		v.path(f+".source", t.Source)
	}
	v.list("commands", len(m.Commands), MaxCommands)
	for i, c := range m.Commands {
		f := fmt.Sprintf("commands[%d]", i)
		v.text(f+".kind", c.Kind, MaxTextBytes)
		v.text(f+".run", c.Run, MaxRunBytes)
		if strings.TrimSpace(c.Run) == "" {
			v.fail(f+".run", "must not be empty")
		}
		v.path(f+".dir", c.Dir)
		v.text(f+".description", c.Description, MaxTextBytes)
		v.path(f+".source", c.Source)
	}
	v.list("dirs", len(m.Dirs), MaxDirs)
	for i, d := range m.Dirs {
		f := fmt.Sprintf("dirs[%d]", i)
		v.path(f+".path", d.Path)
		v.count(f+".files", d.Files)
		v.text(f+".description", d.Description, MaxTextBytes)
	}
	v.list("modules", len(m.Modules), MaxModules)
	for i, mod := range m.Modules {
		f := fmt.Sprintf("modules[%d]", i)
		v.path(f+".dir", mod.Dir)
		v.text(f+".ecosystem", mod.Ecosystem, MaxTextBytes)
		v.text(f+".name", mod.Name, MaxTextBytes)
		v.text(f+".description", mod.Description, MaxTextBytes)
		v.count(f+".files", mod.Files)
	}
	v.list("key_files", len(m.KeyFiles), MaxKeyFiles)
	for i, p := range m.KeyFiles {
		v.path(fmt.Sprintf("key_files[%d]", i), p)
	}
	v.list("entry_points", len(m.EntryPoints), MaxEntryPoints)
	for i, p := range m.EntryPoints {
		v.path(fmt.Sprintf("entry_points[%d]", i), p)
	}
	if g := m.Git; g != nil {
		v.text("git.branch", g.Branch, MaxTextBytes)
		if g.Head != nil {
			v.commit("git.head", *g.Head)
		}
		v.count("git.recent.commits", g.Recent.Commits)
		v.list("git.recent.latest", len(g.Recent.Latest), MaxLatest)
		for i, c := range g.Recent.Latest {
			v.commit(fmt.Sprintf("git.recent.latest[%d]", i), c)
		}
		v.list("git.recent.hot_files", len(g.Recent.HotFiles), MaxHotFiles)
		for i, h := range g.Recent.HotFiles {
			v.path(fmt.Sprintf("git.recent.hot_files[%d].path", i), h.Path)
			v.count(fmt.Sprintf("git.recent.hot_files[%d].commits", i), h.Commits)
		}
	}
	return v.err
}

// validator keeps the first rule broken, so the error names one field.
type validator struct{ err error }

func (v *validator) fail(field, format string, args ...any) {
	if v.err == nil {
		v.err = fieldErr(field, format, args...)
	}
}

func (v *validator) text(field, s string, limit int) {
	switch {
	case len(s) > limit:
		v.fail(field, "is %d bytes; the limit is %d bytes", len(s), limit)
	case !utf8.ValidString(s) || strings.ContainsRune(s, 0):
		v.fail(field, "must be valid UTF-8 without NUL bytes")
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

func (v *validator) commit(field string, c Commit) {
	v.text(field+".hash", c.Hash, 64)
	v.text(field+".subject", c.Subject, MaxTextBytes)
}
