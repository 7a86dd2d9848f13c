package store

import (
	"encoding/base64"
	"encoding/binary"
	"time"
	"unicode/utf8"
)

// ProjectSummary is one project as the projects listing shows it.
type ProjectSummary struct {
	Key string
	// Memories counts the live facts (every fact kind); goal, plan and journal are not facts.
	Memories int64
	// Archived counts the archived memories of every kind.
	Archived         int64
	PendingProposals int64
	Journal          int64 // live journal entries
	// LastActivity is the newest write of any of them: a memory's history entry, a proposal
	// filed or decided, a map upload.
	LastActivity time.Time
}

// ProjectsQuery pages through the projects that hold anything (memories, documents, journal,
// proposals, a map), most recently active first.
type ProjectsQuery struct {
	Key   string          // "": every project; otherwise that project alone
	After *ProjectsCursor // page after this position
	Limit int
}

// ProjectsCursor is a position in the projects listing.
type ProjectsCursor struct {
	LastActivity time.Time
	Key          string
}

// ProjectsCursorOf is the cursor just past p.
func ProjectsCursorOf(p ProjectSummary) ProjectsCursor {
	return ProjectsCursor{LastActivity: p.LastActivity, Key: p.Key}
}

// String encodes the cursor as the opaque token clients pass back (next_cursor).
func (c ProjectsCursor) String() string {
	b := binary.BigEndian.AppendUint64(nil, uint64(c.LastActivity.UnixMicro()))
	return base64.RawURLEncoding.EncodeToString(append(b, c.Key...))
}

// ParseProjectsCursor decodes what String encoded; ok is false for anything else.
func ParseProjectsCursor(s string) (c ProjectsCursor, ok bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) <= 8 || !utf8.Valid(b[8:]) {
		return ProjectsCursor{}, false
	}
	return ProjectsCursor{LastActivity: time.UnixMicro(int64(binary.BigEndian.Uint64(b))).UTC(), Key: string(b[8:])}, true
}
