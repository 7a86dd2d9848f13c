package brain

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
)

// week is the window of the snapshot's "this week" counts.
const week = 7 * 24 * time.Hour

// Count is a total and how much of it is from the last seven days.
type Count struct {
	Total    int64 `json:"total"`
	ThisWeek int64 `json:"this_week"`
}

// HitFact is a much-used fact.
type HitFact struct {
	ID       uuid.UUID  `json:"id"`
	Kind     store.Kind `json:"kind"`
	Text     string     `json:"text"`
	HitCount int64      `json:"hit_count"`
}

// PendingProposals counts the inbox's open proposals.
type PendingProposals struct {
	Count int64 `json:"count"`
	// OldestAt and OldestAgeSeconds describe the longest-waiting one.
	OldestAt         *time.Time `json:"oldest_at,omitempty"`
	OldestAgeSeconds int64      `json:"oldest_age_seconds,omitempty"`
}

// HealthView is one project's health snapshot (seed 001).
type HealthView struct {
	Project string `json:"project"`
	// Facts and Journal count live rows; Folds counts writes folded into an existing fact.
	Facts     Count            `json:"facts"`
	Journal   Count            `json:"journal"`
	Folds     Count            `json:"folds"`
	Proposals PendingProposals `json:"pending_proposals"`
	// GoalUpdatedAt and PlanUpdatedAt are nil when the project has none.
	GoalUpdatedAt  *time.Time `json:"goal_updated_at,omitempty"`
	PlanUpdatedAt  *time.Time `json:"plan_updated_at,omitempty"`
	MapGeneratedAt *time.Time `json:"map_generated_at,omitempty"`
	MapStale       bool       `json:"map_stale,omitempty"`
	// TopHit lists the facts used most (read with memory_get). NeverHit counts live facts no
	// search or get ever returned (a banner does not count): the staleness job's definition.
	TopHit   []HitFact `json:"top_hit_facts"`
	NeverHit int64     `json:"never_hit_facts"`
	// Archived counts the project's archived memories by reason ("stale", an operator's
	// reason, "" when none was given): what maintenance and people set aside, restorable
	// until purged.
	Archived map[string]int64 `json:"archived_by_reason"`
	// Merges counts consolidation's merges; Superseded the live facts the conflicts job found
	// replaced; Conflicts the open conflicts of the inbox; LLM the worker calls and tokens of
	// the last seven days, every project's (docs/maintenance.md).
	Merges     Count         `json:"merges"`
	Superseded int64         `json:"superseded_facts"`
	Conflicts  OpenConflicts `json:"open_conflicts"`
	LLM        LLMUse        `json:"llm_this_week"`
	// ConflictChecking says whether anything looks for contradictions: "on", "off: <why>"
	// (no worker serves the conflicts chain, or the job is disabled), or "unknown: <why>" from
	// a core that runs no workers. An empty inbox is good news only when it is "on".
	ConflictChecking string `json:"conflict_checking"`
}

// ConflictChecks says why conflict checking is off: off is "" when it is on; known is false in
// a process that runs no workers (an operator command's own core), which cannot tell.
type ConflictChecks func() (off string, known bool)

// WithConflictChecks tells the brain whether conflict checking is on: the maintenance job and
// the worker chains it needs live outside the brain.
func WithConflictChecks(c ConflictChecks) Option { return func(s *Service) { s.conflictChecks = c } }

// conflictChecking is HealthView.ConflictChecking.
func (s *Service) conflictChecking() string {
	var off string
	known := false
	if s.conflictChecks != nil {
		off, known = s.conflictChecks()
	}
	switch {
	case !known:
		return "unknown: no host answered, and this process runs no workers"
	case off != "":
		return "off: " + off
	}
	return "on"
}

// OpenConflicts counts the conflicts inbox's open conflicts.
type OpenConflicts struct {
	Count            int64      `json:"count"`
	OldestAt         *time.Time `json:"oldest_at,omitempty"`
	OldestAgeSeconds int64      `json:"oldest_age_seconds,omitempty"`
}

// LLMUse is what the worker chains were asked, host-wide.
type LLMUse struct {
	Calls  int64 `json:"calls"`
	Tokens int64 `json:"tokens"`
}

// Health reads the project's health snapshot.
func (s *Service) Health(ctx context.Context, a memory.Access) (HealthView, error) {
	if err := check(a); err != nil {
		return HealthView{}, err
	}
	now := s.now()
	h, err := s.st.Health(ctx, a.Project, now.Add(-week))
	if err != nil {
		return HealthView{}, err
	}
	v := HealthView{Project: a.Project, Facts: Count{h.Facts, h.FactsSince}, Journal: Count{h.Journal, h.JournalSince},
		Folds: Count{h.Folds, h.FoldsSince}, Proposals: PendingProposals{Count: h.PendingProposals, OldestAt: h.OldestPending},
		GoalUpdatedAt: h.GoalUpdatedAt, PlanUpdatedAt: h.PlanUpdatedAt, NeverHit: h.NeverHit, TopHit: make([]HitFact, 0, len(h.TopHit)),
		Archived: h.ArchivedByReason}
	if h.OldestPending != nil {
		v.Proposals.OldestAgeSeconds = int64(now.Sub(*h.OldestPending).Seconds())
	}
	v.Merges, v.Superseded, v.LLM = Count{h.Merges, h.MergesSince}, h.Superseded, LLMUse{h.LLMCalls, h.LLMTokens}
	v.Conflicts = OpenConflicts{Count: h.OpenConflicts, OldestAt: h.OldestConflict}
	v.ConflictChecking = s.conflictChecking()
	if h.OldestConflict != nil {
		v.Conflicts.OldestAgeSeconds = int64(now.Sub(*h.OldestConflict).Seconds())
	}
	for _, m := range h.TopHit {
		v.TopHit = append(v.TopHit, HitFact{ID: m.ID, Kind: m.Kind, Text: m.Text, HitCount: m.HitCount})
	}
	if h.MapGeneratedAt != nil {
		v.MapGeneratedAt, v.MapStale = h.MapGeneratedAt, s.mapStale(*h.MapGeneratedAt)
	}
	return v, nil
}
