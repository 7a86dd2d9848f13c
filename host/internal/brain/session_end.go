package brain

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/rules"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/wire"
)

// SessionEnd is what the client that ran a session read from its transcript when it ended:
// the contract's type (package wire), the one definition both sides use.
type SessionEnd = wire.SessionEnd

// StoredFact is a fact a session stored and what finding it cost (wire.StoredFact).
type StoredFact = wire.StoredFact

// SessionEndResult says what the session's record holds now.
type SessionEndResult struct {
	Project string    `json:"project"`
	Session uuid.UUID `json:"session"`
	// Recorded counts the uses this call added, per event.
	Recorded map[string]int `json:"recorded"`
	// Used counts the memories given to the session that it cited or retrieved; Saved is the
	// session's estimated saving (docs/value.md) over SavedFacts memories.
	Used       int   `json:"used"`
	Saved      int64 `json:"saved"`
	SavedFacts int   `json:"saved_facts"`
}

// Limits of a session's end report.
const (
	maxEndIDs       = 1000
	maxSessionSpan  = 31 * 24 * time.Hour
	maxDiscoveryTok = int64(1) << 40
)

// hexDigits is a short id or a whole id without dashes, as transcripts carry them.
var hexDigits = regexp.MustCompile(`^[0-9a-f]{8,32}$`)

// EndSession closes ref's session record with what its transcript showed: the memories its
// tool results retrieved, those its agent cited, those it stored with their discovery cost,
// and its own usage. Ids are resolved in a's project (a short id must name exactly one of its
// memories); a citation counts only for a memory the session was given or retrieved. The
// record is opened if the session left none before (a connected CLI without hooks).
func (s *Service) EndSession(ctx context.Context, a memory.Access, e SessionEnd) (SessionEndResult, error) {
	if err := check(a); err != nil {
		return SessionEndResult{}, err
	}
	k, ok, err := sessionKey(e.Session, a.Project)
	if err != nil {
		return SessionEndResult{}, err
	}
	if !ok {
		return SessionEndResult{}, rules.Errf("session", "is required")
	}
	if err := checkEnd(&e, s.now()); err != nil {
		return SessionEndResult{}, err
	}
	if e.EndedAt.IsZero() {
		e.EndedAt = s.now()
	}
	given, err := s.resolve(ctx, a.Project, e.Given)
	if err != nil {
		return SessionEndResult{}, err
	}
	retrieved, err := s.resolve(ctx, a.Project, e.Retrieved)
	if err != nil {
		return SessionEndResult{}, err
	}
	storedRefs := make([]string, len(e.Stored))
	for i, f := range e.Stored {
		storedRefs[i] = f.ID
	}
	stored, err := s.resolve(ctx, a.Project, storedRefs)
	if err != nil {
		return SessionEndResult{}, err
	}
	cited, err := s.resolve(ctx, a.Project, e.Cited)
	if err != nil {
		return SessionEndResult{}, err
	}
	seen, err := s.st.SessionSeen(ctx, a.Project, k.Key)
	if err != nil {
		return SessionEndResult{}, err
	}
	var recs []store.SessionMemory
	add := func(ids map[string]uuid.UUID, ev store.SessionEvent) {
		for _, id := range ids {
			recs = append(recs, store.SessionMemory{MemoryID: id, Event: ev, Channel: "transcript", At: e.EndedAt})
		}
	}
	add(given, store.EventGiven)
	add(retrieved, store.EventRetrieved)
	add(stored, store.EventStored)
	for _, id := range cited {
		if slices.Contains(seen, id) || containsValue(retrieved, id) || containsValue(given, id) {
			recs = append(recs, store.SessionMemory{MemoryID: id, Event: store.EventCited, Channel: "transcript", At: e.EndedAt})
		}
	}
	var found []store.Discovery
	for _, f := range e.Stored {
		id, ok := stored[normalID(f.ID)]
		if !ok || f.Tokens == nil {
			continue
		}
		d := store.Discovery{MemoryID: id, Tokens: *f.Tokens, Turns: f.Turns}
		if f.Seconds != nil {
			d.Seconds = *f.Seconds
		}
		found = append(found, d)
	}
	end := store.SessionEnd{Key: k, CLISession: e.CLISession, EndedAt: e.EndedAt, Tokens: e.Tokens, Turns: e.Turns}
	sid, added, err := s.st.EndSession(ctx, end, e.StartedAt, recs, found)
	if err != nil {
		return SessionEndResult{}, err
	}
	res := SessionEndResult{Project: a.Project, Session: sid, Recorded: map[string]int{}}
	for ev, n := range added {
		res.Recorded[string(ev)] = n
	}
	if res.Used, res.Saved, res.SavedFacts, err = s.st.SessionUse(ctx, a.Project, sid); err != nil {
		return SessionEndResult{}, err
	}
	s.metrics.recorded(added)
	s.metrics.ended(k.Origin, res.Used, res.Saved, found)
	return res, nil
}

// checkEnd refuses an end report out of bounds; nothing is recorded then.
func checkEnd(e *SessionEnd, now time.Time) error {
	switch {
	case e.StartedAt.IsZero():
		return rules.Errf("started_at", "is required")
	case e.StartedAt.After(now.Add(time.Minute)):
		return rules.Errf("started_at", "is in the future")
	case !e.EndedAt.IsZero() && e.EndedAt.Before(e.StartedAt):
		return rules.Errf("ended_at", "is before started_at")
	case !e.EndedAt.IsZero() && e.EndedAt.Sub(e.StartedAt) > maxSessionSpan:
		return rules.Errf("ended_at", "is more than %d days after started_at", int(maxSessionSpan/(24*time.Hour)))
	case e.CLISession != "" && !sessionKeyPattern.MatchString(e.CLISession):
		return rules.Errf("cli_session", "must be 1 to 128 letters, digits, '.', '_', ':' or '-'")
	case e.Tokens != nil && (*e.Tokens < 0 || *e.Tokens > maxDiscoveryTok):
		return rules.Errf("tokens", "%d is out of range 0..%d", *e.Tokens, maxDiscoveryTok)
	case e.Turns != nil && *e.Turns < 0:
		return rules.Errf("turns", "must not be negative")
	}
	for _, l := range []struct {
		name string
		n    int
	}{{"given", len(e.Given)}, {"retrieved", len(e.Retrieved)}, {"cited", len(e.Cited)}, {"stored", len(e.Stored)}} {
		if l.n > maxEndIDs {
			return rules.Errf(l.name, "holds %d ids; at most %d", l.n, maxEndIDs)
		}
	}
	for i, f := range e.Stored {
		switch {
		case f.Tokens != nil && (*f.Tokens < 0 || *f.Tokens > maxDiscoveryTok):
			return rules.Errf("stored", "[%d].tokens %d is out of range 0..%d", i, *f.Tokens, maxDiscoveryTok)
		case f.Seconds != nil && (*f.Seconds < 0 || *f.Seconds > maxSessionSpan.Seconds()):
			return rules.Errf("stored", "[%d].seconds %v is out of range 0..%v", i, *f.Seconds, maxSessionSpan.Seconds())
		case f.Turns < 0:
			return rules.Errf("stored", "[%d].turns must not be negative", i)
		}
	}
	return nil
}

// resolve maps ids (whole, or short: at least 8 trailing hex digits) to a project's memories,
// leaving out those that name none or several.
func (s *Service) resolve(ctx context.Context, project string, refs []string) (map[string]uuid.UUID, error) {
	var digits []string
	for _, r := range refs {
		d := normalID(r)
		if !hexDigits.MatchString(d) {
			return nil, rules.Errf("ids", "%q is not a memory id or short id (8 to 32 hex digits)", clipRef(r))
		}
		if !slices.Contains(digits, d) {
			digits = append(digits, d)
		}
	}
	if len(digits) == 0 {
		return map[string]uuid.UUID{}, nil
	}
	return s.st.ResolveShortIDs(ctx, project, digits)
}

// normalID is an id's hex digits, lower case, without dashes or brackets.
func normalID(ref string) string {
	return strings.ToLower(strings.NewReplacer("-", "", "[", "", "]", "").Replace(strings.TrimSpace(ref)))
}

func clipRef(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

func containsValue(m map[string]uuid.UUID, id uuid.UUID) bool {
	for _, v := range m {
		if v == id {
			return true
		}
	}
	return false
}

func isNotFound(err error) bool { return errors.Is(err, rules.ErrNotFound) }
