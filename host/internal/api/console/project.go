package console

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/brain/projectmap"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/rules"
	"github.com/memhost/memhost/host/internal/core/store"
)

// The Project screen, one tab per part of the project's brain: goal and plan with their
// editors, the proposals inbox, the conflicts inbox, the archive by reason, the journal, the
// project map and the banner preview.

// tabs are the Project screen's tabs, in order.
var tabs = []struct{ Name, Label string }{
	{"goal", "Goal"}, {"plan", "Plan"}, {"proposals", "Proposals"}, {"conflicts", "Conflicts"},
	{"archived", "Archived"}, {"journal", "Journal"}, {"map", "Map"}, {"banner", "Banner preview"},
}

// projectView is every tab's data: which tab, and the tab's own.
type projectView struct {
	Tab  string
	Tabs []struct{ Name, Label string }
	Data any
}

func (c *Console) project(cl *call) error {
	acc, err := cl.resolve()
	if err != nil {
		return err
	}
	tab := cl.r.PathValue("tab")
	ctx := cl.r.Context()
	var data any
	switch tab {
	case "goal", "plan":
		data, err = c.documentTab(cl, acc, store.Kind(tab))
	case "proposals":
		data, err = c.Brain.Inbox(ctx, acc, brain.InboxRequest{Status: statusParam(cl, "pending"), Limit: brain.MaxInbox})
	case "conflicts":
		data, err = c.Brain.Conflicts(ctx, acc, brain.ConflictsRequest{Status: statusParam(cl, "open"), Limit: brain.MaxInbox})
	case "archived":
		data, err = c.archivedTab(cl, acc)
	case "journal":
		data, err = c.Brain.Journal(ctx, acc, brain.JournalQuery{Cursor: cl.r.FormValue("cursor")})
	case "map":
		data, err = c.mapTab(cl, acc)
	case "banner":
		data, err = c.bannerTab(cl, acc)
	default:
		return &pageNotFound{path: cl.r.URL.Path}
	}
	if err != nil {
		return err
	}
	c.render(cl.w, cl.r, cl, 200, "project", projectView{Tab: tab, Tabs: tabs, Data: data})
	return nil
}

// statusParam is the inbox's status filter, def when not given.
func statusParam(cl *call, def string) string {
	if s := cl.r.FormValue("status"); s != "" {
		return s
	}
	return def
}

// documentTab is the goal or plan with its editor.
type documentTab struct {
	Kind    store.Kind
	Doc     *brain.DocumentView
	Pending int
}

func (c *Console) documentTab(cl *call, acc memory.Access, kind store.Kind) (documentTab, error) {
	t := documentTab{Kind: kind}
	d, err := c.Brain.Document(cl.r.Context(), acc, kind)
	switch {
	case err == nil:
		t.Doc = &d
	case !isNotFound(err):
		return t, err
	}
	inbox, err := c.Brain.Inbox(cl.r.Context(), acc, brain.InboxRequest{Status: "pending", Limit: brain.MaxInbox})
	if err != nil {
		return t, err
	}
	for _, p := range inbox.Proposals {
		if p.Layer == string(kind) {
			t.Pending++
		}
	}
	return t, nil
}

// setDocument saves the goal or plan from its editor (admin, as REST's PUT).
func (c *Console) setDocument(cl *call) error {
	acc, err := cl.resolve()
	if err != nil {
		return err
	}
	kind := store.Kind(cl.r.PathValue("doc"))
	if kind != store.KindGoal && kind != store.KindPlan {
		return &pageNotFound{path: cl.r.URL.Path}
	}
	if _, err := c.Brain.SetDocument(cl.r.Context(), acc, kind, brain.SetRequest{Text: normalizeNewlines(cl.r.PostFormValue("text")), Source: "console"}); err != nil {
		return err
	}
	return cl.redirect(pageURL("project/"+string(kind), "project", acc.Project), "Saved. Pending proposals for it are now stale.")
}

// proposalView is one proposal beside the document it would replace.
type proposalView struct {
	P    brain.ProposalDetail
	Diff diffView
}

func (c *Console) proposal(cl *call) error {
	acc, id, err := cl.target(c.Brain.ProposalID)
	if err != nil {
		return err
	}
	p, err := c.Brain.Proposal(cl.r.Context(), acc, id)
	if err != nil {
		return err
	}
	v := proposalView{P: p, Diff: wordDiff(rules.Printable(p.Current), rules.Printable(p.Text))}
	c.render(cl.w, cl.r, cl, 200, "proposal", v)
	return nil
}

func (c *Console) decideProposal(cl *call) error {
	acc, id, err := cl.target(c.Brain.ProposalID)
	if err != nil {
		return err
	}
	var res brain.DecisionResult
	switch cl.r.PathValue("decision") {
	case "approve":
		res, err = c.Brain.Approve(cl.r.Context(), acc, id)
	case "reject":
		res, err = c.Brain.Reject(cl.r.Context(), acc, id)
	default:
		return &pageNotFound{path: cl.r.URL.Path}
	}
	if err != nil {
		return err
	}
	note := "Proposal " + res.Proposal.Status + "."
	if res.Proposal.Status == "stale" {
		note = "Not applied: the " + res.Proposal.Layer + " changed since this proposal was made (it is stale now)."
	}
	return cl.redirect(pageURL("project/proposals", "project", acc.Project), note)
}

func (c *Console) decideConflict(cl *call) error {
	acc, id, err := cl.target(c.Brain.ConflictID)
	if err != nil {
		return err
	}
	var v brain.ConflictView
	switch cl.r.PathValue("decision") {
	case "accept":
		v, err = c.Brain.AcceptConflict(cl.r.Context(), acc, id, cl.r.PostFormValue("archive"))
	case "dismiss":
		v, err = c.Brain.DismissConflict(cl.r.Context(), acc, id)
	default:
		return &pageNotFound{path: cl.r.URL.Path}
	}
	if err != nil {
		return err
	}
	note := "Conflict " + v.Status + "."
	if v.Archived != nil {
		note += " The memory you chose was archived; restore it from the Archived tab if needed."
	}
	return cl.redirect(pageURL("project/conflicts", "project", acc.Project), note)
}

// archivedTab is the project's archived memories grouped by reason (as the health snapshot
// counts them), one group's memories listed.
type archivedTab struct {
	Reasons []reasonCount
	Reason  string
	Page    memory.ListPage
	Next    string
}

type reasonCount struct {
	Reason string
	Count  int64
}

// archivedPage is how many archived memories the tab lists at once.
const archivedPage = 100

func (c *Console) archivedTab(cl *call, acc memory.Access) (archivedTab, error) {
	h, err := c.Brain.Health(cl.r.Context(), acc)
	if err != nil {
		return archivedTab{}, err
	}
	t := archivedTab{Reason: cl.r.FormValue("reason")}
	for r, n := range h.Archived {
		t.Reasons = append(t.Reasons, reasonCount{r, n})
	}
	slices.SortFunc(t.Reasons, func(a, b reasonCount) int {
		if a.Count != b.Count {
			return int(b.Count - a.Count)
		}
		return strings.Compare(a.Reason, b.Reason)
	})
	if t.Reason == "" && len(t.Reasons) > 0 {
		t.Reason = t.Reasons[0].Reason
	}
	if len(t.Reasons) == 0 {
		return t, nil
	}
	// Journal entries are archived too (a journal prune): the archive lists them with the facts.
	kinds := []string{string(store.KindJournal)}
	for _, k := range store.Kinds {
		kinds = append(kinds, string(k))
	}
	t.Page, err = c.Service.List(cl.r.Context(), acc, memory.ListRequest{Kinds: kinds, IncludeArchived: true, ExcludeGlobal: true,
		Filter: store.Filter{Archived: true, ArchivedReason: t.Reason}, Limit: archivedPage, Cursor: cl.r.FormValue("cursor")})
	if err != nil {
		return t, err
	}
	if t.Page.Next != "" {
		t.Next = pageURL("project/archived", "project", acc.Project, "reason", t.Reason, "cursor", t.Page.Next)
	}
	return t, nil
}

// mapTab is the project map: its summary (what the banner embeds) and its parts.
type mapTab struct {
	View    *brain.MapView
	Map     *projectmap.Map
	Missing string
}

func (c *Console) mapTab(cl *call, acc memory.Access) (mapTab, error) {
	v, err := c.Brain.Map(cl.r.Context(), acc, brain.MapRequest{})
	if isNotFound(err) {
		return mapTab{Missing: problemText(err)}, nil
	}
	if err != nil {
		return mapTab{}, err
	}
	t := mapTab{View: &v}
	var m projectmap.Map
	if len(v.Map) > 0 && json.Unmarshal(v.Map, &m) == nil {
		t.Map = &m
	}
	return t, nil
}

// bannerTab is the banner preview for one CLI and budget.
type bannerTab struct {
	CLI     string
	CLIs    []string
	Budget  int
	Preview brain.BannerPreview
}

func (c *Console) bannerTab(cl *call, acc memory.Access) (bannerTab, error) {
	t := bannerTab{CLI: cl.r.FormValue("cli"), CLIs: []string{"claude", "codex", "gemini"}}
	if t.CLI == "" {
		t.CLI = "claude"
	}
	if !slices.Contains(t.CLIs, t.CLI) {
		return t, errField("cli", "%q is not one of claude, codex, gemini", clip(20, t.CLI))
	}
	if s := cl.r.FormValue("budget"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return t, errField("budget", "must be a whole number of tokens")
		}
		t.Budget = n
	}
	p, err := c.Brain.BannerPreview(cl.r.Context(), acc, brain.BannerRequest{CLI: t.CLI, Budget: t.Budget})
	if err != nil {
		return t, err
	}
	t.Preview, t.Budget = p, p.Budget
	return t, nil
}
