package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memhost/memhost/host/internal/api/access"
	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
)

// Project brain tool names.
const (
	ToolGoalGet       = "project_goal_get"
	ToolPlanGet       = "project_plan_get"
	ToolGoalSet       = "project_goal_set"
	ToolPlanSet       = "project_plan_set"
	ToolJournalAppend = "session_log_append"
	ToolJournal       = "project_journal"
	ToolProjectSearch = "project_search"
	ToolMap           = "project_map"
	ToolLoadContext   = "memory_load_context"
)

// projectInstructions is added to the server instructions when the project brain is served.
const projectInstructions = `At the start, load the project context (memory_load_context) unless your CLI showed it; project_search looks across memories, journal, goal and plan.
Before you finish, log what the session did and left open (session_log_append).`

// ProjectInput is the arguments of project_goal_get and project_plan_get.
type ProjectInput struct {
	Where
}

// ProposeInput is the arguments of project_goal_set and project_plan_set.
type ProposeInput struct {
	Text   string `json:"text" jsonschema:"The whole new text, not a diff; at most {max_text_bytes} bytes."`
	Reason string `json:"reason,omitempty" jsonschema:"Why, for the human who decides."`
	Author
	Where
}

// JournalAppendInput is session_log_append's arguments.
type JournalAppendInput struct {
	Text string `json:"text" jsonschema:"What this session did and left open, in a few sentences; at most {max_text_bytes} bytes."`
	Author
	Where
}

// JournalInput is project_journal's arguments.
type JournalInput struct {
	Limit  int    `json:"limit,omitempty" jsonschema:"1 to 200; default 20."`
	Cursor string `json:"cursor,omitempty" jsonschema:"{cursor}"`
	Where
}

// ProjectSearchInput is project_search's arguments.
type ProjectSearchInput struct {
	Query    string   `json:"query" jsonschema:"{query}"`
	Layers   []string `json:"layers,omitempty" jsonschema:"Any of fact, journal, goal, plan; default all."`
	TopK     int      `json:"top_k,omitempty" jsonschema:"{top_k}"`
	MinScore float64  `json:"min_score,omitempty" jsonschema:"{min_score}"`
	Where
}

// MapInput is project_map's arguments.
type MapInput struct {
	Refresh bool `json:"refresh,omitempty" jsonschema:"Rebuild it now (needs cwd and memory:write)."`
	Where
}

// LoadContextInput is memory_load_context's arguments.
type LoadContextInput struct {
	Budget int    `json:"budget,omitempty" jsonschema:"Most tokens, 300 to 32000; default: the host's banner budget."`
	CLI    string `json:"cli,omitempty" jsonschema:"claude, codex or gemini, to name tools as it does; default: from the client."`
	Where
}

// projectTools serves the project brain's tools beside the memory tools.
type projectTools struct {
	*tools
	brain *brain.Service
}

func (t *projectTools) register(srv *mcp.Server) {
	for _, d := range []struct {
		get, set    string
		kind        store.Kind
		description string
	}{
		{ToolGoalGet, ToolGoalSet, store.KindGoal, "Read the project's goal (what it is for, where it is going), as a human approved it."},
		{ToolPlanGet, ToolPlanSet, store.KindPlan, "Read the project's plan (what is worked on now and next), as a human approved it."},
	} {
		addTool(srv, t.tools, toolSpec{name: d.get, title: "Read the project's " + string(d.kind), description: d.description}, t.document(d.kind))
		// Setting the goal or plan only ever adds a proposal to the human's inbox: nothing is
		// lost or changed, so it is not destructive; proposing the same text twice returns the
		// pending proposal, so it is idempotent.
		addTool(srv, t.tools, toolSpec{name: d.set, title: "Propose a new " + string(d.kind), write: true, idempotent: true,
			description: "Propose a new " + string(d.kind) + " when it no longer matches reality: the whole text and why. " +
				"A human approves or rejects it in the memhost inbox; until then nothing changes."}, t.propose(d.kind))
	}
	addTool(srv, t.tools, toolSpec{name: ToolJournalAppend, title: "Log what this session did", write: true,
		description: "Log what this session did and left open, near its end, for the next session. Durable facts go to memory_store."}, t.appendJournal)
	addTool(srv, t.tools, toolSpec{name: ToolJournal, title: "Read the project journal",
		description: "What recent sessions did, newest first."}, t.journal)
	// project_search records nothing, like memory_search (see there).
	addTool(srv, t.tools, toolSpec{name: ToolProjectSearch, title: "Search everything known about the project",
		description: "Search memories, session journal, goal and plan at once, ranked together."}, t.search)
	// project_map may rebuild and store the map when the host can see the project; that
	// refreshes a cache and changes nothing an agent wrote, so the tool counts as a read, but
	// the build itself needs memory:write and is rate-limited (projectMap).
	addTool(srv, t.tools, toolSpec{name: ToolMap, title: "Project map",
		description: "The project's languages, build, test and lint commands, layout and recent git activity: read it instead of exploring the tree."}, t.projectMap)
	addTool(srv, t.tools, toolSpec{name: ToolLoadContext, title: "Load the project context",
		description: "The project's goal, plan, map, key memories and recent journal, within a token budget. Call it once at the start unless your CLI showed it."}, t.loadContext)
	t.registerConflicts(srv)
}

// DocumentOutput is project_goal_get's and project_plan_get's result.
type DocumentOutput struct {
	brain.DocumentView
}

// ProposeOutput is project_goal_set's and project_plan_set's result.
type ProposeOutput struct {
	brain.ProposeResult
}

// JournalAppendOutput is session_log_append's result.
type JournalAppendOutput struct {
	brain.AppendResult
}

// JournalOutput is project_journal's result.
type JournalOutput struct {
	brain.JournalPage
}

// ProjectSearchOutput is project_search's result.
type ProjectSearchOutput struct {
	brain.SearchResult
}

// MapOutput is project_map's result: brain.MapView with the map as a JSON object (its raw
// form would be described as bytes).
type MapOutput struct {
	Project     string         `json:"project"`
	GeneratedAt time.Time      `json:"generated_at"`
	UpdatedAt   time.Time      `json:"updated_at"`
	Fingerprint string         `json:"fingerprint,omitempty"`
	Stale       bool           `json:"stale"`
	Summary     string         `json:"summary"`
	Map         map[string]any `json:"map,omitempty"`
}

// LoadContextOutput is memory_load_context's result.
type LoadContextOutput struct {
	brain.BannerView
}

func (t *projectTools) document(kind store.Kind) runFunc[ProjectInput, DocumentOutput] {
	return func(ctx context.Context, _ caller, a memory.Access, _ ProjectInput) (DocumentOutput, error) {
		d, err := t.brain.Document(ctx, a, kind)
		return DocumentOutput{d}, err
	}
}

func (t *projectTools) propose(kind store.Kind) runFunc[ProposeInput, ProposeOutput] {
	return func(ctx context.Context, c caller, a memory.Access, in ProposeInput) (ProposeOutput, error) {
		res, err := t.brain.Propose(ctx, a, brain.ProposeRequest{Layer: string(kind), Text: in.Text, Reason: in.Reason,
			Agent: orDefault(in.Agent, c.client), Session: in.Session})
		return ProposeOutput{res}, err
	}
}

func (t *projectTools) appendJournal(ctx context.Context, c caller, a memory.Access, in JournalAppendInput) (JournalAppendOutput, error) {
	res, err := t.brain.AppendJournal(ctx, a, brain.JournalRequest{Text: in.Text, Agent: orDefault(in.Agent, c.client), Session: in.Session, Source: "mcp"})
	return JournalAppendOutput{res}, err
}

func (t *projectTools) journal(ctx context.Context, _ caller, a memory.Access, in JournalInput) (JournalOutput, error) {
	page, err := t.brain.Journal(ctx, a, brain.JournalQuery{Limit: in.Limit, Cursor: in.Cursor})
	return JournalOutput{page}, err
}

func (t *projectTools) search(ctx context.Context, c caller, a memory.Access, in ProjectSearchInput) (ProjectSearchOutput, error) {
	res, err := t.brain.Search(ctx, a, brain.SearchRequest{Query: in.Query, Layers: in.Layers, TopK: in.TopK, MinScore: in.MinScore})
	if err == nil {
		uses := make([]brain.Use, len(res.Hits))
		for i, h := range res.Hits {
			uses[i] = retrieved(h.ID, h.Text, "search")
		}
		t.record(ctx, c, a, uses)
	}
	return ProjectSearchOutput{res}, err
}

// projectMap answers the stored map, building it first from cwd when that is asked for
// (refresh) or due (missing or stale). A build walks the directory for seconds and stores the
// result, so it needs memory:write, a cwd on this host that is a directory of the caller's
// project (brain.Map checks it again), and a turn of the map-build rate limit. A caller who
// may not build gets the stored map, or is told what building one needs.
func (t *projectTools) projectMap(ctx context.Context, c caller, a memory.Access, in MapInput) (MapOutput, error) {
	canBuild := c.can(auth.ScopeWrite)
	if in.Refresh && !canBuild {
		return MapOutput{}, toolErrorf("forbidden: refresh builds the map, which needs a token with the %s scope; token %q has %s",
			auth.ScopeWrite, c.principal.Name, scopeList(c.principal.Scopes))
	}
	m, err := t.brain.Map(ctx, a, brain.MapRequest{})
	due := in.Refresh || errors.Is(err, rules.ErrNotFound) || (err == nil && m.Stale)
	build := due && canBuild && access.DirOfProject(in.Cwd, a.Project)
	if build {
		if limited := access.Limit(t.limits.MapBuilds, c.principal); limited != nil {
			if in.Refresh || err != nil {
				return MapOutput{}, limited
			}
			build = false // the stale map is still worth showing, and says it is stale
		}
	}
	switch {
	case build:
		m, err = t.brain.Map(ctx, a, brain.MapRequest{Dir: in.Cwd, Refresh: in.Refresh})
	case in.Refresh:
		m, err = t.brain.Map(ctx, a, brain.MapRequest{Refresh: true}) // says why it cannot
	case errors.Is(err, rules.ErrNotFound) && !canBuild:
		return MapOutput{}, &brain.Error{Kind: rules.ErrNotFound, Msg: fmt.Sprintf(
			"project %q has no map yet; building one needs a token with the %s scope (or run `memhost project map refresh` in the project)", a.Project, auth.ScopeWrite)}
	}
	if err != nil {
		return MapOutput{}, err
	}
	out := MapOutput{Project: m.Project, GeneratedAt: m.GeneratedAt, UpdatedAt: m.UpdatedAt, Fingerprint: m.Fingerprint, Stale: m.Stale, Summary: m.Summary}
	if err := json.Unmarshal(m.Map, &out.Map); err != nil {
		return MapOutput{}, fmt.Errorf("decode stored map: %w", err)
	}
	return out, nil
}

func (t *projectTools) loadContext(ctx context.Context, c caller, a memory.Access, in LoadContextInput) (LoadContextOutput, error) {
	cli := in.CLI
	if cli == "" {
		cli = cliOfClient(c.client)
	}
	// The banner records what it gives in the session the call names.
	sess := c.session
	if sess.Key != "" {
		sess.CLI = cli
	}
	b, err := t.brain.Banner(ctx, a, brain.BannerRequest{CLI: cli, Budget: in.Budget, Session: sess})
	return LoadContextOutput{b}, err
}

// cliOfClient maps an MCP client's name (claude-code, codex-mcp-client, gemini-cli-mcp-client)
// to the banner's CLI names; unknown clients get generic tool names.
func cliOfClient(name string) string {
	n := strings.ToLower(name)
	for _, cli := range []string{"claude", "codex", "gemini"} {
		if strings.Contains(n, cli) {
			return cli
		}
	}
	return ""
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
