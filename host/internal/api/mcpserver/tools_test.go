package mcpserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/api/mcpserver"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
)

func TestToolsListShowsSchemasAndAnnotations(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cs := b.connect(t, b.token(t, "agent", writeScopes, projectA), "claude-code", "")
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)

	type hints struct{ readOnly, destructive, idempotent bool }
	want := map[string]hints{
		mcpserver.ToolStore:   {false, false, false},
		mcpserver.ToolSearch:  {true, false, true},
		mcpserver.ToolGet:     {true, false, true},
		mcpserver.ToolList:    {true, false, true},
		mcpserver.ToolArchive: {false, true, true},
		mcpserver.ToolRestore: {false, false, true},
		mcpserver.ToolHistory: {true, false, true},
	}
	required := map[string][]string{
		mcpserver.ToolStore: {"text"}, mcpserver.ToolSearch: {"query"}, mcpserver.ToolGet: {"id"},
		mcpserver.ToolArchive: {"id"}, mcpserver.ToolRestore: {"id"}, mcpserver.ToolHistory: {"id"},
	}
	require.Len(t, res.Tools, len(want))
	for _, tool := range res.Tools {
		h, known := want[tool.Name]
		require.True(t, known, tool.Name)
		require.NotEmpty(t, tool.Description, tool.Name)
		require.NotNil(t, tool.Annotations, tool.Name)
		require.Equal(t, h.readOnly, tool.Annotations.ReadOnlyHint, tool.Name)
		require.NotNil(t, tool.Annotations.DestructiveHint, tool.Name)
		require.Equal(t, h.destructive, *tool.Annotations.DestructiveHint, tool.Name)
		require.Equal(t, h.idempotent, tool.Annotations.IdempotentHint, tool.Name)
		require.NotNil(t, tool.Annotations.OpenWorldHint, tool.Name)
		require.False(t, *tool.Annotations.OpenWorldHint, tool.Name)
		require.NotNil(t, tool.OutputSchema, tool.Name)

		var schema struct {
			Type                 string                     `json:"type"`
			Properties           map[string]json.RawMessage `json:"properties"`
			Required             []string                   `json:"required"`
			AdditionalProperties *bool                      `json:"additionalProperties"`
		}
		raw, err := json.Marshal(tool.InputSchema)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(raw, &schema))
		require.Equal(t, "object", schema.Type, tool.Name)
		require.NotNil(t, schema.AdditionalProperties, "%s: unknown arguments must be rejected", tool.Name)
		require.False(t, *schema.AdditionalProperties, tool.Name)
		require.ElementsMatch(t, required[tool.Name], schema.Required, tool.Name)
		require.Contains(t, schema.Properties, "project", tool.Name)
		require.Contains(t, schema.Properties, "cwd", tool.Name)
		// The fields every tool has are explained once, in the server instructions (Codex sends
		// every schema with every request); the others describe themselves.
		for name, prop := range schema.Properties {
			var p struct{ Description string }
			require.NoError(t, json.Unmarshal(prop, &p))
			if name == "project" || name == "cwd" || name == "agent" || name == "session" {
				require.Empty(t, p.Description, "%s.%s", tool.Name, name)
				continue
			}
			require.NotEmpty(t, p.Description, "%s.%s has no description", tool.Name, name)
		}
	}
}

// TestSchemasDescribeTheConfiguredLimits: an operator who changes memory.max_text_bytes or the
// search k limits changes what agents read in the tool schemas, not only what is enforced.
func TestSchemasDescribeTheConfiguredLimits(t *testing.T) {
	t.Parallel()
	cfg := memory.DefaultConfig()
	cfg.MaxTextBytes, cfg.MaxK, cfg.DefaultK = 1000, 20, 5
	b := setup(t, func(o *setupOptions) { o.config = &cfg })
	cs := b.connect(t, b.token(t, "agent", writeScopes, projectA), "claude-code", "")
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	descriptions := map[string]string{}
	for _, tool := range res.Tools {
		raw, err := json.Marshal(tool.InputSchema)
		require.NoError(t, err)
		var schema struct {
			Properties map[string]struct{ Description string } `json:"properties"`
		}
		require.NoError(t, json.Unmarshal(raw, &schema))
		for name, p := range schema.Properties {
			require.NotContains(t, p.Description, "{", "%s.%s has an unfilled placeholder", tool.Name, name)
			descriptions[tool.Name+"."+name] = p.Description
		}
	}
	require.Contains(t, descriptions[mcpserver.ToolStore+".text"], "at most 1000 bytes")
	require.Contains(t, descriptions[mcpserver.ToolSearch+".query"], "at most 1000 bytes")
	require.Contains(t, descriptions[mcpserver.ToolSearch+".top_k"], "1 to 20; default 5")

	res2 := call(t, cs, mcpserver.ToolStore, map[string]any{"text": strings.Repeat("a", 1001)})
	require.True(t, res2.IsError, "the described limit is the enforced one")
}

// TestMemoryLifecycle runs the same story on each protocol version memhost serves, with the
// SDK's own client: store, search, fold a paraphrase, archive, restore, history.
func TestMemoryLifecycle(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"2025-06-18", "2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			cs := b.connect(t, b.token(t, "laptop", writeScopes, ""), "claude-code", version)
			require.Equal(t, version, cs.InitializeResult().ProtocolVersion)
			require.Equal(t, "memhost", cs.InitializeResult().ServerInfo.Name)
			at := map[string]any{"project": projectA}
			with := func(kv ...any) map[string]any {
				m := map[string]any{"project": projectA}
				for i := 0; i < len(kv); i += 2 {
					m[kv[i].(string)] = kv[i+1]
				}
				return m
			}

			first := ok[memory.StoreResult](t, cs, mcpserver.ToolStore, with("text", "We use pnpm, not npm, in this repo.", "kind", "convention"))
			require.False(t, first.Folded)
			require.Equal(t, "claude-code", first.Memory.Agent, "agent defaults to the MCP client's name")
			require.Equal(t, store.KindConvention, first.Memory.Kind)
			require.Equal(t, projectA, first.Memory.Project)

			found := ok[mcpserver.SearchOutput](t, cs, mcpserver.ToolSearch, with("query", "which package manager, npm or pnpm?"))
			require.Equal(t, projectA, found.Project)
			require.NotEmpty(t, found.Hits)
			require.Equal(t, first.ID, found.Hits[0].ID)

			para := ok[memory.StoreResult](t, cs, mcpserver.ToolStore, with("text", "This project uses pnpm instead of npm.", "agent", "codex"))
			require.True(t, para.Folded, "similarity %.3f", para.Similarity)
			require.Equal(t, first.ID, para.ID)
			require.Equal(t, 1, para.Memory.DedupedCount)

			got := ok[memory.View](t, cs, mcpserver.ToolGet, with("id", first.ID.String()))
			require.Equal(t, first.ID, got.ID)
			require.Len(t, got.MergedFrom, 1)

			archived := ok[memory.View](t, cs, mcpserver.ToolArchive, with("id", first.ID.String(), "reason", "moved to bun"))
			require.NotNil(t, archived.ArchivedAt)
			require.Equal(t, "moved to bun", archived.ArchivedReason)
			again := ok[memory.View](t, cs, mcpserver.ToolArchive, with("id", first.ID.String()))
			require.Equal(t, "moved to bun", again.ArchivedReason, "archiving twice changes nothing")

			gone := ok[mcpserver.SearchOutput](t, cs, mcpserver.ToolSearch, with("query", "pnpm npm"))
			for _, h := range gone.Hits {
				require.NotEqual(t, first.ID, h.ID, "archived memories leave search")
			}
			require.Empty(t, ok[mcpserver.ListOutput](t, cs, mcpserver.ToolList, at).Memories)
			withArchived := ok[mcpserver.SearchOutput](t, cs, mcpserver.ToolSearch, with("query", "pnpm npm", "include_archived", true))
			require.NotEmpty(t, withArchived.Hits)

			restored := ok[memory.View](t, cs, mcpserver.ToolRestore, with("id", first.ID.String()))
			require.Nil(t, restored.ArchivedAt)
			back := ok[mcpserver.SearchOutput](t, cs, mcpserver.ToolSearch, with("query", "pnpm npm"))
			require.NotEmpty(t, back.Hits)
			require.Equal(t, first.ID, back.Hits[0].ID)
			listed := ok[mcpserver.ListOutput](t, cs, mcpserver.ToolList, with("limit", 10))
			require.Len(t, listed.Memories, 1)

			hist := ok[mcpserver.HistoryOutput](t, cs, mcpserver.ToolHistory, with("id", first.ID.String()))
			require.Equal(t, first.ID, hist.ID)
			var events []store.Event
			for _, e := range hist.Entries {
				events = append(events, e.Event)
				require.Equal(t, "laptop", e.Actor, "history records the token name")
			}
			require.Equal(t, []store.Event{store.EventAdd, store.EventFold, store.EventArchive, store.EventRestore}, events)
		})
	}
}

func TestRepeatedStoreFoldsIntoOneMemory(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cs := b.connect(t, b.token(t, "agent", writeScopes, projectA), "gemini-cli", "")
	args := map[string]any{"text": "Integration tests need TZ=UTC or the date assertions fail.", "kind": "gotcha"}
	one := ok[memory.StoreResult](t, cs, mcpserver.ToolStore, args)
	two := ok[memory.StoreResult](t, cs, mcpserver.ToolStore, args)
	require.Equal(t, one.ID, two.ID)
	require.True(t, two.Exact)
	require.Equal(t, 1, b.countAll(t, projectA))
	require.Equal(t, "gemini-cli", one.Memory.Agent)
}

func TestBadInputIsAToolErrorAndStoresNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cs := b.connect(t, b.token(t, "agent", writeScopes, projectA), "claude-code", "")
	limit := memory.DefaultConfig().MaxTextBytes
	cases := []struct {
		name string
		tool string
		args map[string]any
		want []string
	}{
		{"empty text", mcpserver.ToolStore, map[string]any{"text": "  "}, []string{"text", "must not be empty"}},
		{"missing text", mcpserver.ToolStore, map[string]any{}, []string{"text"}},
		{"oversized text", mcpserver.ToolStore, map[string]any{"text": strings.Repeat("x", limit+1)}, []string{"text", "limit is 16384 bytes"}},
		{"invalid kind", mcpserver.ToolStore, map[string]any{"text": "x y", "kind": "rumour"}, []string{"kind", "rumour"}},
		{"importance out of range", mcpserver.ToolStore, map[string]any{"text": "x y", "importance": 1.5}, []string{"importance", "0..1"}},
		{"unknown argument", mcpserver.ToolStore, map[string]any{"text": "x y", "tags": []string{"a"}}, []string{"tags"}},
		{"wrong type", mcpserver.ToolStore, map[string]any{"text": 42}, []string{"text"}},
		{"global without admin", mcpserver.ToolStore, map[string]any{"text": "house style: tabs", "scope": "global"}, []string{"admin"}},
		{"top_k", mcpserver.ToolSearch, map[string]any{"query": "x", "top_k": 1000}, []string{"top_k", "1..100"}},
		{"unknown search argument", mcpserver.ToolSearch, map[string]any{"query": "x", "limit": 3}, []string{"limit"}},
		{"bad id", mcpserver.ToolGet, map[string]any{"id": "nope"}, []string{"id", "not a memory id"}},
		{"missing memory", mcpserver.ToolArchive, map[string]any{"id": "0190b5a0-0000-7000-8000-000000000000"}, []string{"not found"}},
		{"bad cursor", mcpserver.ToolList, map[string]any{"cursor": "???"}, []string{"cursor"}},
	}
	for _, tc := range cases {
		msg := toolErr(t, cs, tc.tool, tc.args)
		t.Logf("%s: %s", tc.name, msg)
		for _, w := range tc.want {
			require.Contains(t, msg, w, tc.name)
		}
	}
	require.Zero(t, b.countAll(t, projectA), "bad input changes nothing")
}

func TestProjectResolution(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cs := b.connect(t, b.token(t, "laptop", writeScopes, ""), "claude-code", "")

	msg := toolErr(t, cs, mcpserver.ToolStore, map[string]any{"text": "CI runs on Buildkite."})
	require.Contains(t, msg, "project")
	require.Contains(t, msg, "is required")

	dir := t.TempDir()
	byCwd := ok[memory.StoreResult](t, cs, mcpserver.ToolStore, map[string]any{"text": "CI runs on Buildkite.", "cwd": dir})
	require.NotEmpty(t, byCwd.Memory.Project, "cwd resolves to a project key on the host")
	got := ok[memory.View](t, cs, mcpserver.ToolGet, map[string]any{"id": byCwd.ID.String(), "project": byCwd.Memory.Project})
	require.Equal(t, byCwd.ID, got.ID)

	msg = toolErr(t, cs, mcpserver.ToolStore, map[string]any{"text": "x y", "cwd": dir + "/does/not/exist"})
	require.Contains(t, msg, "cwd")
	msg = toolErr(t, cs, mcpserver.ToolStore, map[string]any{"text": "x y", "cwd": dir, "project": projectB})
	require.Contains(t, msg, projectB)
	require.NotContains(t, msg, byCwd.Memory.Project, "the key a cwd resolves to is never echoed")
	msg = toolErr(t, cs, mcpserver.ToolStore, map[string]any{"text": "x y", "project": strings.Repeat("p", 513)})
	require.Contains(t, msg, "project")
	require.Contains(t, msg, "limit of 512 bytes")
}

func TestScopes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	writer := b.connect(t, b.token(t, "writer", writeScopes, projectA), "claude-code", "")
	stored := ok[memory.StoreResult](t, writer, mcpserver.ToolStore, map[string]any{"text": "Deploys go through Argo CD."})

	reader := b.connect(t, b.token(t, "dashboard", readScopes, projectA), "claude-code", "")
	for tool, args := range map[string]map[string]any{
		mcpserver.ToolStore:   {"text": "Releases are cut on Tuesdays."},
		mcpserver.ToolArchive: {"id": stored.ID.String()},
		mcpserver.ToolRestore: {"id": stored.ID.String()},
	} {
		msg := toolErr(t, reader, tool, args)
		require.Contains(t, msg, "forbidden", tool)
		require.Contains(t, msg, "memory:write", tool)
	}
	require.Equal(t, 1, b.countAll(t, projectA))
	require.NotEmpty(t, ok[mcpserver.SearchOutput](t, reader, mcpserver.ToolSearch, map[string]any{"query": "deploy Argo"}).Hits)
	require.Nil(t, ok[memory.View](t, reader, mcpserver.ToolGet, map[string]any{"id": stored.ID.String()}).ArchivedAt)

	writeOnly := b.connect(t, b.token(t, "ingest", []auth.Scope{auth.ScopeWrite}, projectA), "claude-code", "")
	require.Contains(t, toolErr(t, writeOnly, mcpserver.ToolSearch, map[string]any{"query": "deploy"}), "memory:read")

	admin := b.connect(t, b.token(t, "root", adminScopes, ""), "claude-code", "")
	global := ok[memory.StoreResult](t, admin, mcpserver.ToolStore, map[string]any{"text": "House style: tabs, not spaces.", "scope": "global", "project": projectA})
	require.Equal(t, store.ScopeGlobal, global.Memory.Scope)
	require.Contains(t, toolErr(t, writer, mcpserver.ToolArchive, map[string]any{"id": global.ID.String()}), "admin")
}

func TestBoundTokenStaysInItsProject(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.connect(t, b.token(t, "agent-a", writeScopes, projectA), "claude-code", "")
	bb := b.connect(t, b.token(t, "agent-b", writeScopes, projectB), "codex", "")

	secret := ok[memory.StoreResult](t, a, mcpserver.ToolStore, map[string]any{"text": "The staging database lives on db-staging-3."})
	require.Equal(t, projectA, secret.Memory.Project)

	msg := toolErr(t, a, mcpserver.ToolStore, map[string]any{"text": "x y", "project": projectB})
	require.Contains(t, msg, projectA)
	require.Contains(t, msg, projectB)
	msg = toolErr(t, bb, mcpserver.ToolSearch, map[string]any{"query": "staging database", "project": projectA})
	require.Contains(t, msg, projectA)
	require.Contains(t, msg, projectB)
	dir := t.TempDir()
	msg = toolErr(t, a, mcpserver.ToolList, map[string]any{"cwd": dir})
	require.Contains(t, msg, projectA)
	require.Contains(t, msg, "cwd is not a directory of that project")
	require.NotContains(t, msg, dir, "another directory's identity is never echoed")
	require.Equal(t, projectA, ok[mcpserver.ListOutput](t, a, mcpserver.ToolList, map[string]any{"cwd": "/no/such/dir/on/this/host"}).Project,
		"a cwd the host cannot resolve is only a hint next to the binding")

	for _, tool := range []string{mcpserver.ToolGet, mcpserver.ToolHistory, mcpserver.ToolArchive, mcpserver.ToolRestore} {
		require.Contains(t, toolErr(t, bb, tool, map[string]any{"id": secret.ID.String()}), "not found", tool)
	}
	require.Empty(t, ok[mcpserver.SearchOutput](t, bb, mcpserver.ToolSearch, map[string]any{"query": "staging database db-staging-3"}).Hits)
	require.Empty(t, ok[mcpserver.ListOutput](t, bb, mcpserver.ToolList, nil).Memories)
	require.Nil(t, ok[memory.View](t, a, mcpserver.ToolGet, map[string]any{"id": secret.ID.String()}).ArchivedAt, "B's attempts changed nothing")
	require.Zero(t, b.countAll(t, projectB))
}
