package brain

import (
	"context"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
)

// JournalRequest is one session_log_append call: what a session did.
type JournalRequest struct {
	Text    string
	Agent   string
	Session string
	Source  string // "mcp", "rest"
	// Transcript is the session's excerpt, read by the client that ran the session
	// (host/internal/client/transcript: isolated, bounded, redacted), for the summarize job. Empty
	// when there is none.
	Transcript string
	// TranscriptNote says why there is no transcript (its isolation could not be proven); it
	// is recorded in the entry, which then holds the session's metadata alone.
	TranscriptNote string
}

// MaxTranscriptBytes bounds a session's excerpt (the client sends transcript.DefaultMaxBytes).
const MaxTranscriptBytes = 64 << 10

// maxNoteBytes bounds a transcript note.
const maxNoteBytes = 500

// Summarizer queues the summary of a session's journal entry. The maintenance package's
// summarize job implements it; a brain without one journals metadata alone.
type Summarizer interface {
	// Declines says why project's sessions are not summarised ("" when they are).
	Declines(project string) string
	// QueueTx queues entry's summary from excerpt in tx, the entry's own transaction.
	QueueTx(ctx context.Context, tx pgx.Tx, entry store.Memory, excerpt string) error
}

// WithSummarizer has sessions that come with a transcript summarised by sum.
func WithSummarizer(sum Summarizer) Option { return func(s *Service) { s.summarizer = sum } }

// JournalEntry is one journal entry.
type JournalEntry struct {
	ID        uuid.UUID `json:"id"`
	Text      string    `json:"text"`
	Agent     string    `json:"agent,omitempty"`
	Session   string    `json:"session,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

func journalEntry(m store.Memory) JournalEntry {
	return JournalEntry{ID: m.ID, Text: m.Text, Agent: m.Provenance.Agent, Session: m.Provenance.Session, CreatedAt: m.CreatedAt}
}

// AppendResult is a stored journal entry.
type AppendResult struct {
	Project    string       `json:"project"`
	Entry      JournalEntry `json:"entry"`
	Redactions int          `json:"redactions,omitempty"`
}

// AppendJournal records what a session did. The entry is embedded before this returns, so
// the next session's search and banner find it at once. Entries never fold: two sessions may
// report the same words.
func (s *Service) AppendJournal(ctx context.Context, a memory.Access, req JournalRequest) (AppendResult, error) {
	if err := check(a); err != nil {
		return AppendResult{}, err
	}
	if err := s.mem.CheckMemoryText("text", req.Text); err != nil {
		return AppendResult{}, err
	}
	for _, f := range []struct {
		name string
		v    *string
	}{{"agent", &req.Agent}, {"session", &req.Session}, {"source", &req.Source}} {
		if err := rules.CheckLine(f.name, *f.v, rules.MaxProvenanceBytes); err != nil {
			return AppendResult{}, err
		}
	}
	redactions := 0
	if err := s.checkTranscript(a.Project, &req); err != nil {
		return AppendResult{}, err
	}
	for _, f := range []*string{&req.Text, &req.Agent, &req.Session, &req.Source, &req.Transcript, &req.TranscriptNote} {
		redactions += s.mem.Redact(f)
	}
	if req.TranscriptNote != "" {
		req.Text += "\nNot summarised: " + req.TranscriptNote
	}
	vec, err := s.mem.EmbedDocument(ctx, req.Text)
	if err != nil {
		return AppendResult{}, err
	}
	w := store.Write{ID: uuid.Must(uuid.NewV7()), Scope: store.ScopeProject, ScopeKey: a.Project, Kind: store.KindJournal,
		Text: req.Text, Importance: 0.5, Confidence: 1, Vector: vec, Actor: a.Actor,
		Provenance: store.Provenance{Agent: req.Agent, Session: req.Session, Source: req.Source}}
	var m store.Memory
	if req.Transcript != "" {
		m, err = s.st.InsertWith(ctx, w, func(tx pgx.Tx, m store.Memory) error {
			return s.summarizer.QueueTx(ctx, tx, m, req.Transcript)
		})
	} else {
		err = s.st.WithScopeLock(ctx, w.Ref(), func(tx store.ScopeTx) error {
			var err error
			m, err = tx.Insert(ctx, w)
			return err
		})
	}
	if err != nil {
		return AppendResult{}, err
	}
	s.mem.Indexed(m)
	return AppendResult{Project: a.Project, Entry: journalEntry(m), Redactions: redactions}, nil
}

// checkTranscript checks req's transcript fields and, when this host does not summarise the
// project's sessions, turns the transcript into a note saying why.
func (s *Service) checkTranscript(project string, req *JournalRequest) error {
	if req.Transcript != "" {
		if err := rules.CheckText("transcript", req.Transcript, MaxTranscriptBytes); err != nil {
			return err
		}
		if req.TranscriptNote != "" {
			return rules.Errf("transcript_note", "is for a session without a transcript; send one or the other")
		}
	}
	if err := rules.CheckLine("transcript_note", req.TranscriptNote, maxNoteBytes); err != nil {
		return err
	}
	if req.Transcript == "" {
		return nil
	}
	why := "this host does not summarise sessions"
	if s.summarizer != nil {
		why = s.summarizer.Declines(project)
	}
	if why != "" {
		req.Transcript, req.TranscriptNote = "", why
	}
	return nil
}

// Journal page limits.
const (
	defaultJournal = 20
	maxJournal     = 200
)

// JournalQuery pages through a project's journal, newest first.
type JournalQuery struct {
	Limit  int    // default 20, at most 200
	Cursor string // next_cursor of the previous page
}

// JournalPage is one page of entries, newest first.
type JournalPage struct {
	Project    string         `json:"project"`
	Entries    []JournalEntry `json:"entries"`
	NextCursor string         `json:"next_cursor,omitempty"`
}

// Journal lists the project's journal entries, newest first.
func (s *Service) Journal(ctx context.Context, a memory.Access, q JournalQuery) (JournalPage, error) {
	limit, err := listLimit(a, q.Limit, defaultJournal, maxJournal)
	if err != nil {
		return JournalPage{}, err
	}
	var before *store.Cursor
	if q.Cursor != "" {
		c, ok := store.ParseCursor(q.Cursor)
		if !ok {
			return JournalPage{}, rules.Errf("cursor", "is not a cursor returned by a previous page")
		}
		before = &c
	}
	ms, err := s.st.Journal(ctx, a.Project, limit+1, before)
	if err != nil {
		return JournalPage{}, err
	}
	page := JournalPage{Project: a.Project, Entries: make([]JournalEntry, 0, min(len(ms), limit))}
	if len(ms) > limit {
		last := ms[limit-1]
		page.NextCursor = store.CursorOf(last).String()
		ms = ms[:limit]
	}
	for _, m := range ms {
		page.Entries = append(page.Entries, journalEntry(m))
	}
	return page, nil
}
