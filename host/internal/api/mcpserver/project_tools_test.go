package mcpserver_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/access"
	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/api/mcpserver"
	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/brain/projectmap"
	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/host/internal/testkit/testlog"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
)

// setupBrain is setup with the project brain's tools served too (options: the rate limits).
func setupBrain(t *testing.T, opts ...func(*setupOptions)) (*bundle, *brain.Service) {
	t.Helper()
	var o setupOptions
	for _, fn := range opts {
		fn(&o)
	}
	pool, dsn := testdb.Migrated(t)
	emb := embeddertest.Launch(t, testplugins.BM25(t))
	st := pgstore.New(pool)
	svc := memory.New(st, lexical.New(), memory.Fixed(emb), nil, memory.DefaultConfig())
	br := brain.New(st, svc, brain.DefaultConfig())
	logs := &testlog.Buffer{}
	srv := mcpserver.New(svc, mcpserver.Options{Version: "test", Brain: br, Limits: o.limits,
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	tokens := auth.NewTokens(pool)
	hs := httptest.NewServer(srv.Handler(access.NewDoor(tokens)))
	t.Cleanup(hs.Close)
	return &bundle{svc: svc, tokens: tokens, server: srv, url: hs.URL, logs: logs, pool: pool, dsn: dsn}, br
}

var operatorA = memory.Access{Project: projectA, Admin: true, Actor: "operator"}

func TestProjectToolsAreListedWithSchemasAndHints(t *testing.T) {
	t.Parallel()
	b, _ := setupBrain(t)
	cs := b.connect(t, b.token(t, "agent", writeScopes, projectA), "claude-code", "")
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	type hints struct{ readOnly, destructive, idempotent bool }
	want := map[string]hints{
		mcpserver.ToolGoalGet: {true, false, true}, mcpserver.ToolPlanGet: {true, false, true},
		mcpserver.ToolGoalSet: {false, false, true}, mcpserver.ToolPlanSet: {false, false, true},
		mcpserver.ToolJournalAppend: {false, false, false}, mcpserver.ToolJournal: {true, false, true},
		mcpserver.ToolProjectSearch: {true, false, true}, mcpserver.ToolMap: {true, false, true},
		mcpserver.ToolLoadContext: {true, false, true},
	}
	outputs := map[string]string{ // a property each output schema must show (embedded views are flattened)
		mcpserver.ToolGoalGet: "layer", mcpserver.ToolGoalSet: "proposal", mcpserver.ToolJournalAppend: "entry",
		mcpserver.ToolJournal: "entries", mcpserver.ToolProjectSearch: "hits", mcpserver.ToolMap: "summary", mcpserver.ToolLoadContext: "text",
	}
	seen := 0
	for _, tool := range res.Tools {
		h, ok := want[tool.Name]
		if !ok {
			continue
		}
		seen++
		require.NotEmpty(t, tool.Description, tool.Name)
		require.Equal(t, h.readOnly, tool.Annotations.ReadOnlyHint, tool.Name)
		require.Equal(t, h.destructive, *tool.Annotations.DestructiveHint, tool.Name)
		require.Equal(t, h.idempotent, tool.Annotations.IdempotentHint, tool.Name)
		raw, err := json.Marshal(tool.InputSchema)
		require.NoError(t, err)
		require.Contains(t, string(raw), `"additionalProperties":false`, tool.Name)
		require.Contains(t, string(raw), `"cwd"`, tool.Name)
		require.NotContains(t, string(raw), "{max_text_bytes}", tool.Name)
		if prop, ok := outputs[tool.Name]; ok {
			out, err := json.Marshal(tool.OutputSchema)
			require.NoError(t, err)
			require.Contains(t, string(out), `"`+prop+`"`, tool.Name)
		}
	}
	require.Equal(t, len(want), seen)
}

func TestProjectToolsWorkflow(t *testing.T) {
	t.Parallel()
	b, br := setupBrain(t)
	ctx := context.Background()
	cs := b.connect(t, b.token(t, "agent", writeScopes, projectA), "codex-mcp-client", "")

	msg := toolErr(t, cs, mcpserver.ToolGoalGet, nil)
	require.Contains(t, msg, "has no goal yet")

	prop := ok[mcpserver.ProposeOutput](t, cs, mcpserver.ToolGoalSet, map[string]any{"text": "Ship the brain.", "reason": "we need one"})
	require.Equal(t, "pending", prop.Proposal.Status)
	require.Equal(t, "codex-mcp-client", prop.Proposal.Agent, "the client's name by default")
	require.Contains(t, text(call(t, cs, mcpserver.ToolGoalSet, map[string]any{"text": "Ship the brain."})), "already waiting")
	require.Contains(t, toolErr(t, cs, mcpserver.ToolGoalGet, nil), "has no goal yet", "proposing changes nothing")

	_, err := br.Approve(ctx, operatorA, prop.Proposal.ID)
	require.NoError(t, err)
	goal := call(t, cs, mcpserver.ToolGoalGet, nil)
	require.False(t, goal.IsError)
	require.Contains(t, text(goal), "Goal of project github.com/acme/app (version")
	require.Contains(t, text(goal), "Ship the brain.")

	plan := ok[mcpserver.ProposeOutput](t, cs, mcpserver.ToolPlanSet, map[string]any{"text": "1. Banner\n2. Providers", "session": "s-1"})
	require.Equal(t, "plan", plan.Proposal.Layer)
	require.Contains(t, toolErr(t, cs, mcpserver.ToolPlanGet, nil), "has no plan yet")
	_, err = br.Approve(ctx, operatorA, plan.Proposal.ID)
	require.NoError(t, err)
	require.Equal(t, "1. Banner\n2. Providers", ok[mcpserver.DocumentOutput](t, cs, mcpserver.ToolPlanGet, nil).Text)

	entry := ok[mcpserver.JournalAppendOutput](t, cs, mcpserver.ToolJournalAppend, map[string]any{"text": "Wired the banner fetch.", "session": "s-1"})
	require.Equal(t, "codex-mcp-client", entry.Entry.Agent)
	journal := call(t, cs, mcpserver.ToolJournal, map[string]any{"limit": 5})
	require.Contains(t, text(journal), "codex-mcp-client session s-1: Wired the banner fetch.")

	ok[memory.StoreResult](t, cs, mcpserver.ToolStore, map[string]any{"text": "The banner fetch reads one round trip."})
	found := ok[mcpserver.ProjectSearchOutput](t, cs, mcpserver.ToolProjectSearch, map[string]any{"query": "banner fetch"})
	layers := map[string]bool{}
	for _, h := range found.Hits {
		layers[h.Layer] = true
	}
	require.True(t, layers["fact"] && layers["journal"], "%v", layers)
	require.Contains(t, text(call(t, cs, mcpserver.ToolProjectSearch, map[string]any{"query": "banner fetch"})), "[journal]")

	m := projectmap.Map{Format: 1, GeneratedAt: time.Now().UTC(), Description: "The demo service.", Files: 2, Languages: []projectmap.Language{{Name: "Go", Files: 2}}}
	data, err := json.Marshal(m)
	require.NoError(t, err)
	_, err = br.PutMap(ctx, operatorA, data)
	require.NoError(t, err)
	require.Contains(t, text(call(t, cs, mcpserver.ToolMap, nil)), "The demo service.")

	banner := ok[mcpserver.LoadContextOutput](t, cs, mcpserver.ToolLoadContext, map[string]any{"budget": 600})
	require.LessOrEqual(t, banner.Tokens, 600)
	require.Contains(t, banner.Text, "Ship the brain.")
	require.Contains(t, banner.Text, "mcp__memhost__memory_store", "codex's tool names, from the client's name")
	require.Equal(t, banner.Text, text(call(t, cs, mcpserver.ToolLoadContext, map[string]any{"budget": 600})), "the model reads the banner itself")
}

func TestProjectToolsRefuseBadInputAndChangeNothing(t *testing.T) {
	t.Parallel()
	b, br := setupBrain(t)
	ctx := context.Background()
	agent := b.connect(t, b.token(t, "agent", writeScopes, projectA), "claude-code", "")
	reader := b.connect(t, b.token(t, "reader", readScopes, projectA), "claude-code", "")
	unbound := b.connect(t, b.token(t, "unbound", writeScopes, ""), "claude-code", "")

	for name, tc := range map[string]struct {
		tool string
		args map[string]any
		want string
	}{
		"empty proposal":     {mcpserver.ToolGoalSet, map[string]any{"text": ""}, "invalid argument text: must not be empty"},
		"oversized proposal": {mcpserver.ToolPlanSet, map[string]any{"text": strings.Repeat("a", 16385)}, "the limit is 16384 bytes"},
		"long reason":        {mcpserver.ToolGoalSet, map[string]any{"text": "x", "reason": strings.Repeat("a", 2001)}, "reason: is 2001 bytes"},
		"empty journal":      {mcpserver.ToolJournalAppend, map[string]any{"text": " "}, "text: must not be empty"},
		"oversized journal":  {mcpserver.ToolJournalAppend, map[string]any{"text": strings.Repeat("a", 16385)}, "the limit is 16384 bytes"},
		"other project":      {mcpserver.ToolJournalAppend, map[string]any{"text": "x", "project": projectB}, "bound to project"},
		"bad layer":          {mcpserver.ToolProjectSearch, map[string]any{"query": "x", "layers": []string{"wiki"}}, `layers: "wiki" is not one of`},
		"empty query":        {mcpserver.ToolProjectSearch, map[string]any{"query": ""}, "query: must not be empty"},
		"budget":             {mcpserver.ToolLoadContext, map[string]any{"budget": 10}, "budget: 10 is out of range 300..32000"},
		"cli":                {mcpserver.ToolLoadContext, map[string]any{"cli": "emacs"}, "cli: must be claude, codex, gemini or empty"},
		"journal limit":      {mcpserver.ToolJournal, map[string]any{"limit": 1000}, "limit: 1000 is out of range 1..200"},
		"no map":             {mcpserver.ToolMap, nil, "has no map yet"},
		"refresh unseen":     {mcpserver.ToolMap, map[string]any{"refresh": true}, "cannot see this project's directory"},
	} {
		require.Contains(t, toolErr(t, agent, tc.tool, tc.args), tc.want, name)
	}
	require.Contains(t, toolErr(t, reader, mcpserver.ToolGoalSet, map[string]any{"text": "x"}), "needs a token with the memory:write scope")
	require.Contains(t, toolErr(t, unbound, mcpserver.ToolGoalGet, nil), "project: is required")
	require.Contains(t, toolErr(t, unbound, mcpserver.ToolGoalGet, map[string]any{"project": "github.com/acme/nothing-here"}), "has no goal yet")

	var rows, proposals int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM memories`).Scan(&rows))
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM proposals`).Scan(&proposals))
	require.Zero(t, rows+proposals, "nothing changed")

	// Isolation: what A has never reaches a session of B.
	_, err := br.SetDocument(ctx, operatorA, store.KindGoal, brain.SetRequest{Text: "A-ONLY goal"})
	require.NoError(t, err)
	ok[mcpserver.JournalAppendOutput](t, agent, mcpserver.ToolJournalAppend, map[string]any{"text": "A-ONLY journal"})
	other := b.connect(t, b.token(t, "agent-b", writeScopes, projectB), "claude-code", "")
	require.Contains(t, toolErr(t, other, mcpserver.ToolGoalGet, nil), "has no goal yet")
	require.NotContains(t, text(call(t, other, mcpserver.ToolJournal, nil)), "A-ONLY")
	require.NotContains(t, text(call(t, other, mcpserver.ToolProjectSearch, map[string]any{"query": "A-ONLY goal journal"})), "A-ONLY")
	require.NotContains(t, text(call(t, other, mcpserver.ToolLoadContext, nil)), "A-ONLY")
}
