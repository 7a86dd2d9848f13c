package brain

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/memhost/memhost/host/internal/brain/banner"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
)

// BannerRequest asks for one project's spawn banner.
type BannerRequest struct {
	CLI    string // claude, codex, gemini or "" (tool names are written as that CLI shows them)
	Budget int    // tokens; 0 means the configured default
	// Task is what the session was started to do (`claude -p TASK`), when known: the banner
	// then gains the facts most relevant to it (task.go). Its text is used for the search and
	// not kept.
	Task string
	// Session names the session the banner is for; its record then keeps the facts given.
	Session SessionRef
}

// BannerView is a rendered banner.
type BannerView struct {
	Project string `json:"project"`
	banner.Result
	// TaskMode says what the task did to the banner (TaskScoped, TaskWhole, TaskNone, TaskOff);
	// empty when the request named no task.
	TaskMode string `json:"task_mode,omitempty"`
}

// Candidate pool bounds: the pool grows with the budget, so a large banner has enough facts
// to fill it, and stays small for the common budget, so the fetch stays fast.
const (
	minCandidates      = 200
	candidatesPerToken = 8 // one candidate per 8 tokens of budget: a fact line takes ~20-40
	maxCandidates      = 4000
)

// Banner renders the project's spawn banner: goal, plan, map summary, the newest facts, the
// recent journal and the top facts by rank.Score in spawn mode (importance × quality), filled
// to the budget in package banner's priority order. Everything comes from this one project
// (no global memories, nothing of another project), read in one round trip.
//
// With a task, the facts most relevant to it come first (withTask); with a session, the
// session's record keeps the facts shown.
func (s *Service) Banner(ctx context.Context, a memory.Access, req BannerRequest) (BannerView, error) {
	k, recorded, err := sessionKey(req.Session, a.Project)
	if err != nil {
		return BannerView{}, err
	}
	if err := checkTask("task", req.Task); err != nil {
		return BannerView{}, err
	}
	in, opts, err := s.BannerInput(ctx, a, req)
	if err != nil {
		return BannerView{}, err
	}
	v, err := render(a.Project, in, opts)
	if err != nil {
		return BannerView{}, err
	}
	if req.Task != "" {
		if v, err = s.withTask(ctx, a, req.Task, in, opts, v); err != nil {
			return BannerView{}, err
		}
	}
	if recorded {
		uses := make([]Use, len(v.Given))
		for i, g := range v.Given {
			uses[i] = Use{ID: g.ID, Event: store.EventGiven, Channel: "banner", Tokens: g.Tokens}
		}
		if err := s.record(ctx, k, v.TaskMode == TaskScoped, uses); err != nil {
			return BannerView{}, err
		}
	}
	return v, nil
}

// render is the one rendering of a banner, for a CLI and for the console's preview alike.
func render(project string, in banner.Input, opts banner.Options) (BannerView, error) {
	res, err := banner.Render(in, opts)
	var fe *banner.FieldError
	if errors.As(err, &fe) {
		return BannerView{}, rules.Errf(fe.Field, "%s", fe.Message)
	}
	if err != nil {
		return BannerView{}, err
	}
	return BannerView{Project: project, Result: res}, nil
}

// BannerInput fetches and ranks what Banner renders, and the options it renders with (the
// benchmark times the two halves apart).
func (s *Service) BannerInput(ctx context.Context, a memory.Access, req BannerRequest) (banner.Input, banner.Options, error) {
	rows, opts, err := s.bannerRows(ctx, a, req)
	if err != nil {
		return banner.Input{}, opts, err
	}
	return s.bannerInput(a.Project, rows), opts, nil
}

// bannerRows reads what a banner may show and resolves its options.
func (s *Service) bannerRows(ctx context.Context, a memory.Access, req BannerRequest) (store.SpawnRows, banner.Options, error) {
	if err := check(a); err != nil {
		return store.SpawnRows{}, banner.Options{}, err
	}
	opts := s.cfg.Banner
	if req.Budget != 0 {
		opts.Budget = req.Budget
	}
	opts.CLI = banner.CLI(strings.ToLower(strings.TrimSpace(req.CLI)))
	if opts.Budget < banner.MinBudget || opts.Budget > banner.MaxBudget {
		return store.SpawnRows{}, opts, rules.Errf("budget", "%d is out of range %d..%d tokens", opts.Budget, banner.MinBudget, banner.MaxBudget)
	}
	rows, err := s.st.Spawn(ctx, store.SpawnQuery{ScopeKey: a.Project, Recent: max(opts.RecentWindow, 1), Journal: max(opts.JournalEntries, 1),
		Candidates: min(max(minCandidates, opts.Budget/candidatesPerToken), maxCandidates), Conflicts: banner.ConflictsShown})
	return rows, opts, err
}

// bannerInput ranks the candidate facts and shapes the rows for the renderer.
func (s *Service) bannerInput(key string, rows store.SpawnRows) banner.Input {
	now := s.now()
	in := banner.Input{Project: key, Now: now, Goal: bannerDoc(rows.Goal), Plan: bannerDoc(rows.Plan)}
	if rows.Map != nil {
		in.Map = banner.Document{Text: rows.Map.Summary, UpdatedAt: rows.Map.GeneratedAt}
	}
	type scored struct {
		m     store.Memory
		score float64
	}
	ranked := make([]scored, len(rows.Candidates))
	for i, m := range rows.Candidates {
		ranked[i] = scored{m, s.mem.SpawnScore(m, now)}
	}
	slices.SortFunc(ranked, func(x, y scored) int {
		switch {
		case x.score > y.score:
			return -1
		case x.score < y.score:
			return 1
		}
		return strings.Compare(x.m.ID.String(), y.m.ID.String())
	})
	in.Facts = make([]banner.Fact, len(ranked))
	for i, r := range ranked {
		in.Facts[i] = bannerFact(r.m)
	}
	in.Recent = make([]banner.Fact, len(rows.Recent))
	for i, m := range rows.Recent {
		in.Recent[i] = bannerFact(m)
	}
	in.Journal = make([]banner.JournalEntry, len(rows.Journal))
	for i, m := range rows.Journal {
		in.Journal[i] = banner.JournalEntry{Agent: m.Provenance.Agent, Session: m.Provenance.Session, Text: m.Text, At: m.CreatedAt}
	}
	in.OpenConflicts = int(rows.OpenConflicts)
	for _, c := range rows.Conflicts {
		in.Conflicts = append(in.Conflicts, banner.Conflict{Severity: c.Severity, TextA: c.TextA, TextB: c.TextB})
	}
	return in
}

func bannerDoc(m *store.Memory) banner.Document {
	if m == nil {
		return banner.Document{}
	}
	return banner.Document{Text: m.Text, UpdatedAt: m.UpdatedAt}
}

func bannerFact(m store.Memory) banner.Fact {
	return banner.Fact{ID: m.ID, Kind: string(m.Kind), Text: m.Text, Pinned: m.Pinned, UpdatedAt: m.UpdatedAt}
}
