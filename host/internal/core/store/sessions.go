package store

import (
	"time"

	"github.com/google/uuid"
)

// Session records: what each agent session was given and used (migration 0015). The brain owns
// the rules (package brain, sessions.go); these are the rows.

// SessionOrigin says how a session reached memhost.
type SessionOrigin string

// Session origins.
const (
	// SessionRun is a session `memhost run` started: its key is memhost run's own.
	SessionRun SessionOrigin = "run"
	// SessionConnected is a session of a CLI `memhost connect` registered memhost in: its key is
	// the CLI's own session id, which its hooks receive.
	SessionConnected SessionOrigin = "connected"
)

// SessionEvent is what happened between a session and a memory.
type SessionEvent string

// Session events.
const (
	EventGiven     SessionEvent = "given"     // a banner or a prompt hook carried it
	EventRetrieved SessionEvent = "retrieved" // a search returned it or a get read it
	EventStored    SessionEvent = "stored"    // the session wrote it (or folded into it)
	EventCited     SessionEvent = "cited"     // the agent named its short id
)

// SessionEvents lists the events in the order reports show them.
var SessionEvents = []SessionEvent{EventGiven, EventRetrieved, EventStored, EventCited}

// SessionKey names a session as its client does, in one project.
type SessionKey struct {
	ScopeKey string
	// Key is memhost run's session key, or a connected CLI's own session id.
	Key    string
	CLI    string
	Origin SessionOrigin
}

// SessionMemory is one event of a session about one memory.
type SessionMemory struct {
	MemoryID uuid.UUID
	Event    SessionEvent
	// Channel is how: banner, prompt, search, get, store, transcript.
	Channel string
	// Tokens is what reading the memory cost the session there (0: unknown or not a read).
	Tokens int
	At     time.Time
}

// Session is one session's record with its counts.
type Session struct {
	ID         uuid.UUID
	ScopeKey   string
	Key        string
	CLI        string
	Origin     SessionOrigin
	CLISession string
	TaskScoped bool
	StartedAt  time.Time
	EndedAt    *time.Time
	// Tokens and Turns are the session's own, from its transcript; nil when unknown.
	Tokens *int64
	Turns  *int
	// Counts holds the distinct memories per event.
	Counts map[SessionEvent]int
}

// SessionEnd closes a session: when it ended, the CLI's own id and its usage when known.
type SessionEnd struct {
	Key        SessionKey
	CLISession string
	EndedAt    time.Time
	Tokens     *int64
	Turns      *int
}

// Discovery is what finding a stored fact cost the session that stored it.
type Discovery struct {
	MemoryID uuid.UUID
	Tokens   int64
	Seconds  float64
	Turns    int
}

// SessionQuery pages through a project's sessions, newest first.
type SessionQuery struct {
	ScopeKey string
	Since    time.Time // zero: all
	CLI      string    // "": every CLI
	Before   *Cursor   // the last session of the previous page (StartedAt, ID)
	Limit    int
}

// SessionMemoryRow is a session's event about a memory, with the memory as it reads now.
type SessionMemoryRow struct {
	SessionMemory
	Kind     Kind
	Text     string
	Archived bool
}

// MemoryAccess is one session's event about one memory, for the memory's access log.
type MemoryAccess struct {
	SessionMemory
	SessionID  uuid.UUID
	CLI        string
	Origin     SessionOrigin
	CLISession string
	StartedAt  time.Time
}

// ValueQuery asks for one project's value figures.
type ValueQuery struct {
	ScopeKey string
	Since    time.Time
	// UnusedAfter: a live memory given in at least this many sessions and never used (cited
	// or retrieved) in any is a candidate to bury.
	UnusedAfter int
	// Sessions bounds the per-session rows; Unused the candidates listed.
	Sessions, Unused int
}

// SessionValue is one session's figures.
type SessionValue struct {
	Session
	// Used counts the memories given to the session that it cited or retrieved.
	Used int
	// Saved estimates the tokens the session did not spend finding again what earlier sessions
	// found: over the memories it used that another session stored with a measured discovery
	// cost, the sum of that cost less the memory's read cost here (never below 0).
	Saved int64
	// SavedFacts counts the memories Saved sums over.
	SavedFacts int
}

// ValueTotals are a project's figures over the sessions since the query's Since.
type ValueTotals struct {
	Sessions int
	// Events sums each session's distinct memories per event.
	Events map[SessionEvent]int
	// Injected counts distinct memories given; InjectedUsed those of them ever cited or
	// retrieved, in any session of the project.
	Injected, InjectedUsed int
	Saved                  int64
	SavedFacts             int
	// Discovered counts facts stored in the window with a measured discovery cost, and
	// DiscoveryTokens sums it.
	Discovered      int
	DiscoveryTokens int64
}

// UnusedMemory is a live memory given in many sessions and never used in any.
type UnusedMemory struct {
	ID        uuid.UUID
	Kind      Kind
	Text      string
	Given     int
	LastGiven time.Time
}

// ValueRows is one project's value figures as the store computes them.
type ValueRows struct {
	Sessions []SessionValue
	Totals   ValueTotals
	Unused   []UnusedMemory
}
