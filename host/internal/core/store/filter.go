package store

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Origin says where a memory came from, as the operator console filters it: what an agent
// chose to save, what a worker extracted from a session, what was imported, and what absorbed
// other memories (by a fold or a merge).
type Origin string

// The origins. A memory may be of two (an agent's memory that absorbed another is agent and
// merged).
const (
	OriginAny       Origin = ""
	OriginAgent     Origin = "agent"     // stored by an agent through MCP or REST
	OriginExtracted Origin = "extracted" // extracted from a session's transcript by a worker
	OriginImported  Origin = "imported"  // imported: an export file, or a CLI's memory files
	OriginMerged    Origin = "merged"    // absorbed other memories (merged_from is not empty)
)

// Origins lists the origins a filter may name.
var Origins = []Origin{OriginAgent, OriginExtracted, OriginImported, OriginMerged}

// The provenance sources behind the origins (Provenance.Source as the surfaces set it).
const (
	// ImportSourcePrefix starts "import" (an export file) and "import-cli:FILE" (a CLI's
	// memory files); SourceInstructions are a project's instruction files, imported alike.
	ImportSourcePrefix = "import"
	SourceInstructions = "instructions"
	SourceExtracted    = "extracted"
)

// AgentSources are the sources of what an agent stored itself.
var AgentSources = []string{"mcp", "rest"}

// ParseOrigin reads an origin's name; "" is OriginAny.
func ParseOrigin(s string) (Origin, error) {
	o := Origin(strings.TrimSpace(s))
	if o == OriginAny {
		return o, nil
	}
	for _, known := range Origins {
		if o == known {
			return o, nil
		}
	}
	names := make([]string, len(Origins))
	for i, k := range Origins {
		names[i] = string(k)
	}
	return "", fmt.Errorf("origin: %q is not one of %s", s, strings.Join(names, ", "))
}

// Filter narrows a listing beyond scope, kind and archived state. Its one rule is written
// twice, as Match for memories already read (a search's hits) and in the store's query for a
// listing (ListQuery.Filter); a test holds the two to the same answers.
type Filter struct {
	Origin Origin
	// Pinned keeps pinned memories only; Superseded only those the conflicts job found
	// replaced (Memory.SupersededBy); Archived only archived ones.
	Pinned, Superseded, Archived bool
	// ArchivedReason keeps archived memories whose reason is of this group (ReasonGroup): an
	// operator's reason as given, "stale", "merged into" or "conflict".
	ArchivedReason string
	// Session keeps the memories written in one agent session (Provenance.Session): what it
	// stored, and what a worker extracted from its transcript.
	Session string
}

// IsZero reports whether f keeps every memory.
func (f Filter) IsZero() bool { return f == Filter{} }

// ReasonGroupPattern matches the archive reasons that name a memory; ReasonGroup keeps their
// head. The store groups reasons with the same pattern (regexp_replace(reason, pattern, '\1')).
const ReasonGroupPattern = `^(merged into|conflict) [0-9a-f-]{36}$`

var reasonGroups = regexp.MustCompile(ReasonGroupPattern)

// ReasonGroup is an archive reason as the health snapshot counts it: "merged into <id>" and
// "conflict <id>" without their id, every other reason as it is.
func ReasonGroup(reason string) string { return reasonGroups.ReplaceAllString(reason, "$1") }

// Match applies f to one memory.
func (f Filter) Match(m Memory) bool {
	switch {
	case f.Pinned && !m.Pinned,
		f.Superseded && m.SupersededBy == nil,
		f.Archived && !m.Archived(),
		f.ArchivedReason != "" && (!m.Archived() || ReasonGroup(m.ArchivedReason) != f.ArchivedReason),
		f.Session != "" && m.Provenance.Session != f.Session:
		return false
	}
	src := m.Provenance.Source
	switch f.Origin {
	case OriginAgent:
		return slices.Contains(AgentSources, src)
	case OriginExtracted:
		return src == SourceExtracted
	case OriginImported:
		return strings.HasPrefix(src, ImportSourcePrefix) || src == SourceInstructions
	case OriginMerged:
		return len(m.MergedFrom) > 0
	}
	return true
}
