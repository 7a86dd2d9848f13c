package wire

import "time"

// SessionHeader is the HTTP header memhost run adds to the MCP entry it hands a CLI: its value
// is the session's key (SessionRef.Key), so the host records the session's tool calls (the
// memories its searches return, its gets read, its stores write) in the session's record.
const SessionHeader = "X-Memhost-Session"

// SessionRef names a session as its client knows it (POST .../banner, .../prompt-context,
// .../sessions/end, and the brain's calls that record uses). A zero Key records nothing.
type SessionRef struct {
	// Key is memhost run's own session key (which it hands the CLI's MCP entry as a header,
	// SessionHeader, and its hooks), or a connected CLI's session id (what its hooks receive):
	// 1 to 128 letters, digits, '.', '_', ':' or '-'.
	Key string `json:"key"`
	// CLI is the provider's name: claude, codex, gemini or another provider's.
	CLI string `json:"cli,omitempty"`
	// Origin is run (memhost run started the session) or connected (a CLI memhost connect
	// registered memhost in); default connected.
	Origin string `json:"origin,omitempty"`
}

// Session origins.
const (
	OriginRun       = "run"
	OriginConnected = "connected"
)

// BannerRequest is the body of POST /api/v1/projects/{key}/banner: a banner for a session
// whose task may be known.
type BannerRequest struct {
	CLI    string `json:"cli,omitempty"`
	Budget int    `json:"budget,omitempty"`
	// Task is what the session was started to do; the banner then leads with the facts
	// relevant to it. Used for the search, never kept.
	Task    string      `json:"task,omitempty"`
	Session *SessionRef `json:"session,omitempty"`
}

// PromptRequest is the body of POST /api/v1/projects/{key}/prompt-context.
type PromptRequest struct {
	Session SessionRef `json:"session"`
	// Prompt is what the user submitted; used for the search, never kept.
	Prompt string `json:"prompt"`
	Budget int    `json:"budget,omitempty"`
}

// PromptContext is its answer: the context the prompt hook adds ("" adds nothing).
type PromptContext struct {
	Project  string   `json:"project"`
	Text     string   `json:"text"`
	Tokens   int      `json:"tokens"`
	Memories []string `json:"memories"`
	Mode     string   `json:"mode"`
}

// SessionEnd is the body of POST /api/v1/projects/{key}/sessions/end: what the client that ran
// a session read from its transcript when it ended (host/internal/client/transcript). Ids and
// numbers only, never text.
type SessionEnd struct {
	Session SessionRef `json:"session"`
	// CLISession is the CLI's own session id, when the client knows it.
	CLISession string `json:"cli_session,omitempty"`
	// StartedAt and EndedAt bound the session; EndedAt zero means now.
	StartedAt time.Time `json:"started_at"`
	EndedAt   time.Time `json:"ended_at,omitempty"`
	// Tokens and Turns are the session's own, from its transcript's usage fields; nil when the
	// CLI writes none.
	Tokens *int64 `json:"tokens,omitempty"`
	Turns  *int   `json:"turns,omitempty"`
	// Given are the ids (short or whole) a memory_load_context result gave the session: its
	// banner, loaded by a tool call where no hook or spawn gave it.
	Given []string `json:"given,omitempty"`
	// Retrieved are the ids (short or whole) the transcript's memhost tool results showed the
	// session: search hits and gets.
	Retrieved []string `json:"retrieved,omitempty"`
	// Cited are the short ids the agent named in its answers ("Memory used: [id]"). Only ids the
	// session was given or retrieved count: a hex word that names nothing it saw is no citation.
	Cited []string `json:"cited,omitempty"`
	// Stored are the facts the session stored, with what finding each cost it.
	Stored []StoredFact `json:"stored,omitempty"`
}

// StoredFact is a fact a session stored and, when the transcript's usage fields tell (nil when
// they do not), what finding it cost: the tokens and wall time of the session's turns before
// the store, since its previous store.
type StoredFact struct {
	ID      string   `json:"id"`
	Tokens  *int64   `json:"tokens,omitempty"`
	Seconds *float64 `json:"seconds,omitempty"`
	Turns   int      `json:"turns,omitempty"`
}

// SessionEndResult is its answer: what the session's record holds now.
type SessionEndResult struct {
	Project    string         `json:"project"`
	Session    string         `json:"session"`
	Recorded   map[string]int `json:"recorded"`
	Used       int            `json:"used"`
	Saved      int64          `json:"saved"`
	SavedFacts int            `json:"saved_facts"`
}
