package transcript

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/memhost/memhost/host/internal/core/redact"
	"github.com/memhost/memhost/sdk/provider"
)

// ErrNotIsolated means the transcript could not be proven to be the session's own, in the
// project's directory, within its time window; the error names which check failed.
var ErrNotIsolated = errors.New("transcript not isolated")

// Reader is a provider plugin that reads its CLI's transcripts (providers.Handle).
type Reader interface {
	Transcript(ctx context.Context, r provider.TranscriptRequest) (provider.Transcript, error)
}

// Session is the session whose transcript is read, as the provider's Finish and memhost run
// know it.
type Session struct {
	CLI  string // the CLI, whose provider plugin reads the transcript
	Path string // the transcript file (provider.Session.Transcript)
	ID   string // the CLI's session id (provider.Session.ID)
	Dir  string // the project's working directory, absolute
	// Start and End bound the session; turns stamped outside them (with
	// provider.TranscriptSlack either side) are another spawn's and dropped.
	Start, End time.Time
}

// Limits bound what is returned.
const (
	// MaxTurnBytes bounds one turn's text in the excerpt.
	MaxTurnBytes = 2000
	// DefaultMaxBytes bounds the excerpt when the caller gives no bound.
	DefaultMaxBytes = 32 << 10
	// maxReason bounds the reason a plugin gives for refusing a transcript.
	maxReason = 200
)

// Turns are a session's turns inside its time window, as its provider read them.
type Turns struct {
	turns []provider.Turn
	start time.Time
}

// Excerpt is what a worker may see of a session: its turns inside the window, redacted, the
// latest ones kept within the byte bound.
type Excerpt struct {
	Text       string
	Turns      int // turns in Text
	Dropped    int // turns inside the window left out for the byte bound
	Redactions int
}

// Fetch asks the session's provider plugin, r, for its transcript and keeps the turns inside
// its time window. It is fail-closed: a session without an id, a directory or a window, no
// plugin (r nil), a plugin that reads no transcripts or fails, and a transcript the plugin
// cannot prove the session's are all ErrNotIsolated, with the reason.
func Fetch(ctx context.Context, r Reader, s Session) (Turns, error) {
	switch {
	case s.Path == "":
		return Turns{}, fmt.Errorf("%w: the provider found no transcript", ErrNotIsolated)
	case s.ID == "":
		// Without the session's id, "the newest file of the directory" could be another
		// session's: fail closed.
		return Turns{}, fmt.Errorf("%w: the session has no id", ErrNotIsolated)
	case s.Dir == "":
		return Turns{}, fmt.Errorf("%w: the session has no working directory", ErrNotIsolated)
	case s.Start.IsZero() || s.End.Before(s.Start):
		return Turns{}, fmt.Errorf("%w: the session has no time window", ErrNotIsolated)
	case r == nil:
		return Turns{}, fmt.Errorf("%w: provider %s is not running, so no one reads its transcript", ErrNotIsolated, s.CLI)
	}
	req := provider.TranscriptRequest{SessionID: s.ID, Path: s.Path, Dir: s.Dir, Start: s.Start, End: s.End}
	t, err := r.Transcript(ctx, req)
	switch {
	case errors.Is(err, provider.ErrUnimplemented):
		return Turns{}, fmt.Errorf("%w: provider %s reads no transcripts", ErrNotIsolated, s.CLI)
	case err != nil:
		return Turns{}, fmt.Errorf("%w: provider %s could not read the transcript", ErrNotIsolated, s.CLI)
	case t.NotIsolated != "":
		return Turns{}, fmt.Errorf("%w: %s", ErrNotIsolated, clip(strings.Join(strings.Fields(clean(t.NotIsolated)), " "), maxReason))
	}
	// The plugin's SDK drops the turns outside the window too; a plugin in another language
	// may not, and the window is what keeps another spawn's turns out.
	kept := slices.DeleteFunc(t.Turns, func(tr provider.Turn) bool { return !req.Within(tr.At) })
	return Turns{turns: kept, start: s.Start}, nil
}

// Excerpt is the session's prose within maxBytes (0: DefaultMaxBytes), redacted. A session
// with no prose inside its window is ErrNotIsolated: there is nothing of it to summarise.
func (t Turns) Excerpt(maxBytes int) (Excerpt, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	kept := slices.DeleteFunc(slices.Clone(t.turns), func(tr provider.Turn) bool { return tr.Text == "" })
	if len(kept) == 0 {
		return Excerpt{}, fmt.Errorf("%w: no turn of the transcript lies inside the session's time window", ErrNotIsolated)
	}
	return excerpt(kept, maxBytes)
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

// excerpt renders turns, newest kept, redacted, within maxBytes.
func excerpt(turns []provider.Turn, maxBytes int) (Excerpt, error) {
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
