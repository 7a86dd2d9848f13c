package mcpserver

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
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
	Text       string   `json:"text" jsonschema:"One fact in one or two sentences that stand alone; at most {max_text_bytes} bytes."`
	Kind       string   `json:"kind,omitempty" jsonschema:"fact (default), decision, convention, gotcha, preference, error_pattern (an error and its fix) or reference (where something lives)."`
	Scope      string   `json:"scope,omitempty" jsonschema:"project (default) or global (every project; admin token)."`
	Importance *float64 `json:"importance,omitempty" jsonschema:"0 to 1, default 0.5; 0.8+ only if ignoring it breaks builds or loses data."`
	Confidence *float64 `json:"confidence,omitempty" jsonschema:"How sure you are, 0 to 1; default 0.8."`
	Pinned     bool     `json:"pinned,omitempty" jsonschema:"Always rank at full strength; use sparingly."`
	Where
	Author
}

// SearchInput is memory_search's arguments.
type SearchInput struct {
	Query           string   `json:"query" jsonschema:"{query}"`
	TopK            int      `json:"top_k,omitempty" jsonschema:"{top_k}"`
	Kinds           []string `json:"kinds,omitempty" jsonschema:"{kinds}"`
	MinScore        float64  `json:"min_score,omitempty" jsonschema:"{min_score}"`
	IncludeArchived bool     `json:"include_archived,omitempty" jsonschema:"{include_archived}"`
	Where
}

// GetInput is memory_get's arguments.
type GetInput struct {
	ID string `json:"id" jsonschema:"{id}"`
	Where
}

// ListInput is memory_list's arguments.
type ListInput struct {
	Kinds           []string `json:"kinds,omitempty" jsonschema:"{kinds}"`
	IncludeArchived bool     `json:"include_archived,omitempty" jsonschema:"{include_archived}"`
	Limit           int      `json:"limit,omitempty" jsonschema:"1 to 500; default 50."`
	Cursor          string   `json:"cursor,omitempty" jsonschema:"{cursor}"`
	Where
}

// ArchiveInput is memory_archive's arguments.
type ArchiveInput struct {
	ID     string `json:"id" jsonschema:"{id}"`
	Reason string `json:"reason,omitempty" jsonschema:"Why, kept in its history (e.g. 'moved from npm to pnpm')."`
	Where
}

// IDInput is the arguments of memory_restore and memory_history.
type IDInput struct {
	ID string `json:"id" jsonschema:"{id}"`
	Where
}

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
	brain    *brain.Service // records sessions' uses; nil records none
	limits   auth.Limits
	log      *slog.Logger
	describe func(string) string // fills the placeholders of input descriptions
}

type targeted interface{ where() (project, cwd string) }

func (t *tools) register(srv *mcp.Server) {
	// memory_store is not destructive because nothing is lost: a fold keeps the folded text in
	// merged_from and the history. It is not idempotent: repeating an identical store makes no
	// duplicate (it folds into the same memory and returns the same id) but it does bump
	// deduped_count and append a history entry, which is an additional effect.
	addTool(srv, t, toolSpec{name: ToolStore, title: "Save a project memory", write: true,
		description: "Save one durable fact a future session would need (convention, decision, gotcha, error fix, preference, where something lives). " +
			"Not task state, secrets or what the code shows. A paraphrase folds into the existing memory."}, t.store)
	// memory_search is read-only. It changes nothing (being shown is not a use; see
	// memory.Service.Search), and clients use the hint to decide whether a call needs the
	// user's approval: a lookup must not.
	addTool(srv, t, toolSpec{name: ToolSearch, title: "Search project memory",
		description: "Search what agents saved about this project, best match first. " +
			"Use it before work that depends on how the project does things, and on an error that may have been seen before."}, t.search)
	addTool(srv, t, toolSpec{name: ToolGet, title: "Get one memory",
		description: "Read one memory with its provenance and what folded into it. Counts as a use, which ranks it higher: get the memories you act on."}, t.get)
	addTool(srv, t, toolSpec{name: ToolList, title: "List project memories",
		description: "List the project's memories newest first, a page at a time; to find something, use memory_search."}, t.list)
	// memory_archive is destructive. It is a soft delete (restorable with memory_restore until
	// purge), but it hides the memory from every agent's search and list, so a client should
	// treat it as removing information. It is idempotent: archiving an archived memory changes
	// nothing and records nothing.
	addTool(srv, t, toolSpec{name: ToolArchive, title: "Archive a memory", write: true, destructive: true, idempotent: true,
		description: "Archive a wrong or obsolete memory (restorable), with a reason. To correct one, archive it and store the corrected fact."}, t.archive)
	// memory_restore: additive (it makes a memory visible again) and idempotent.
	addTool(srv, t, toolSpec{name: ToolRestore, title: "Restore an archived memory", write: true, idempotent: true,
		description: "Bring back a memory archived by mistake."}, t.restore)
	addTool(srv, t, toolSpec{name: ToolHistory, title: "Memory history",
		description: "How a memory changed, oldest first, with who and when."}, t.history)
}

// runFunc serves one tool call once the caller, scope, project and rate limit are settled.
type runFunc[In, Out any] func(ctx context.Context, c caller, a memory.Access, in In) (Out, error)

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
	res, err := t.svc.Store(ctx, a, memory.StoreRequest{
		Text: in.Text, Kind: in.Kind, Scope: in.Scope, Importance: in.Importance, Confidence: in.Confidence,
		Pinned: in.Pinned, Agent: agent, Session: in.Session, Source: "mcp",
	})
	if err == nil {
		t.record(ctx, c, a, []brain.Use{{ID: res.Memory.ID, Event: store.EventStored, Channel: "store"}})
	}
	return res, err
}

func (t *tools) search(ctx context.Context, c caller, a memory.Access, in SearchInput) (SearchOutput, error) {
	res, err := t.svc.Search(ctx, a, memory.SearchRequest{
		Query: in.Query, TopK: in.TopK, Kinds: in.Kinds, MinScore: in.MinScore, IncludeArchived: in.IncludeArchived,
	})
	if err != nil {
		return SearchOutput{}, err
	}
	if res.Hits == nil {
		res.Hits = []memory.SearchHit{}
	}
	t.record(ctx, c, a, searchUses(res.Hits))
	return SearchOutput{Project: a.Project, Query: in.Query, Hits: res.Hits, Degraded: res.Degraded}, nil
}

func (t *tools) get(ctx context.Context, c caller, a memory.Access, in GetInput) (memory.View, error) {
	id, err := t.svc.Lookup(ctx, a, in.ID)
	if err != nil {
		return memory.View{}, err
	}
	v, err := t.svc.Get(ctx, a, id)
	if err == nil {
		t.record(ctx, c, a, []brain.Use{retrieved(v.ID, v.Text, "get")})
	}
	return v, err
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
