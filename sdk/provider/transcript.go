package provider

import (
	"context"
	"errors"
	"path/filepath"
	"time"
)

// TranscriptReader is implemented by a provider that reads its CLI's
// transcripts (see the Transcript RPC in proto/memhost/v1/provider.proto). It
// is a separate interface so that a provider written before it keeps
// compiling; memhost's client always has it, and answers ErrUnimplemented for
// a plugin without it (memhost then journals the session's metadata alone).
type TranscriptReader interface {
	// Transcript reads the transcript r names in the CLI's own layout. It
	// checks what only the layout can tell: the file records r.SessionID as
	// its session and r.Dir as its working directory. A file that fails a
	// check, or cannot be read, is no error: it is a Transcript with
	// NotIsolated set and no turns. The server adapter drops the turns stamped
	// outside r's window and clips what is left (TranscriptLimits), so an
	// implementation need not.
	Transcript(ctx context.Context, r TranscriptRequest) (Transcript, error)
}

// TranscriptRequest names an ended session whose transcript is read.
type TranscriptRequest struct {
	// SessionID is the CLI's session id (Session.ID).
	SessionID string
	// Path is the transcript, absolute (Session.Transcript).
	Path string
	// Dir is the project's working directory, absolute.
	Dir string
	// Start and End bound the session; see Within.
	Start, End time.Time
}

// TranscriptSlack widens a session's time window: the CLI stamps its first
// turn after memhost started it and may flush its last one after it exited.
const TranscriptSlack = 30 * time.Second

// Within reports whether at lies inside r's window, widened by
// TranscriptSlack either side. An unstamped turn (the zero time) does not.
func (r TranscriptRequest) Within(at time.Time) bool {
	return !at.IsZero() && !at.Before(r.Start.Add(-TranscriptSlack)) && !at.After(r.End.Add(TranscriptSlack))
}

// Validate checks the request against the protocol: a session id, absolute
// paths and a window.
func (r TranscriptRequest) Validate() error {
	var errs []error
	if r.SessionID == "" {
		errs = append(errs, errors.New("transcript request: session id is empty"))
	}
	if !filepath.IsAbs(r.Path) {
		errs = append(errs, errors.New("transcript request: path must be absolute"))
	}
	if !filepath.IsAbs(r.Dir) {
		errs = append(errs, errors.New("transcript request: dir must be absolute"))
	}
	if r.Start.IsZero() || r.End.Before(r.Start) {
		errs = append(errs, errors.New("transcript request: the window needs a start no later than its end"))
	}
	return errors.Join(errs...)
}

// Transcript is what a provider read of a session's transcript: its turns,
// or why the file is not provably the session's.
type Transcript struct {
	// Turns are the session's turns in the order the CLI wrote them.
	Turns []Turn
	// NotIsolated says why the transcript is not provably the session's own,
	// in the project's directory: one line naming the failed check, without
	// the file's content or path. Turns is then empty.
	NotIsolated string
}

// Turn is one message of a session, or one event of it the CLI writes apart
// from its messages (a tool call, its result, a model call's cost).
type Turn struct {
	// Role is "user" or "assistant".
	Role string
	// Text is the message's prose; tool calls and results are not part of it.
	Text string
	// At is when the CLI stamped the turn; the zero time when it did not.
	At time.Time
	// Calls are the tools an assistant turn called.
	Calls []ToolCall
	// Results are tool results the turn carries, matched to calls by id.
	Results []ToolResult
	// Tokens is what the model call behind an assistant turn cost (input,
	// cached input and output) as the CLI recorded it, each call counted
	// once; 0 when it recorded none.
	Tokens int64
}

// ToolCall is one tool call: its id, the tool's name as the CLI shows it to
// the model (mcp__memhost__memory_store), and its result when the layout
// keeps it with the call (Gemini CLI).
type ToolCall struct {
	ID, Name, Result string
}

// ToolResult is a tool call's result, by the call's id.
type ToolResult struct {
	CallID, Text string
}
