package brain

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/rules"
	"github.com/memhost/memhost/host/internal/core/shortid"
	"github.com/memhost/memhost/host/internal/core/store"
)

// Value report defaults and limits.
const (
	DefaultValueWindow = 7 * 24 * time.Hour
	maxValueWindow     = 3650 * 24 * time.Hour
	// DefaultUnusedAfter: a memory given in five ended sessions and never used in any is a
	// candidate to bury (Codex drops memories unused for a while the same way).
	DefaultUnusedAfter = 5
	maxUnusedAfter     = 1000
	defaultValueRows   = 50
	maxValueRows       = 500
	unusedListed       = 50
)

// SavedEstimate says how Saved is computed; every value report carries it.
const SavedEstimate = "estimate: for each memory a session cited or retrieved that another session stored, " +
	"the tokens that session spent before storing it (since its previous store, from its transcript's usage fields) " +
	"less the tokens reading the memory cost here (its line in the banner, a prompt hook or a tool result), never below 0"

// ValueRequest asks for a project's value figures.
type ValueRequest struct {
	// Since is the window: the sessions that started within it; 0 means DefaultValueWindow.
	Since time.Duration
	// UnusedAfter is how many ended sessions a memory must be given in, and used in none, to
	// be listed as a candidate to bury; 0 means DefaultUnusedAfter.
	UnusedAfter int
	// Sessions bounds the sessions listed (newest first); 0 means 50, at most 500.
	Sessions int
}

// SessionValue is one session's figures.
type SessionValue struct {
	SessionView
	// Used counts the memories given to the session that it cited or retrieved.
	Used int `json:"used"`
	// Saved is the session's estimated saving in tokens (SavedEstimate), over SavedFacts
	// memories.
	Saved      int64 `json:"saved"`
	SavedFacts int   `json:"saved_facts"`
}

// ValueTotals are a project's figures over the window.
type ValueTotals struct {
	Sessions int `json:"sessions"`
	// Injected, Retrieved, Stored and Cited sum each session's distinct memories per event.
	Injected  int `json:"injected"`
	Retrieved int `json:"retrieved"`
	Stored    int `json:"stored"`
	Cited     int `json:"cited"`
	// DistinctInjected counts the distinct memories given in the window; InjectedEverUsed
	// those of them cited or retrieved in any session of the project, ever; UsedShare is the
	// second over the first (0 when nothing was injected).
	DistinctInjected int     `json:"distinct_injected"`
	InjectedEverUsed int     `json:"injected_ever_used"`
	UsedShare        float64 `json:"used_share"`
	// Saved is the estimated saving over every session in the window, over SavedFacts uses.
	Saved      int64 `json:"saved"`
	SavedFacts int   `json:"saved_facts"`
	// Discovered counts the facts stored in the window whose discovery cost was measured;
	// DiscoveryTokens sums those costs.
	Discovered      int   `json:"discovered"`
	DiscoveryTokens int64 `json:"discovery_tokens"`
}

// UnusedMemory is a candidate to bury: given in many ended sessions, used in none.
type UnusedMemory struct {
	ID        uuid.UUID `json:"id"`
	ShortID   string    `json:"short_id"`
	Kind      string    `json:"kind"`
	Text      string    `json:"text"`
	Given     int       `json:"given"`
	LastGiven time.Time `json:"last_given"`
}

// ValueReport is what memory gave a project's sessions and what they did with it.
type ValueReport struct {
	Project string      `json:"project"`
	Since   time.Time   `json:"since"`
	Totals  ValueTotals `json:"totals"`
	// Sessions are the newest sessions of the window with their figures.
	Sessions []SessionValue `json:"sessions"`
	// UnusedAfter is the threshold Unused was listed with.
	UnusedAfter int            `json:"unused_after"`
	Unused      []UnusedMemory `json:"unused"`
	// Estimate says how Saved is computed.
	Estimate string `json:"estimate"`
}

// Value reports a's project's figures over the sessions that started within req.Since: per
// session and rolled up, the memories injected (given by banners and prompt hooks), retrieved,
// stored and cited; the share of injected memories ever used; the estimated tokens saved; and
// the memories given in req.UnusedAfter ended sessions and never used (candidates to bury).
func (s *Service) Value(ctx context.Context, a memory.Access, req ValueRequest) (ValueReport, error) {
	if err := check(a); err != nil {
		return ValueReport{}, err
	}
	if req.Since == 0 {
		req.Since = DefaultValueWindow
	}
	if req.Since < 0 || req.Since > maxValueWindow {
		return ValueReport{}, rules.Errf("since", "must be a positive duration of at most %d days", int(maxValueWindow/(24*time.Hour)))
	}
	var err error
	if req.UnusedAfter, err = pageLimit("unused_after", req.UnusedAfter, DefaultUnusedAfter, maxUnusedAfter); err != nil {
		return ValueReport{}, err
	}
	if req.Sessions, err = pageLimit("sessions", req.Sessions, defaultValueRows, maxValueRows); err != nil {
		return ValueReport{}, err
	}
	since := s.now().Add(-req.Since)
	rows, err := s.st.Value(ctx, store.ValueQuery{ScopeKey: a.Project, Since: since, UnusedAfter: req.UnusedAfter, Sessions: req.Sessions, Unused: unusedListed})
	if err != nil {
		return ValueReport{}, err
	}
	t := rows.Totals
	r := ValueReport{Project: a.Project, Since: since, UnusedAfter: req.UnusedAfter, Estimate: SavedEstimate,
		Totals: ValueTotals{Sessions: t.Sessions, Injected: t.Events[store.EventGiven], Retrieved: t.Events[store.EventRetrieved],
			Stored: t.Events[store.EventStored], Cited: t.Events[store.EventCited], DistinctInjected: t.Injected, InjectedEverUsed: t.InjectedUsed,
			Saved: t.Saved, SavedFacts: t.SavedFacts, Discovered: t.Discovered, DiscoveryTokens: t.DiscoveryTokens},
		Sessions: make([]SessionValue, len(rows.Sessions)), Unused: make([]UnusedMemory, len(rows.Unused))}
	if t.Injected > 0 {
		r.Totals.UsedShare = float64(t.InjectedUsed) / float64(t.Injected)
	}
	for i, v := range rows.Sessions {
		r.Sessions[i] = SessionValue{SessionView: sessionView(v.Session), Used: v.Used, Saved: v.Saved, SavedFacts: v.SavedFacts}
	}
	for i, u := range rows.Unused {
		r.Unused[i] = UnusedMemory{ID: u.ID, ShortID: shortid.Of(u.ID), Kind: string(u.Kind), Text: rules.Printable(u.Text), Given: u.Given, LastGiven: u.LastGiven}
	}
	return r, nil
}
