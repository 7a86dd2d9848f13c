package spawn

import (
	"context"
	"time"

	"github.com/memhost/memhost/host/internal/client/transcript"
	"github.com/memhost/memhost/host/internal/wire"
)

// recordEnd closes the session's record on the host with what its transcript shows
// (transcript.Turns.Activity: ids and numbers, no text). A transcript that could not be read,
// or is not provably the session's (turns nil), still closes the record, with nothing read
// from it.
func recordEnd(ctx context.Context, host *Host, token, project string, ref wire.SessionRef, s transcript.Session, turns *transcript.Turns) error {
	end := wire.SessionEnd{Session: ref, CLISession: s.ID, StartedAt: s.Start, EndedAt: s.End}
	if !validKey(s.ID) {
		end.CLISession = ""
	}
	if turns != nil {
		a := turns.Activity()
		end.Given, end.Retrieved, end.Cited = a.Given, a.Retrieved, a.Cited
		if a.Usage {
			end.Tokens, end.Turns = &a.Tokens, &a.Calls
		}
		for _, st := range a.Stored {
			f := wire.StoredFact{ID: st.ID, Turns: st.Calls}
			if a.Usage {
				tokens, secs := st.Tokens, st.Seconds
				f.Tokens, f.Seconds = &tokens, &secs
			}
			end.Stored = append(end.Stored, f)
		}
	}
	if end.EndedAt.IsZero() || end.EndedAt.Before(end.StartedAt) {
		end.EndedAt = time.Now()
	}
	_, err := host.EndSession(ctx, token, project, end)
	return err
}

// validKey reports whether a CLI's session id can name a session in the records (what CLIs
// use: UUIDs); another is left out rather than refused.
func validKey(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i, r := range id {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || i > 0 && (r == '.' || r == '_' || r == ':' || r == '-')
		if !ok {
			return false
		}
	}
	return true
}

// fetched is the turns transcript.Fetch read, nil when it read none.
func fetched(turns transcript.Turns, err error) *transcript.Turns {
	if err != nil {
		return nil
	}
	return &turns
}

// withTranscript gives e the excerpt of the session's turns for its summary, or the reason
// there is none.
func withTranscript(e *JournalEntry, turns transcript.Turns, err error) {
	var ex transcript.Excerpt
	if err == nil {
		ex, err = turns.Excerpt(0)
	}
	if err != nil {
		e.TranscriptNote = transcript.Reason(err)
		return
	}
	e.Transcript = ex.Text
}
