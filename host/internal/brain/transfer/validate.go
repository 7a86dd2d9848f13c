package transfer

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/project"
	"github.com/memhost/memhost/host/internal/core/store"
)

// The format's own bounds; the fields an agent writes are held to package memory's rules.
const (
	maxDetailBytes = 4096 // one history entry's detail, as JSON
	maxDimensions  = 16000
	// futureSkew is how far past this machine's clock a timestamp may lie: the exporting
	// machine's clock may run ahead, but not by days.
	futureSkew = 24 * time.Hour
)

// embedderName is the alphabet of embedder names (they are inlined in SQL and name indexes).
var embedderName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

// events are the history events a record may carry.
var events = map[store.Event]bool{
	store.EventAdd: true, store.EventFold: true, store.EventUpdate: true, store.EventArchive: true, store.EventRestore: true,
	store.EventPin: true, store.EventUnpin: true, store.EventMerge: true, store.EventImport: true,
}

// fieldError is a record field that breaks a rule; its text names the field and the limit.
type fieldError struct{ field, msg string }

func (e *fieldError) Error() string { return e.field + ": " + e.msg }

func fieldErr(field, format string, args ...any) error {
	return &fieldError{field: field, msg: fmt.Sprintf(format, args...)}
}

// width is the vector width of one embedder and where it was first seen.
type width struct {
	dims int
	from string // "line N", or "the database"
}

// checker holds records bound for target to the write path's rules, and every vector of an
// embedder to one width: the database's, else that of the embedder's first vector in the file.
type checker struct {
	opts   ImportOptions
	target store.ScopeRef
	now    time.Time
	widths map[string]width
}

func newChecker(opts ImportOptions, target store.ScopeRef, stored map[string]int) *checker {
	c := &checker{opts: opts, target: target, now: time.Now(), widths: make(map[string]width, len(stored))}
	for name, dims := range stored {
		c.widths[name] = width{dims: dims, from: "the database"}
	}
	return c
}

// record checks r, read from line, and normalises its kind.
func (c *checker) record(line int, r *Record) error {
	if r.ID == uuid.Nil {
		return fieldErr("id", "is missing")
	}
	if r.Scope != store.ScopeProject && r.Scope != store.ScopeGlobal {
		return fieldErr("scope", "%q is not one of project, global", r.Scope)
	}
	if len(r.Project) > project.MaxKeyBytes {
		return fieldErr("project", "is %d bytes; the limit is %d bytes", len(r.Project), project.MaxKeyBytes)
	}
	kind, err := store.ParseAnyKind(string(r.Kind))
	if err != nil {
		return fieldErr("kind", "%s", strings.TrimPrefix(err.Error(), "kind: "))
	}
	if store.IsLayer(kind) && c.target.Scope != store.ScopeProject {
		return fieldErr("kind", "a %s belongs to a project and cannot be imported into the global scope", kind)
	}
	r.Kind = kind
	if err := c.text("text", r.Text, true); err != nil {
		return err
	}
	if err := unit("importance", r.Importance); err != nil {
		return err
	}
	if err := unit("confidence", r.Confidence); err != nil {
		return err
	}
	if r.HitCount < 0 {
		return fieldErr("hit_count", "%d is negative", r.HitCount)
	}
	if r.DedupedCount < 0 {
		return fieldErr("deduped_count", "%d is negative", r.DedupedCount)
	}
	for _, t := range []struct {
		field    string
		at       *time.Time
		required bool
	}{{"created_at", &r.CreatedAt, true}, {"updated_at", &r.UpdatedAt, true}, {"last_hit_at", r.LastHitAt, false}, {"archived_at", r.ArchivedAt, false}} {
		if err := c.timestamp(t.field, t.at, t.required); err != nil {
			return err
		}
	}
	if err := reason(r.ArchivedReason); err != nil {
		return err
	}
	if err := label("provenance.agent", r.Provenance.Agent); err != nil {
		return err
	}
	if err := label("provenance.session", r.Provenance.Session); err != nil {
		return err
	}
	if err := label("provenance.source", r.Provenance.Source); err != nil {
		return err
	}
	if err := c.mergedFrom(r.MergedFrom); err != nil {
		return err
	}
	if err := c.embedding(line, r.Embedding); err != nil {
		return err
	}
	return c.history(r.History)
}

// text holds a memory text (or a history or merged text) to the write path's rules, which
// package memory owns; an optional text may be empty.
func (c *checker) text(field, s string, required bool) error {
	if !required && s == "" {
		return nil
	}
	return rules.CheckText(field, s, c.opts.MaxTextBytes)
}

// label holds a short name (agent, session, source, actor) to the write path's rules.
func label(field, s string) error { return rules.CheckLine(field, s, rules.MaxProvenanceBytes) }

// reason holds an archive reason to the write path's rules.
func reason(s string) error {
	return rules.CheckLine("archived_reason", s, rules.MaxReasonBytes)
}

func unit(field string, v float64) error {
	if !(v >= 0 && v <= 1) {
		return fieldErr(field, "%v is out of range 0..1", v)
	}
	return nil
}

func (c *checker) timestamp(field string, at *time.Time, required bool) error {
	switch {
	case at == nil || at.IsZero():
		if required || at != nil {
			return fieldErr(field, "is missing")
		}
	case at.After(c.now.Add(futureSkew)):
		return fieldErr(field, "%s is in the future", at.UTC().Format(time.RFC3339))
	}
	return nil
}

func (c *checker) mergedFrom(merged []store.Merged) error {
	if len(merged) > c.opts.MergedFromMax {
		return fieldErr("merged_from", "has %d entries; the limit is %d (memory.merged_from_max)", len(merged), c.opts.MergedFromMax)
	}
	for i, m := range merged {
		if err := c.text(fmt.Sprintf("merged_from[%d].text", i), m.Text, true); err != nil {
			return err
		}
		if err := label(fmt.Sprintf("merged_from[%d].agent", i), m.Agent); err != nil {
			return err
		}
		if err := c.timestamp(fmt.Sprintf("merged_from[%d].at", i), &m.At, true); err != nil {
			return err
		}
	}
	return nil
}

// embedding holds a vector to its embedder: a valid name, finite values, and the width every
// other vector of that embedder has, in the database and earlier in the file.
func (c *checker) embedding(line int, e Embedding) error {
	if !embedderName.MatchString(e.Embedder) {
		return fieldErr("embedding.embedder", "%q must be 1 to 63 characters of a-z, 0-9, '.', '_' and '-', starting with a letter or digit", e.Embedder)
	}
	if e.Dimensions < 1 || e.Dimensions > maxDimensions {
		return fieldErr("embedding.dimensions", "%d is out of range 1..%d", e.Dimensions, maxDimensions)
	}
	if len(e.Values) != e.Dimensions {
		return fieldErr("embedding.values", "has %d values; dimensions says %d", len(e.Values), e.Dimensions)
	}
	for i, v := range e.Values {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fieldErr(fmt.Sprintf("embedding.values[%d]", i), "must be a finite number")
		}
	}
	w, seen := c.widths[e.Embedder]
	if !seen {
		c.widths[e.Embedder] = width{dims: e.Dimensions, from: fmt.Sprintf("line %d", line)}
		return nil
	}
	if w.dims != e.Dimensions {
		return fieldErr("embedding.dimensions", "%d does not match embedder %s, whose vectors have %d dimensions (%s)", e.Dimensions, e.Embedder, w.dims, w.from)
	}
	return nil
}

func (c *checker) history(entries []store.HistoryEntry) error {
	for i, h := range entries {
		field := fmt.Sprintf("history[%d]", i)
		if !events[h.Event] {
			return fieldErr(field+".event", "%q is not a history event", h.Event)
		}
		if err := c.timestamp(field+".created_at", &h.CreatedAt, true); err != nil {
			return err
		}
		if h.BeforeText != nil {
			if err := c.text(field+".before_text", *h.BeforeText, false); err != nil {
				return err
			}
		}
		if h.AfterText != nil {
			if err := c.text(field+".after_text", *h.AfterText, false); err != nil {
				return err
			}
		}
		if err := label(field+".actor", h.Actor); err != nil {
			return err
		}
		if len(h.Detail) > 0 {
			raw, err := json.Marshal(h.Detail)
			switch {
			case err != nil || len(raw) > maxDetailBytes:
				return fieldErr(field+".detail", "is %d bytes of JSON; the limit is %d bytes", len(raw), maxDetailBytes)
			case strings.Contains(string(raw), `\u0000`):
				return fieldErr(field+".detail", "must not contain NUL bytes")
			}
		}
	}
	return nil
}
