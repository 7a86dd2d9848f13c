package brain

import (
	"context"
	"regexp"
	"time"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/rules"
	"github.com/memhost/memhost/host/internal/core/shortid"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/wire"
)

// Session records (docs/value.md): for each session of an agent CLI in a project, which
// memories it was given (its banner, its prompt hooks), which its searches returned and its
// gets read, which it stored and which it cited, with what reading each cost it; and what
// finding each fact it stored cost it. Ids and counts only: no prompt, task or answer text is
// kept. The recording surfaces call Record (the MCP tools, when a call is tied to its session),
// Banner and PromptContext (when the request names its session) and EndSession (the client
// that ran the session, from its transcript); the console and `memhost project value` read
// Sessions, Session, MemoryAccess and Value.

// SessionStore is what session records need of the store (part of Store).
type SessionStore interface {
	RecordSession(ctx context.Context, k store.SessionKey, at time.Time, taskScoped bool, recs []store.SessionMemory) (map[store.SessionEvent]int, error)
	SessionSeen(ctx context.Context, project, key string) ([]uuid.UUID, error)
	EndSession(ctx context.Context, e store.SessionEnd, started time.Time, recs []store.SessionMemory, found []store.Discovery) (uuid.UUID, map[store.SessionEvent]int, error)
	ResolveShortIDs(ctx context.Context, project string, digits []string) (map[string]uuid.UUID, error)
	Sessions(ctx context.Context, q store.SessionQuery) ([]store.Session, error)
	Session(ctx context.Context, project string, id uuid.UUID, key string) (store.Session, []store.SessionMemoryRow, error)
	MemoryAccess(ctx context.Context, project string, id uuid.UUID, limit int) ([]store.MemoryAccess, error)
	SessionUse(ctx context.Context, project string, id uuid.UUID) (used int, saved int64, savedFacts int, err error)
	Value(ctx context.Context, q store.ValueQuery) (store.ValueRows, error)
}

// SessionRef names the session a call belongs to, as its client knows it: the contract's
// type (package wire), so a surface passes on what its caller sent. A zero Key records nothing.
type SessionRef = wire.SessionRef

// Session key and CLI name rules: what CLIs use as session ids (UUIDs) and what memhost run
// mints, with room to spare; nothing that could carry text.
var (
	sessionKeyPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`)
	cliNamePattern    = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,31}$`)
)

// ValidSessionKey reports whether key is a session key the records accept.
func ValidSessionKey(key string) bool { return sessionKeyPattern.MatchString(key) }

// sessionKey checks r and returns its store key in project; ok is false for a ref without a
// key (nothing is recorded then).
func sessionKey(r SessionRef, project string) (store.SessionKey, bool, error) {
	if r.CLI != "" && !cliNamePattern.MatchString(r.CLI) {
		return store.SessionKey{}, false, rules.Errf("cli", "must be a CLI name: 1 to 32 lower-case letters, digits or '-'")
	}
	if r.Key == "" {
		return store.SessionKey{CLI: r.CLI}, false, nil
	}
	if !sessionKeyPattern.MatchString(r.Key) {
		return store.SessionKey{}, false, rules.Errf("session", "must be 1 to 128 letters, digits, '.', '_', ':' or '-', starting with a letter or digit")
	}
	origin := store.SessionOrigin(r.Origin)
	switch origin {
	case "":
		origin = store.SessionConnected
	case store.SessionRun, store.SessionConnected:
	default:
		return store.SessionKey{}, false, rules.Errf("origin", "must be run or connected")
	}
	return store.SessionKey{ScopeKey: project, Key: r.Key, CLI: r.CLI, Origin: origin}, true, nil
}

// Use is one memory a session met: it was given it, retrieved it, stored it or cited it.
type Use struct {
	ID    uuid.UUID
	Event store.SessionEvent
	// Channel says through what: banner, prompt, search, get, store, transcript.
	Channel string
	// Tokens is what reading the memory cost the session (its line in a banner or a tool
	// result); 0 when it was not read or is unknown.
	Tokens int
}

// Record adds uses to ref's session record in a's project (opening the record if this is its
// first sign). Memories of another project are never recorded; a use already recorded is not
// counted twice. A zero ref records nothing.
func (s *Service) Record(ctx context.Context, a memory.Access, ref SessionRef, uses []Use) error {
	if err := check(a); err != nil {
		return err
	}
	k, ok, err := sessionKey(ref, a.Project)
	if err != nil || !ok || len(uses) == 0 {
		return err
	}
	return s.record(ctx, k, false, uses)
}

func (s *Service) record(ctx context.Context, k store.SessionKey, taskScoped bool, uses []Use) error {
	now := s.now()
	recs := make([]store.SessionMemory, len(uses))
	for i, u := range uses {
		recs[i] = store.SessionMemory{MemoryID: u.ID, Event: u.Event, Channel: u.Channel, Tokens: u.Tokens, At: now}
	}
	added, err := s.st.RecordSession(ctx, k, now, taskScoped, recs)
	if err != nil {
		return err
	}
	s.metrics.recorded(added)
	return nil
}

// Session page limits.
const (
	defaultSessions = 50
	maxSessions     = 500
)

// SessionsRequest pages through a project's sessions, newest first.
type SessionsRequest struct {
	// Since keeps the sessions that started within it; 0 means all.
	Since time.Duration
	// CLI keeps one CLI's sessions; "" all.
	CLI string
	// Limit is at most 500; default 50.
	Limit int
	// Cursor is next_cursor of the previous page.
	Cursor string
}

// SessionView is one session's record: who, when, and how many memories it met per event.
type SessionView struct {
	ID         uuid.UUID  `json:"id"`
	Key        string     `json:"key"`
	CLI        string     `json:"cli,omitempty"`
	Origin     string     `json:"origin"`
	CLISession string     `json:"cli_session,omitempty"`
	TaskScoped bool       `json:"task_scoped"`
	StartedAt  time.Time  `json:"started_at"`
	EndedAt    *time.Time `json:"ended_at,omitempty"`
	// Tokens and Turns are the session's own, from its transcript's usage fields; absent when
	// unknown.
	Tokens *int64 `json:"tokens,omitempty"`
	Turns  *int   `json:"turns,omitempty"`
	// Given, Retrieved, Stored and Cited count distinct memories.
	Given     int `json:"given"`
	Retrieved int `json:"retrieved"`
	Stored    int `json:"stored"`
	Cited     int `json:"cited"`
}

func sessionView(x store.Session) SessionView {
	return SessionView{ID: x.ID, Key: x.Key, CLI: x.CLI, Origin: string(x.Origin), CLISession: x.CLISession, TaskScoped: x.TaskScoped,
		StartedAt: x.StartedAt, EndedAt: x.EndedAt, Tokens: x.Tokens, Turns: x.Turns,
		Given: x.Counts[store.EventGiven], Retrieved: x.Counts[store.EventRetrieved], Stored: x.Counts[store.EventStored], Cited: x.Counts[store.EventCited]}
}

// SessionPage is one page of sessions, newest first.
type SessionPage struct {
	Project    string        `json:"project"`
	Sessions   []SessionView `json:"sessions"`
	NextCursor string        `json:"next_cursor,omitempty"`
}

// Sessions lists a's project's sessions, newest first, each with its counts per event.
func (s *Service) Sessions(ctx context.Context, a memory.Access, req SessionsRequest) (SessionPage, error) {
	limit, err := listLimit(a, req.Limit, defaultSessions, maxSessions)
	if err != nil {
		return SessionPage{}, err
	}
	if req.Since < 0 {
		return SessionPage{}, rules.Errf("since", "must not be negative")
	}
	if req.CLI != "" && !cliNamePattern.MatchString(req.CLI) {
		return SessionPage{}, rules.Errf("cli", "must be a CLI name: 1 to 32 lower-case letters, digits or '-'")
	}
	q := store.SessionQuery{ScopeKey: a.Project, CLI: req.CLI, Limit: limit + 1}
	if req.Since > 0 {
		q.Since = s.now().Add(-req.Since)
	}
	if req.Cursor != "" {
		c, ok := store.ParseCursor(req.Cursor)
		if !ok {
			return SessionPage{}, rules.Errf("cursor", "is not a cursor returned by a previous page")
		}
		q.Before = &c
	}
	xs, err := s.st.Sessions(ctx, q)
	if err != nil {
		return SessionPage{}, err
	}
	page := SessionPage{Project: a.Project, Sessions: make([]SessionView, 0, min(len(xs), limit))}
	if len(xs) > limit {
		last := xs[limit-1]
		page.NextCursor = store.Cursor{CreatedAt: last.StartedAt, ID: last.ID}.String()
		xs = xs[:limit]
	}
	for _, x := range xs {
		page.Sessions = append(page.Sessions, sessionView(x))
	}
	return page, nil
}

// SessionMemory is one memory a session met, as it reads now.
type SessionMemory struct {
	ID       uuid.UUID `json:"id"`
	ShortID  string    `json:"short_id"`
	Event    string    `json:"event"`
	Channel  string    `json:"channel,omitempty"`
	Tokens   int       `json:"tokens,omitempty"`
	At       time.Time `json:"at"`
	Kind     string    `json:"kind"`
	Text     string    `json:"text"`
	Archived bool      `json:"archived,omitempty"`
}

// SessionDetail is one session's record with every memory it met, in the order it met them.
type SessionDetail struct {
	Project string `json:"project"`
	SessionView
	Memories []SessionMemory `json:"memories"`
}

// Session returns one of a's project's sessions, named by its id or its key (SessionRef.Key),
// with the memories it was given, retrieved, stored and cited.
func (s *Service) Session(ctx context.Context, a memory.Access, ref string) (SessionDetail, error) {
	if err := check(a); err != nil {
		return SessionDetail{}, err
	}
	id, _ := uuid.Parse(ref)
	if id == uuid.Nil && !sessionKeyPattern.MatchString(ref) {
		return SessionDetail{}, rules.Errf("session", "must be a session's id or key")
	}
	x, rows, err := s.st.Session(ctx, a.Project, id, ref)
	if err != nil {
		if isNotFound(err) {
			return SessionDetail{}, notFound("no session %q in project %s", ref, a.Project)
		}
		return SessionDetail{}, err
	}
	d := SessionDetail{Project: a.Project, SessionView: sessionView(x), Memories: make([]SessionMemory, len(rows))}
	for i, r := range rows {
		d.Memories[i] = SessionMemory{ID: r.MemoryID, ShortID: shortid.Of(r.MemoryID), Event: string(r.Event), Channel: r.Channel,
			Tokens: r.Tokens, At: r.At, Kind: string(r.Kind), Text: rules.Printable(r.Text), Archived: r.Archived}
	}
	return d, nil
}

// maxAccess bounds a memory's access log.
const maxAccess = 500

// AccessEntry is one session's event about a memory.
type AccessEntry struct {
	Session    uuid.UUID `json:"session"`
	CLI        string    `json:"cli,omitempty"`
	Origin     string    `json:"origin"`
	CLISession string    `json:"cli_session,omitempty"`
	Event      string    `json:"event"`
	Channel    string    `json:"channel,omitempty"`
	Tokens     int       `json:"tokens,omitempty"`
	At         time.Time `json:"at"`
}

// MemoryAccessLog is what a's project's sessions did with one memory, newest first, and how
// many sessions did each.
type MemoryAccessLog struct {
	Project string         `json:"project"`
	Memory  uuid.UUID      `json:"memory"`
	Counts  map[string]int `json:"counts"`
	Entries []AccessEntry  `json:"entries"`
}

// MemoryAccess returns a memory's access log in a's project: which sessions were given it,
// whose searches returned it or gets read it, which stored or cited it (at most 500 events,
// newest first). ref is the memory's id or short id, resolved as memory_get does; only the
// project's own sessions are read, so another project's memory has an empty log.
func (s *Service) MemoryAccess(ctx context.Context, a memory.Access, ref string) (MemoryAccessLog, error) {
	if err := check(a); err != nil {
		return MemoryAccessLog{}, err
	}
	id, err := s.mem.Lookup(ctx, a, ref)
	if err != nil {
		return MemoryAccessLog{}, err
	}
	rows, err := s.st.MemoryAccess(ctx, a.Project, id, maxAccess)
	if err != nil {
		return MemoryAccessLog{}, err
	}
	log := MemoryAccessLog{Project: a.Project, Memory: id, Counts: map[string]int{}, Entries: make([]AccessEntry, len(rows))}
	for i, r := range rows {
		log.Entries[i] = AccessEntry{Session: r.SessionID, CLI: r.CLI, Origin: string(r.Origin), CLISession: r.CLISession,
			Event: string(r.Event), Channel: r.Channel, Tokens: r.Tokens, At: r.At}
		log.Counts[string(r.Event)]++
	}
	return log, nil
}
