package mcpserver_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/mcpserver"
	"github.com/memhost/memhost/host/internal/memory"
	"github.com/memhost/memhost/host/internal/shortid"
)

// TestModelReadsCompactResults: the text content a model reads carries what it needs to act
// (text, kind, id, score) and none of the provenance and ranking internals, which stay in
// structuredContent for programs that ask for it.
func TestModelReadsCompactResults(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cs := b.connect(t, b.token(t, "agent", writeScopes, projectA), "claude-code", "")
	stored := ok[memory.StoreResult](t, cs, mcpserver.ToolStore, map[string]any{"text": "This project uses pnpm, never npm.", "kind": "convention"})
	ok[memory.StoreResult](t, cs, mcpserver.ToolStore, map[string]any{"text": "CI runs pnpm install --frozen-lockfile."})

	res := call(t, cs, mcpserver.ToolSearch, map[string]any{"query": "pnpm"})
	require.False(t, res.IsError)
	txt := text(res)
	require.Contains(t, txt, "[convention] This project uses pnpm, never npm.")
	require.Contains(t, txt, "(id "+shortid.Of(stored.ID)+",", "the model acts on the short id")
	require.NotContains(t, txt, stored.ID.String())
	require.Contains(t, txt, "score ")
	for _, internal := range []string{"merged_from", "created_at", "updated_at", "embedder", "hit_count", "confidence", "relevance", "cosine"} {
		require.NotContains(t, txt, internal)
	}
	full, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	require.Contains(t, string(full), `"created_at"`, "programs still get every field")
	require.Less(t, len(txt)*2, len(full), "the model's text is well under half the structured output")

	res = call(t, cs, mcpserver.ToolStore, map[string]any{"text": "This project uses pnpm, never npm."})
	require.Contains(t, text(res), "Already known: identical to memory "+shortid.Of(stored.ID))
	list := call(t, cs, mcpserver.ToolList, map[string]any{})
	require.Contains(t, text(list), "2 memories in project "+projectA)
}

// TestMemoriesAreNamedByShortIDs: the banner and the tools' text show each memory's short id
// (its id's last 8 hex digits), and every tool that takes an id accepts it, and the 8-digit
// prefix older releases showed; another project's memory stays not found.
func TestMemoriesAreNamedByShortIDs(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cs := b.connect(t, b.token(t, "agent", writeScopes, projectA), "claude-code", "")
	stored := ok[memory.StoreResult](t, cs, mcpserver.ToolStore, map[string]any{"text": "Feature flags live in config/flags.yaml."})
	short, prefix := shortid.Of(stored.ID), stored.ID.String()[:8]
	got := ok[memory.View](t, cs, mcpserver.ToolGet, map[string]any{"id": short})
	require.Equal(t, stored.ID, got.ID)
	got = ok[memory.View](t, cs, mcpserver.ToolGet, map[string]any{"id": prefix})
	require.Equal(t, stored.ID, got.ID, "a prefix printed by an older release")
	archived := ok[memory.View](t, cs, mcpserver.ToolArchive, map[string]any{"id": short, "reason": "moved"})
	require.NotNil(t, archived.ArchivedAt)
	require.Contains(t, toolErr(t, cs, mcpserver.ToolGet, map[string]any{"id": "0193"}), "its last 8 or more hex digits")

	other := b.connect(t, b.token(t, "other", writeScopes, projectB), "codex", "")
	require.Contains(t, toolErr(t, other, mcpserver.ToolGet, map[string]any{"id": short}), "not found")
}
