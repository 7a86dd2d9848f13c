package mcpserver

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memhost/memhost/host/internal/auth"
	"github.com/memhost/memhost/host/internal/memory"
	"github.com/memhost/memhost/host/internal/store"
)

// Tool names.
const (
	ToolStore   = "memory_store"
	ToolSearch  = "memory_search"
	ToolGet     = "memory_get"
	ToolList    = "memory_list"
	ToolArchive = "memory_archive"
	ToolRestore = "memory_restore"
	ToolHistory = "memory_history"
)

// StoreInput is memory_store's arguments.
type StoreInput struct {
	Text       string   `json:"text" jsonschema:"The fact to remember: one or two self-contained sentences that make sense without this conversation. One fact per call. Must not be empty; at most {max_text_bytes} bytes. Secrets are redacted before storage."`
	Kind       string   `json:"kind,omitempty" jsonschema:"What kind of memory this is: fact (default; something true about the project), decision (a choice made and why), convention (how things are done here), gotcha (a trap that cost time), preference (the user's taste), error_pattern (an error and its fix), reference (where to find something)."`
	Scope      string   `json:"scope,omitempty" jsonschema:"project (default): visible in this project only. global: visible in every project; needs a token with the admin scope."`
	Importance *float64 `json:"importance,omitempty" jsonschema:"How much this matters when ranking, 0 to 1; default 0.5. Use 0.8 or more only for things that break builds or lose data."`
	Confidence *float64 `json:"confidence,omitempty" jsonschema:"How sure you are that it is true, 0 to 1; default 0.8."`
	Pinned     bool     `json:"pinned,omitempty" jsonschema:"Pin the memory: always ranked at full strength and never folded away. Default false; use sparingly."`
	Project    string   `json:"project,omitempty" jsonschema:"Project key (e.g. github.com/acme/app) whose memory to use. Optional: a token bound to a project always uses that project; otherwise pass project or cwd. At most 512 bytes."`
	Cwd        string   `json:"cwd,omitempty" jsonschema:"Absolute path of your working directory; the memhost host derives the project key from its git remote, as the memhost CLI does. Used when project is empty. Only works when the host runs on the same machine."`
	Agent      string   `json:"agent,omitempty" jsonschema:"Name of the agent storing this, recorded as provenance. Default: the MCP client's name (e.g. claude-code). At most 200 bytes."`
	Session    string   `json:"session,omitempty" jsonschema:"Your session id, recorded as provenance. Optional; at most 200 bytes."`
}

// SearchInput is memory_search's arguments.
type SearchInput struct {
	Query           string   `json:"query" jsonschema:"What you want to know, in natural language or keywords (e.g. 'which package manager', 'test timezone failures'). Must not be empty; at most {max_text_bytes} bytes."`
	TopK            int      `json:"top_k,omitempty" jsonschema:"At most how many memories to return, 1 to {max_k}; default {default_k}. Fewer come back when fewer match."`
	Kinds           []string `json:"kinds,omitempty" jsonschema:"Only return these kinds (fact, decision, convention, gotcha, preference, error_pattern, reference). Default: all kinds."`
	MinScore        float64  `json:"min_score,omitempty" jsonschema:"Drop results scoring below this, 0 to 1; default 0 (no cut)."`
	IncludeArchived bool     `json:"include_archived,omitempty" jsonschema:"Also return archived memories. Default false."`
	Project         string   `json:"project,omitempty" jsonschema:"Project key (e.g. github.com/acme/app) whose memory to use. Optional: a token bound to a project always uses that project; otherwise pass project or cwd. At most 512 bytes."`
	Cwd             string   `json:"cwd,omitempty" jsonschema:"Absolute path of your working directory; the memhost host derives the project key from its git remote, as the memhost CLI does. Used when project is empty. Only works when the host runs on the same machine."`
}

// GetInput is memory_get's arguments.
type GetInput struct {
	ID      string `json:"id" jsonschema:"The memory's id (a UUID, or at least its first 8 hex digits as the spawn banner shows them) as returned by memory_search, memory_list or memory_store."`
	Project string `json:"project,omitempty" jsonschema:"Project key (e.g. github.com/acme/app) whose memory to use. Optional: a token bound to a project always uses that project; otherwise pass project or cwd. At most 512 bytes."`
	Cwd     string `json:"cwd,omitempty" jsonschema:"Absolute path of your working directory; the memhost host derives the project key from its git remote, as the memhost CLI does. Used when project is empty. Only works when the host runs on the same machine."`
}

// ListInput is memory_list's arguments.
type ListInput struct {
	Kinds           []string `json:"kinds,omitempty" jsonschema:"Only list these kinds (fact, decision, convention, gotcha, preference, error_pattern, reference). Default: all kinds."`
	IncludeArchived bool     `json:"include_archived,omitempty" jsonschema:"Also list archived memories. Default false."`
	Limit           int      `json:"limit,omitempty" jsonschema:"Page size, 1 to 500; default 50."`
	Cursor          string   `json:"cursor,omitempty" jsonschema:"next_cursor from the previous page; empty for the first (newest) page."`
	Project         string   `json:"project,omitempty" jsonschema:"Project key (e.g. github.com/acme/app) whose memory to use. Optional: a token bound to a project always uses that project; otherwise pass project or cwd. At most 512 bytes."`
	Cwd             string   `json:"cwd,omitempty" jsonschema:"Absolute path of your working directory; the memhost host derives the project key from its git remote, as the memhost CLI does. Used when project is empty. Only works when the host runs on the same machine."`
}

// ArchiveInput is memory_archive's arguments.
type ArchiveInput struct {
	ID      string `json:"id" jsonschema:"The memory's id (a UUID, or at least its first 8 hex digits)."`
	Reason  string `json:"reason,omitempty" jsonschema:"Why it is archived (e.g. 'we moved from npm to pnpm'); kept in its history. Optional; at most 500 bytes."`
	Project string `json:"project,omitempty" jsonschema:"Project key (e.g. github.com/acme/app) whose memory to use. Optional: a token bound to a project always uses that project; otherwise pass project or cwd. At most 512 bytes."`
	Cwd     string `json:"cwd,omitempty" jsonschema:"Absolute path of your working directory; the memhost host derives the project key from its git remote, as the memhost CLI does. Used when project is empty. Only works when the host runs on the same machine."`
}

// IDInput is the arguments of memory_restore and memory_history.
type IDInput struct {
	ID      string `json:"id" jsonschema:"The memory's id (a UUID, or at least its first 8 hex digits)."`
	Project string `json:"project,omitempty" jsonschema:"Project key (e.g. github.com/acme/app) whose memory to use. Optional: a token bound to a project always uses that project; otherwise pass project or cwd. At most 512 bytes."`
	Cwd     string `json:"cwd,omitempty" jsonschema:"Absolute path of your working directory; the memhost host derives the project key from its git remote, as the memhost CLI does. Used when project is empty. Only works when the host runs on the same machine."`
}

func (in StoreInput) where() (string, string)   { return in.Project, in.Cwd }
func (in SearchInput) where() (string, string)  { return in.Project, in.Cwd }
func (in GetInput) where() (string, string)     { return in.Project, in.Cwd }
func (in ListInput) where() (string, string)    { return in.Project, in.Cwd }
func (in ArchiveInput) where() (string, string) { return in.Project, in.Cwd }
func (in IDInput) where() (string, string)      { return in.Project, in.Cwd }

// SearchOutput is memory_search's result.
type SearchOutput struct {
	Project  string             `json:"project"`
	Query    string             `json:"query"`
	Hits     []memory.SearchHit `json:"hits"`
	Degraded string             `json:"degraded,omitempty"`
}

// ListOutput is memory_list's result.
type ListOutput struct {
	Project    string        `json:"project"`
	Memories   []memory.View `json:"memories"`
	NextCursor string        `json:"next_cursor,omitempty"`
}

// HistoryOutput is memory_history's result.
type HistoryOutput struct {
	ID      uuid.UUID            `json:"id"`
	Entries []store.HistoryEntry `json:"entries"`
}

// tools serves the memory tools for one mcp.Server.
type tools struct {
	svc      *memory.Service
	limits   auth.Limits
	log      *slog.Logger
	identify identifyFunc
	sizes    *strings.Replacer // fills the size limits into input descriptions
}

type targeted interface{ where() (project, cwd string) }

// Annotation values need addresses.
var (
	yes = ptr(true)
	no  = ptr(false)
)

func ptr[T any](v T) *T { return &v }

func (t *tools) register(srv *mcp.Server) {
	// memory_store: DestructiveHint false because nothing is lost: a fold keeps the folded text
	// in merged_from and the history. IdempotentHint false: repeating an identical store makes
	// no duplicate (it folds into the same memory and returns the same id) but it does bump
	// deduped_count and append a history entry, which is an additional effect.
	addTool(srv, t, &mcp.Tool{
		Name:  ToolStore,
		Title: "Save a project memory",
		Description: "Save one durable project fact that a future session (yours or another agent's) would need: a convention, decision, gotcha, " +
			"error and its fix, user preference, or where something lives. One fact per call, written to stand alone. " +
			"Not for ephemeral task state, progress notes, secrets, or anything obvious from the code. " +
			"A paraphrase of an existing memory is folded into it (the result says folded=true and returns its id) instead of creating a duplicate.",
		Annotations: &mcp.ToolAnnotations{Title: "Save a project memory", ReadOnlyHint: false, DestructiveHint: no, IdempotentHint: false, OpenWorldHint: no},
	}, auth.ScopeWrite, true, t.store)

	// memory_search: ReadOnlyHint true. It changes nothing (being shown is not a use; see
	// memory.Service.Search), and clients use the hint to decide whether a call needs the
	// user's approval: a lookup must not.
	addTool(srv, t, &mcp.Tool{
		Name:  ToolSearch,
		Title: "Search project memory",
		Description: "Search the project's shared memory for conventions, decisions, gotchas, error fixes, preferences and references that agents saved earlier. " +
			"Use it before work that depends on how this project does things, and when you hit an error that may have been seen before. " +
			"Returns the best matches first with a score in 0..1.",
		Annotations: &mcp.ToolAnnotations{Title: "Search project memory", ReadOnlyHint: true, DestructiveHint: no, IdempotentHint: true, OpenWorldHint: no},
	}, auth.ScopeRead, false, t.search)

	addTool(srv, t, &mcp.Tool{
		Name:  ToolGet,
		Title: "Get one memory",
		Description: "Read one memory by id, including provenance, hit count and what was folded into it. " +
			"Reading a memory counts as using it (its hit count goes up), which ranks it higher in later searches: get the memories you act on.",
		Annotations: &mcp.ToolAnnotations{Title: "Get one memory", ReadOnlyHint: true, DestructiveHint: no, IdempotentHint: true, OpenWorldHint: no},
	}, auth.ScopeRead, false, t.get)

	addTool(srv, t, &mcp.Tool{
		Name:  ToolList,
		Title: "List project memories",
		Description: "List the project's memories newest first, a page at a time (pass next_cursor to continue). " +
			"Use memory_search to find something specific; use this to review everything, e.g. before cleaning up.",
		Annotations: &mcp.ToolAnnotations{Title: "List project memories", ReadOnlyHint: true, DestructiveHint: no, IdempotentHint: true, OpenWorldHint: no},
	}, auth.ScopeRead, false, t.list)

	// memory_archive: DestructiveHint true. It is a soft delete (restorable with memory_restore
	// until purge), but it hides the memory from every agent's search and list, so a client
	// should treat it as removing information. IdempotentHint true: archiving an archived
	// memory changes nothing and records nothing.
	addTool(srv, t, &mcp.Tool{
		Name:  ToolArchive,
		Title: "Archive a memory",
		Description: "Archive a memory that is wrong or obsolete, so agents stop seeing it in search and list. " +
			"Give a reason. It stays in the history and can be brought back with memory_restore. " +
			"To correct a memory, archive it and store the corrected fact.",
		Annotations: &mcp.ToolAnnotations{Title: "Archive a memory", ReadOnlyHint: false, DestructiveHint: yes, IdempotentHint: true, OpenWorldHint: no},
	}, auth.ScopeWrite, true, t.archive)

	// memory_restore: additive (it makes a memory visible again) and idempotent.
	addTool(srv, t, &mcp.Tool{
		Name:        ToolRestore,
		Title:       "Restore an archived memory",
		Description: "Bring back a memory archived by mistake, so search and list show it again.",
		Annotations: &mcp.ToolAnnotations{Title: "Restore an archived memory", ReadOnlyHint: false, DestructiveHint: no, IdempotentHint: true, OpenWorldHint: no},
	}, auth.ScopeWrite, true, t.restore)

	addTool(srv, t, &mcp.Tool{
		Name:        ToolHistory,
		Title:       "Memory history",
		Description: "Show how a memory changed, oldest first: added, folded paraphrases, archived, restored, pinned; with who did it and when.",
		Annotations: &mcp.ToolAnnotations{Title: "Memory history", ReadOnlyHint: true, DestructiveHint: no, IdempotentHint: true, OpenWorldHint: no},
	}, auth.ScopeRead, false, t.history)
}

// runFunc serves one tool call once the caller, scope, project and rate limit are settled.
type runFunc[In, Out any] func(ctx context.Context, c caller, a memory.Access, in In) (Out, error)

// limitReplacer fills the {placeholders} of input descriptions with the limits this host
// enforces (they are configurable), so an agent reads the real ones rather than the defaults.
func limitReplacer(cfg memory.Config) *strings.Replacer {
	return strings.NewReplacer(
		"{max_text_bytes}", strconv.Itoa(cfg.MaxTextBytes),
		"{max_k}", strconv.Itoa(cfg.MaxK),
		"{default_k}", strconv.Itoa(cfg.DefaultK),
	)
}

func describeLimits(s *jsonschema.Schema, r *strings.Replacer) {
	if s == nil {
		return
	}
	s.Description = r.Replace(s.Description)
	for _, p := range s.Properties {
		describeLimits(p, r)
	}
	describeLimits(s.Items, r)
}

func scopeList(scopes []auth.Scope) string {
	if len(scopes) == 0 {
		return "no scopes"
	}
	names := make([]string, len(scopes))
	for i, s := range scopes {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

// schemaFor infers T's JSON schema. UUIDs are strings on the wire (they marshal as text),
// which plain inference would describe as arrays of 16 integers.
func schemaFor[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[uuid.UUID](): {Type: "string", Format: "uuid"},
	}})
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %T: %v", *new(T), err))
	}
	return s
}

func (t *tools) store(ctx context.Context, c caller, a memory.Access, in StoreInput) (memory.StoreResult, error) {
	agent := in.Agent
	if agent == "" {
		agent = c.client
	}
	return t.svc.Store(ctx, a, memory.StoreRequest{
		Text: in.Text, Kind: in.Kind, Scope: in.Scope, Importance: in.Importance, Confidence: in.Confidence,
		Pinned: in.Pinned, Agent: agent, Session: in.Session, Source: "mcp",
	})
}

func (t *tools) search(ctx context.Context, _ caller, a memory.Access, in SearchInput) (SearchOutput, error) {
	res, err := t.svc.Search(ctx, a, memory.SearchRequest{
		Query: in.Query, TopK: in.TopK, Kinds: in.Kinds, MinScore: in.MinScore, IncludeArchived: in.IncludeArchived,
	})
	if err != nil {
		return SearchOutput{}, err
	}
	if res.Hits == nil {
		res.Hits = []memory.SearchHit{}
	}
	return SearchOutput{Project: a.Project, Query: in.Query, Hits: res.Hits, Degraded: res.Degraded}, nil
}

func (t *tools) get(ctx context.Context, _ caller, a memory.Access, in GetInput) (memory.View, error) {
	id, err := t.svc.Lookup(ctx, a, in.ID)
	if err != nil {
		return memory.View{}, err
	}
	return t.svc.Get(ctx, a, id)
}

func (t *tools) list(ctx context.Context, _ caller, a memory.Access, in ListInput) (ListOutput, error) {
	page, err := t.svc.List(ctx, a, memory.ListRequest{Kinds: in.Kinds, IncludeArchived: in.IncludeArchived, Limit: in.Limit, Cursor: in.Cursor})
	if err != nil {
		return ListOutput{}, err
	}
	if page.Memories == nil {
		page.Memories = []memory.View{}
	}
	return ListOutput{Project: a.Project, Memories: page.Memories, NextCursor: page.Next}, nil
}

func (t *tools) archive(ctx context.Context, _ caller, a memory.Access, in ArchiveInput) (memory.View, error) {
	id, err := t.svc.Lookup(ctx, a, in.ID)
	if err != nil {
		return memory.View{}, err
	}
	return t.svc.Archive(ctx, a, id, in.Reason)
}

func (t *tools) restore(ctx context.Context, _ caller, a memory.Access, in IDInput) (memory.View, error) {
	id, err := t.svc.Lookup(ctx, a, in.ID)
	if err != nil {
		return memory.View{}, err
	}
	return t.svc.Restore(ctx, a, id)
}

func (t *tools) history(ctx context.Context, _ caller, a memory.Access, in IDInput) (HistoryOutput, error) {
	id, err := t.svc.Lookup(ctx, a, in.ID)
	if err != nil {
		return HistoryOutput{}, err
	}
	entries, err := t.svc.History(ctx, a, id)
	if err != nil {
		return HistoryOutput{}, err
	}
	if entries == nil {
		entries = []store.HistoryEntry{}
	}
	return HistoryOutput{ID: id, Entries: entries}, nil
}
