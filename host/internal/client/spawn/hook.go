package spawn

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/memhost/memhost/host/internal/client/transcript"
	"github.com/memhost/memhost/host/internal/core/project"
	"github.com/memhost/memhost/host/internal/wire"
)

// The marks memhost run sets in the environment of a CLI it starts with memory, each to the
// CLI's name, so that the hooks `memhost connect` registered in the CLI's own configuration
// stand down where memhost run does their work: one banner and one journal entry per session.
const (
	// RunSessionEnv: memhost run journals the session itself; the session-end hook stands down.
	RunSessionEnv = "MEMHOST_RUN_SESSION"
	// RunBannerEnv: the provider's plan gave the CLI the banner (provider.Plan.DeliversBanner);
	// the session-start hook stands down. Unset when the user's own arguments took the banner's
	// channel, so the hook gives it then: never twice, never none.
	RunBannerEnv = "MEMHOST_RUN_BANNER"
	// RunPromptEnv: the provider's plan registered memhost run's own prompt hook
	// (provider.Plan.DeliversPromptHook); the prompt hook memhost connect registered stands
	// down, so each prompt gets its context once.
	RunPromptEnv = "MEMHOST_RUN_PROMPT"
	// SessionKeyEnv holds the key memhost run named the session by in its record, so a hook
	// memhost connect registered that still runs in it (its prompt hook, when the user's own
	// arguments left memhost run's no room) records into the same session.
	SessionKeyEnv = "MEMHOST_SESSION"
)

// MarkedByRun reports whether a hook of cli runs in a session memhost run marked with mark
// (RunSessionEnv or RunBannerEnv), reading the environment through getenv. The mark names the
// CLI memhost run started, so another CLI started inside that session keeps its own hooks; a
// mark of "1" (memhost run before the marks named the CLI) and a hook given no CLI match any.
func MarkedByRun(getenv func(string) string, mark, cli string) bool {
	v := getenv(mark)
	return v != "" && (v == cli || v == "1" || cli == "")
}

// HookSession is a session as a CLI's hook input names it (Claude Code and Gemini CLI send
// session_id, transcript_path and cwd to SessionStart and SessionEnd hooks).
type HookSession struct {
	CLI        string
	ID         string
	Transcript string
	Dir        string
	Reason     string // why it ended, as the CLI says ("exit", "clear", ...)
}

// markerName is the file recording when a hooked session started: the CLI and the session id,
// which must be a plain name.
func markerName(s HookSession) (string, bool) {
	name := s.CLI + "-" + s.ID
	if s.ID == "" || s.CLI == "" || name != filepath.Base(name) || strings.HasPrefix(name, ".") {
		return "", false
	}
	return name, true
}

// MarkStart records in dir (the user's cache) that s started at at: the session-end hook's time
// window. A session without a usable id is not recorded; its end then journals metadata alone.
func MarkStart(dir string, s HookSession, at time.Time) error {
	name, ok := markerName(s)
	if !ok {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("record the session's start: %w", err)
	}
	sweepMarkers(dir, at)
	return os.WriteFile(filepath.Join(dir, name), []byte(at.UTC().Format(time.RFC3339Nano)), 0o600)
}

// markerMaxAge is how long a start marker waits for its session's end: a CLI whose end hook is
// not registered (Gemini CLI), or a session that was killed, never takes its marker.
const markerMaxAge = 7 * 24 * time.Hour

// sweepMarkers removes the markers in dir older than markerMaxAge.
func sweepMarkers(dir string, now time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() && now.Sub(fi.ModTime()) > markerMaxAge {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// started reads and removes s's start marker.
func started(dir string, s HookSession) (time.Time, bool) {
	name, ok := markerName(s)
	if !ok {
		return time.Time{}, false
	}
	path := filepath.Join(dir, name)
	data, err := os.ReadFile(path)
	if err != nil {
		return time.Time{}, false
	}
	_ = os.Remove(path)
	at, err := time.Parse(time.RFC3339Nano, string(data))
	return at, err == nil
}

// ErrNothingToJournal means a hooked session ended without anything worth an entry: it was
// quiet (see quiet).
var ErrNothingToJournal = errors.New("the session did nothing worth a journal entry")

// EndSession closes the record of a session a CLI's SessionEnd hook reports (what its
// transcript shows it was given, retrieved, stored and cited) and journals it: metadata, and the
// excerpt of its own transcript when isolation holds (the window runs from the start MarkStart
// recorded to now), else why not. The rule of memhost run holds: a session that ended within quietUnder
// (brain.quiet_session; 0 means DefaultQuietUnder) is not journalled, so not summarised
// (ErrNothingToJournal). A SessionEnd hook runs when the CLI ends its session itself, so the
// session counts as ended cleanly.
//
// The CLI's provider plugin, r, reads the transcript; nil (none could be started) journals
// the metadata alone, with the reason.
func EndSession(ctx context.Context, host *Host, tokens Tokens, r transcript.Reader, markers string, quietUnder time.Duration, s HookSession, now time.Time) error {
	id, err := project.Resolve(s.Dir)
	if err != nil {
		return err
	}
	start, known := started(markers, s)
	token, release, err := tokens.Grant(ctx, id.Key, s.CLI)
	if err != nil {
		return err
	}
	defer func() { _ = release(context.WithoutCancel(ctx)) }()
	// The session's record closes whether or not it is journalled: what it was given and used
	// is worth knowing of a quick question too. Without its start, nothing of the transcript
	// can be proven the session's.
	var recorded error
	from := now
	if known {
		from = start
	}
	ts := transcript.Session{CLI: s.CLI, Path: s.Transcript, ID: s.ID, Dir: s.Dir, Start: from, End: now}
	turns, terr := transcript.Fetch(ctx, r, ts)
	if s.ID != "" {
		ref := wire.SessionRef{Key: s.ID, CLI: s.CLI, Origin: wire.OriginConnected}
		recorded = recordEnd(ctx, host, token, id.Key, ref, ts, fetched(turns, terr))
	}
	entry := JournalEntry{Agent: s.CLI, Session: s.ID}
	if known {
		ran := now.Sub(start)
		if quiet(0, ran, quietUnder) {
			return errors.Join(recorded, ErrNothingToJournal)
		}
		entry.Text = fmt.Sprintf("%s session ended after %s", s.CLI, ran.Round(time.Second))
		withTranscript(&entry, turns, terr)
	} else {
		entry.Text = s.CLI + " session ended"
		entry.TranscriptNote = "its start was not recorded (no session-start hook ran), so its time window is unknown"
	}
	if r := oneWord(s.Reason); r != "" {
		entry.Text += " (" + r + ")"
	}
	entry.Text += "."
	return errors.Join(recorded, host.Journal(ctx, token, id.Key, entry))
}

// oneWord keeps a CLI's end reason when it is a short identifier ("prompt_input_exit").
func oneWord(s string) string {
	if len(s) > 40 || strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	}) >= 0 {
		return ""
	}
	return s
}

// quiet reports whether a session that ended with code after running ran did nothing worth
// recalling (DefaultQuietUnder says why): it ended cleanly within under, 0 meaning
// DefaultQuietUnder. One rule for the sessions memhost run ends and those a hook reports.
func quiet(code int, ran, under time.Duration) bool {
	return code == 0 && ran < cmp.Or(under, DefaultQuietUnder)
}

// hookContext matches what Gemini CLI puts before the user's words in a BeforeAgent hook's
// prompt: the additionalContext earlier hooks gave (the SessionStart banner), in its own tags.
var hookContext = regexp.MustCompile(`(?s)<hook_context>.*?</hook_context>`)

// HookPrompt is the user's own words in the prompt a CLI's prompt hook receives: Gemini CLI's
// carries the context earlier hooks added (<hook_context>...</hook_context>), which is memhost's
// banner, not what the user asked.
func HookPrompt(prompt string) string {
	return strings.TrimSpace(hookContext.ReplaceAllString(prompt, " "))
}
