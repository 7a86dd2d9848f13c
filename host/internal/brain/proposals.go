package brain

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/aymanbagabas/go-udiff"
	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
)

// MaxReasonBytes bounds a proposal's reason.
const MaxReasonBytes = 2000

// ProposeRequest is an agent's suggested goal or plan.
type ProposeRequest struct {
	Layer   string // goal or plan
	Text    string
	Reason  string
	Agent   string
	Session string
}

// ProposalView is a proposal as the inbox shows it.
type ProposalView struct {
	ID      uuid.UUID `json:"id"`
	Project string    `json:"project"`
	Layer   string    `json:"layer"`
	// Status is pending, approved, rejected or stale (the document changed since the proposal
	// was made, so approving it would overwrite a version its author never saw).
	Status      string     `json:"status"`
	Text        string     `json:"text"`
	Reason      string     `json:"reason,omitempty"`
	Agent       string     `json:"agent,omitempty"`
	Session     string     `json:"session,omitempty"`
	ProposedBy  string     `json:"proposed_by,omitempty"` // the token's name
	BaseVersion int64      `json:"base_version"`          // 0: the project had no document yet
	CreatedAt   time.Time  `json:"created_at"`
	DecidedBy   string     `json:"decided_by,omitempty"`
	DecidedAt   *time.Time `json:"decided_at,omitempty"`
}

func proposalView(p store.Proposal) ProposalView {
	return ProposalView{ID: p.ID, Project: p.ScopeKey, Layer: string(p.Layer), Status: string(p.Status), Text: p.Text, Reason: p.Reason,
		Agent: p.Agent, Session: p.Session, ProposedBy: p.Actor, BaseVersion: p.BaseVersion, CreatedAt: p.CreatedAt,
		DecidedBy: p.DecidedBy, DecidedAt: p.DecidedAt}
}

// ProposeResult is what an agent is told after proposing.
type ProposeResult struct {
	Proposal ProposalView `json:"proposal"`
	// Duplicate is set when an identical proposal was already pending; it is returned instead.
	Duplicate bool `json:"duplicate,omitempty"`
}

// Propose records an agent's suggested goal or plan in the project's inbox; nothing changes
// until a human approves it. Proposing the document's current text, or a text already
// pending, adds nothing.
func (s *Service) Propose(ctx context.Context, a memory.Access, req ProposeRequest) (ProposeResult, error) {
	if err := check(a); err != nil {
		return ProposeResult{}, err
	}
	kind, err := parseDocument("layer", req.Layer)
	if err != nil {
		return ProposeResult{}, err
	}
	text, err := s.documentText(req.Text)
	if err != nil {
		return ProposeResult{}, err
	}
	if err := s.line("reason", &req.Reason, MaxReasonBytes); err != nil {
		return ProposeResult{}, err
	}
	if err := s.line("agent", &req.Agent, rules.MaxProvenanceBytes); err != nil {
		return ProposeResult{}, err
	}
	if err := s.line("session", &req.Session, rules.MaxProvenanceBytes); err != nil {
		return ProposeResult{}, err
	}
	cur, err := s.st.Document(ctx, a.Project, kind)
	switch {
	case err == nil && cur.Text == text:
		return ProposeResult{}, rules.Errf("text", "is already the project's %s; there is nothing to propose", kind)
	case err != nil && !errors.Is(err, rules.ErrNotFound):
		return ProposeResult{}, err
	}
	s.proposing.Lock()
	defer s.proposing.Unlock()
	pending, err := s.st.Proposals(ctx, store.ProposalQuery{ScopeKey: a.Project, Statuses: []store.ProposalStatus{store.ProposalPending}, Limit: MaxInbox})
	if err != nil {
		return ProposeResult{}, err
	}
	for _, p := range pending {
		if p.Layer == kind && p.Text == text {
			return ProposeResult{Proposal: proposalView(p), Duplicate: true}, nil
		}
	}
	if limit := s.cfg.MaxPendingProposals; len(pending) >= limit {
		return ProposeResult{}, &rules.LimitError{Retry: pendingRetry, Message: fmt.Sprintf(
			"limit reached: project %q already has %d pending proposals, the limit (brain.max_pending_proposals); "+
				"nothing was filed. An operator reviews them with `memhost project inbox` (approve or reject); propose again after that",
			a.Project, limit)}
	}
	p, err := s.st.CreateProposal(ctx, store.Proposal{ID: uuid.Must(uuid.NewV7()), ScopeKey: a.Project, Layer: kind, Text: text,
		Reason: req.Reason, Agent: req.Agent, Session: req.Session, Actor: a.Actor})
	if err != nil {
		return ProposeResult{}, err
	}
	return ProposeResult{Proposal: proposalView(p)}, nil
}

// Inbox limits. MaxInbox also bounds MaxPendingProposals: Propose reads every pending
// proposal, in one page, to find a duplicate.
const (
	defaultInbox = 50
	MaxInbox     = 500
)

// DefaultMaxPendingProposals is Config.MaxPendingProposals unless configured.
const DefaultMaxPendingProposals = 100

// pendingRetry is the Retry-After of a proposal refused for the cap: proposals are reviewed
// on a person's schedule, so asking again within minutes only repeats the refusal.
const pendingRetry = time.Hour

// InboxRequest lists a project's proposals.
type InboxRequest struct {
	// Status filters: pending (the default), stale, approved, rejected or all.
	Status string
	Limit  int // default 50, at most 500
}

// InboxPage is a project's proposals, newest first.
type InboxPage struct {
	Project   string         `json:"project"`
	Proposals []ProposalView `json:"proposals"`
}

// Inbox lists the project's proposals, newest first.
func (s *Service) Inbox(ctx context.Context, a memory.Access, req InboxRequest) (InboxPage, error) {
	limit, err := listLimit(a, req.Limit, defaultInbox, MaxInbox)
	if err != nil {
		return InboxPage{}, err
	}
	statuses, err := statusFilter(req.Status, store.ProposalPending, store.ProposalPending, store.ProposalStale, store.ProposalApproved, store.ProposalRejected)
	if err != nil {
		return InboxPage{}, err
	}
	ps, err := s.st.Proposals(ctx, store.ProposalQuery{ScopeKey: a.Project, Limit: limit, Statuses: statuses})
	if err != nil {
		return InboxPage{}, err
	}
	return InboxPage{Project: a.Project, Proposals: listPage(ps, proposalView)}, nil
}

// ProposalDetail is one proposal with the document it would replace and the difference.
type ProposalDetail struct {
	ProposalView
	// Current is the document's live text ("" when the project has none).
	Current        string `json:"current"`
	CurrentVersion int64  `json:"current_version"`
	// Diff is a unified diff from Current to the proposed text.
	Diff string `json:"diff"`
}

// Proposal shows one of the project's proposals next to the live document. Another
// project's proposal is not found.
func (s *Service) Proposal(ctx context.Context, a memory.Access, id uuid.UUID) (ProposalDetail, error) {
	p, err := s.proposal(ctx, a, id)
	if err != nil {
		return ProposalDetail{}, err
	}
	d := ProposalDetail{ProposalView: proposalView(p)}
	cur, err := s.st.Document(ctx, a.Project, p.Layer)
	switch {
	case err == nil:
		d.Current, d.CurrentVersion = cur.Text, cur.Version
	case !errors.Is(err, rules.ErrNotFound):
		return ProposalDetail{}, err
	}
	d.Diff = udiff.Unified("current "+string(p.Layer), "proposed "+string(p.Layer), withNewline(d.Current), withNewline(p.Text))
	return d, nil
}

// withNewline ends a non-empty text with a line break, so the diff does not flag the last line.
func withNewline(s string) string {
	if s == "" || s[len(s)-1] == '\n' {
		return s
	}
	return s + "\n"
}

func (s *Service) proposal(ctx context.Context, a memory.Access, id uuid.UUID) (store.Proposal, error) {
	if err := check(a); err != nil {
		return store.Proposal{}, err
	}
	p, err := s.st.Proposal(ctx, a.Project, id)
	if errors.Is(err, rules.ErrNotFound) {
		return p, notFound("not found: project %q has no proposal %s", a.Project, id)
	}
	return p, err
}

// DecisionResult is an approved or rejected proposal and, after an approval, the document.
type DecisionResult struct {
	Proposal ProposalView  `json:"proposal"`
	Document *DocumentView `json:"document,omitempty"`
}

// Approve applies a pending proposal: the document takes its text, the old version stays in
// history, and the proposal records who approved it. A proposal whose document changed since
// it was made is marked stale and nothing is applied. Needs the admin grant.
func (s *Service) Approve(ctx context.Context, a memory.Access, id uuid.UUID) (DecisionResult, error) {
	if !a.Admin {
		return DecisionResult{}, forbidden("forbidden: approving a proposal needs a token with the admin scope")
	}
	p, err := s.proposal(ctx, a, id)
	if err != nil {
		return DecisionResult{}, err
	}
	if err := decidable(p); err != nil {
		return DecisionResult{}, err
	}
	vec, err := s.mem.EmbedDocument(ctx, p.Text)
	if err != nil {
		return DecisionResult{}, err
	}
	p, m, err := s.st.ApproveProposal(ctx, a.Project, id, store.DocumentWrite{ID: uuid.Must(uuid.NewV7()), Vector: vec,
		Provenance: store.Provenance{Agent: p.Agent, Session: p.Session, Source: "proposal"}, Actor: a.Actor,
		Detail: map[string]any{"proposal": id.String(), "proposed_by": p.Actor}})
	if err != nil {
		if derr := decidable(p); derr != nil && (errors.Is(err, store.ErrStale) || errors.Is(err, store.ErrDecided)) {
			return DecisionResult{}, derr
		}
		return DecisionResult{}, err
	}
	s.mem.Indexed(m)
	doc := documentView(m)
	return DecisionResult{Proposal: proposalView(p), Document: &doc}, nil
}

// Reject turns a pending or stale proposal down; it stays in the inbox as rejected. Needs the
// admin grant.
func (s *Service) Reject(ctx context.Context, a memory.Access, id uuid.UUID) (DecisionResult, error) {
	if !a.Admin {
		return DecisionResult{}, forbidden("forbidden: rejecting a proposal needs a token with the admin scope")
	}
	if _, err := s.proposal(ctx, a, id); err != nil {
		return DecisionResult{}, err
	}
	p, err := s.st.RejectProposal(ctx, a.Project, id, a.Actor)
	if derr := decidable(p); derr != nil && errors.Is(err, store.ErrDecided) {
		return DecisionResult{}, derr
	}
	if err != nil {
		return DecisionResult{}, err
	}
	return DecisionResult{Proposal: proposalView(p)}, nil
}

// decidable says why p cannot be approved, if it cannot.
func decidable(p store.Proposal) error {
	switch p.Status {
	case store.ProposalStale:
		return conflict("conflict: proposal %s is stale: the project's %s changed after it was made, so it was not applied; "+
			"reject it, or propose again against the current %s", p.ID, p.Layer, p.Layer)
	case store.ProposalApproved, store.ProposalRejected:
		return conflict("conflict: proposal %s was already %s by %s", p.ID, p.Status, p.DecidedBy)
	}
	return nil
}
