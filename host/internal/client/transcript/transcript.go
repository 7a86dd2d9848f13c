package transcript

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/memhost/memhost/host/internal/core/redact"
)

// ErrNotIsolated means the transcript could not be proven to be the session's own, in the
// project's directory, within its time window; the error names which check failed.
var ErrNotIsolated = errors.New("transcript not isolated")

// Session is the session whose transcript is read, as the provider's Finish and memhost run
// know it.
type Session struct {
	CLI  string // "claude", "codex" or "gemini": the transcript's layout
	Path string // the transcript file (provider.Session.Transcript)
	ID   string // the CLI's session id (provider.Session.ID)
	Dir  string // the project's working directory, absolute
	// Start and End bound the session; turns stamped outside [Start-Slack, End+Slack] are
	// another spawn's and dropped.
	Start, End time.Time
}

// Slack widens the time window: the CLI stamps its first turn after memhost started it and
// may flush its last one after it exited.
const Slack = 30 * time.Second

// Limits bound what is read and returned.
const (
	// MaxFileBytes: a longer transcript is read up to here (a session's start is then what is
	// summarised; its excerpt keeps the latest turns read).
	MaxFileBytes = 64 << 20
	// maxLine: a longer line (a huge tool result) is skipped, not read.
	maxLine = 4 << 20
	// MaxTurnBytes bounds one turn's text in the excerpt.
	MaxTurnBytes = 2000
	// DefaultMaxBytes bounds the excerpt when the caller gives no bound.
	DefaultMaxBytes = 32 << 10
)

// Turn is one message of the session, or one event of it the layout writes apart (a tool
// call, its result, a model call's cost).
type Turn struct {
	Role string // "user" or "assistant"
	Text string
	At   time.Time
	// Calls are the tools an assistant turn called; a layout that keeps a call's result with
	// it (Gemini CLI) fills in Result.
	Calls []ToolCall
	// Results are tool results the turn carries, matched to their calls by id.
	Results []ToolResult
	// Tokens is what the model call behind an assistant turn cost (input, cached input and
	// output), as the CLI recorded it; 0 when it recorded none.
	Tokens int64
}

// ToolCall is one tool call: its id, the tool's name as the CLI shows it to the model
// (mcp__memhost__memory_store), and its result when the layout keeps it with the call.
type ToolCall struct {
	ID, Name, Result string
}

// ToolResult is a tool call's result, by the call's id.
type ToolResult struct {
	CallID, Text string
}

// Excerpt is what a worker may see of a session: its turns inside the window, redacted, the
// latest ones kept within the byte bound.
type Excerpt struct {
	Text       string
	Turns      int // turns in Text
	Dropped    int // turns inside the window left out for the byte bound
	Redactions int
}

// Read returns the excerpt of s's transcript within maxBytes (0: DefaultMaxBytes). A transcript
// that fails an isolation check is ErrNotIsolated; one with no turn inside the window is too
// (there is nothing of this session to summarise).
func Read(s Session, maxBytes int) (Excerpt, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	turns, err := turnsOf(s)
	if err != nil {
		return Excerpt{}, err
	}
	kept := slices.DeleteFunc(within(turns, s), func(t Turn) bool { return t.Text == "" })
	if len(kept) == 0 {
		return Excerpt{}, fmt.Errorf("%w: no turn of the transcript lies inside the session's time window", ErrNotIsolated)
	}
	return excerpt(kept, maxBytes)
}

// within keeps the turns stamped inside s's time window (with Slack either side).
func within(turns []Turn, s Session) []Turn {
	lo, hi := s.Start.Add(-Slack), s.End.Add(Slack)
	kept := turns[:0]
	for _, t := range turns {
		if t.At.IsZero() || t.At.Before(lo) || t.At.After(hi) {
			continue
		}
		kept = append(kept, t)
	}
	return kept
}

// Reason is err as the journal records it: why the transcript was not read, in one line
// without the file's path.
func Reason(err error) string {
	msg, found := strings.CutPrefix(err.Error(), ErrNotIsolated.Error()+": ")
	if !found {
		return "the transcript could not be read"
	}
	return msg
}

// turnsOf checks which session and directory the file records and returns its turns.
func turnsOf(s Session) ([]Turn, error) {
	switch {
	case s.Path == "":
		return nil, fmt.Errorf("%w: the provider found no transcript", ErrNotIsolated)
	case s.ID == "":
		// Without the session's id, "the newest file of the directory" could be another
		// session's: fail closed.
		return nil, fmt.Errorf("%w: the session has no id", ErrNotIsolated)
	case s.Dir == "":
		return nil, fmt.Errorf("%w: the session has no working directory", ErrNotIsolated)
	case s.Start.IsZero() || s.End.Before(s.Start):
		return nil, fmt.Errorf("%w: the session has no time window", ErrNotIsolated)
	}
	fi, err := os.Stat(s.Path)
	if err != nil {
		return nil, fmt.Errorf("%w: the transcript cannot be read (%v)", ErrNotIsolated, errors.Unwrap(err))
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: the transcript is not a regular file", ErrNotIsolated)
	}
	f, err := os.Open(s.Path)
	if err != nil {
		return nil, fmt.Errorf("%w: the transcript cannot be read (%v)", ErrNotIsolated, errors.Unwrap(err))
	}
	defer func() { _ = f.Close() }()
	lines := newLines(io.LimitReader(f, MaxFileBytes))
	switch s.CLI {
	case "claude":
		return claudeTurns(lines, s)
	case "codex":
		return codexTurns(lines, s)
	case "gemini":
		return geminiTurns(lines, s)
	}
	return nil, fmt.Errorf("%w: no transcript layout is known for %q", ErrNotIsolated, s.CLI)
}

// lines yields a transcript's JSONL lines, skipping the over-long ones.
type lines struct {
	r   *bufio.Reader
	err error
}

func newLines(r io.Reader) *lines { return &lines{r: bufio.NewReaderSize(r, 64<<10)} }

// next returns the next line of at most maxLine bytes, or false at the end.
func (l *lines) next() ([]byte, bool) {
	for {
		var line []byte
		long := false
		for {
			chunk, err := l.r.ReadSlice('\n')
			if !long {
				if len(line)+len(chunk) > maxLine {
					long, line = true, nil
				} else {
					line = append(line, chunk...)
				}
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil && len(line) == 0 && !long {
				l.err = err
				return nil, false
			}
			break
		}
		if long {
			continue
		}
		return line, true
	}
}

// excerpt renders turns, newest kept, redacted, within maxBytes.
func excerpt(turns []Turn, maxBytes int) (Excerpt, error) {
	red, err := redact.New()
	if err != nil {
		return Excerpt{}, fmt.Errorf("build the secret redactor: %w", err)
	}
	var ex Excerpt
	rendered := make([]string, 0, len(turns))
	size := 0
	// Newest first: the end of a session says what it did.
	for i := len(turns) - 1; i >= 0; i-- {
		text, findings := red.Redact(clean(turns[i].Text))
		line := turns[i].Role + ": " + clip(text, MaxTurnBytes) + "\n"
		if size+len(line) > maxBytes {
			ex.Dropped = i + 1
			break
		}
		ex.Redactions += len(findings)
		rendered = append(rendered, line)
		size += len(line)
	}
	var b strings.Builder
	if ex.Dropped > 0 {
		fmt.Fprintf(&b, "[%d earlier turns left out]\n", ex.Dropped)
	}
	for i := len(rendered) - 1; i >= 0; i-- {
		b.WriteString(rendered[i])
	}
	ex.Text, ex.Turns = strings.TrimRight(b.String(), "\n"), len(rendered)
	if ex.Turns == 0 {
		return Excerpt{}, fmt.Errorf("%w: the session's last turn alone exceeds %d bytes", ErrNotIsolated, maxBytes)
	}
	return ex, nil
}

// clean drops control characters other than tab and newline (terminal escapes in tool output
// would reach the journal) and collapses surrounding space.
func clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || !unicode.IsControl(r) {
			return r
		}
		return -1
	}, s)
	return strings.TrimSpace(s)
}

// clip cuts s to at most n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = " […]"
	cut := n - len(mark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}

// parseTime reads an RFC 3339 timestamp; a missing or bad one is the zero time, which the
// window drops.
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
