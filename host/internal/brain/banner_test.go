package brain_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/brain/projectmap"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/project"
	"github.com/memhost/memhost/host/internal/core/store"
)

// populate gives a project a goal, a plan, a map, facts and journal entries, each text marked
// with tag so a banner can be checked for what it holds.
func (b *bundle) populate(t *testing.T, operator, agent memory.Access, tag string) {
	t.Helper()
	ctx := context.Background()
	_, err := b.brain.SetDocument(ctx, operator, "goal", brain.SetRequest{Text: "GOAL-" + tag + ": ship the thing."})
	require.NoError(t, err)
	_, err = b.brain.SetDocument(ctx, operator, "plan", brain.SetRequest{Text: "PLAN-" + tag + ": step one, then step two."})
	require.NoError(t, err)
	m := projectmap.Map{Format: projectmap.FormatVersion, GeneratedAt: b.now, Description: "MAP-" + tag + " describes the tree.",
		Files: 3, Languages: []projectmap.Language{{Name: "Go", Files: 3}}, Tools: []projectmap.Tool{}, Commands: []projectmap.Command{},
		Dirs: []projectmap.Dir{}, Modules: []projectmap.Module{}, KeyFiles: []string{}, EntryPoints: []string{}}
	data, err := json.Marshal(m)
	require.NoError(t, err)
	_, err = b.brain.PutMap(ctx, agent, data)
	require.NoError(t, err)
	for i := range 5 {
		b.fact(t, agent, fmt.Sprintf("FACT-%s-%d: component c%d of %s uses port %d.", tag, i, i, tag, 9000+i))
	}
	_, err = b.brain.AppendJournal(ctx, agent, brain.JournalRequest{Text: "JOURNAL-" + tag + ": fixed the flaky test.", Agent: "codex", Session: "s-" + tag})
	require.NoError(t, err)
}

func TestBannerHoldsOneProjectOnly(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.populate(t, operatorA, agentA, "AAA")
	b.populate(t, operatorB, agentB, "BBB")

	first, err := b.brain.Banner(ctx, agentA, brain.BannerRequest{CLI: "claude", Budget: 2000})
	require.NoError(t, err)
	for _, want := range []string{"GOAL-AAA", "PLAN-AAA", "MAP-AAA", "FACT-AAA-0", "FACT-AAA-4", "JOURNAL-AAA", "mcp__memhost__memory_store"} {
		require.Contains(t, first.Text, want)
	}
	require.NotContains(t, first.Text, "BBB", "nothing of project B")
	require.LessOrEqual(t, first.Tokens, 2000)

	again, err := b.brain.Banner(ctx, agentA, brain.BannerRequest{CLI: "claude", Budget: 2000})
	require.NoError(t, err)
	require.Equal(t, first.Text, again.Text, "deterministic for the same state")

	other, err := b.brain.Banner(ctx, agentB, brain.BannerRequest{})
	require.NoError(t, err)
	require.Contains(t, other.Text, "GOAL-BBB")
	require.NotContains(t, other.Text, "AAA")

	// A project with nothing yet still gets the instructions.
	empty, err := b.brain.Banner(ctx, memory.Access{Project: "github.com/acme/new"}, brain.BannerRequest{})
	require.NoError(t, err)
	require.Contains(t, empty.Text, "memory_store")
	require.NotContains(t, empty.Text, "AAA")
}

func TestBannerRanksFactsBySpawnScoreAndRespectsBudget(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	low, high := 0.1, 0.95
	for i := range 40 {
		_, err := b.mem.Store(ctx, agentA, memory.StoreRequest{Text: fmt.Sprintf("Minor note %d about module m%d.", i, i), Importance: &low})
		require.NoError(t, err)
	}
	_, err := b.mem.Store(ctx, agentA, memory.StoreRequest{Text: "CRITICAL: never run migrations by hand in prod.", Importance: &high})
	require.NoError(t, err)
	for i := range 5 { // newest: fill the recent window, so the important fact competes in top facts
		_, err := b.mem.Store(ctx, agentA, memory.StoreRequest{Text: fmt.Sprintf("Recent note %d on service s%d.", i, i), Importance: &low})
		require.NoError(t, err)
	}
	res, err := b.brain.Banner(ctx, agentA, brain.BannerRequest{Budget: 300})
	require.NoError(t, err)
	require.LessOrEqual(t, res.Tokens, 300)
	require.Contains(t, res.Text, "CRITICAL")
	require.True(t, res.Cut())
	require.Contains(t, res.Text, "Not shown")

	_, err = b.brain.Banner(ctx, agentA, brain.BannerRequest{Budget: 299})
	require.ErrorContains(t, err, "budget: 299 is out of range 300..32000")
	_, err = b.brain.Banner(ctx, agentA, brain.BannerRequest{CLI: "vim"})
	require.ErrorContains(t, err, "cli: must be claude, codex, gemini or empty")
}

func TestMapUploadBuildAndStaleness(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	_, err := b.brain.Map(ctx, agentA, brain.MapRequest{})
	require.ErrorContains(t, err, "has no map yet")

	for name, body := range map[string]string{
		"not json":   "{",
		"array":      "[]",
		"newer":      `{"format": 99}`,
		"no time":    `{"format": 1}`,
		"bad field":  `{"format": 1, "generated_at": "2026-11-23T12:00:00Z", "files": "x"}`,
		"empty body": "",
	} {
		_, err := b.brain.PutMap(ctx, agentA, []byte(body))
		var fe *rules.FieldError
		require.ErrorAs(t, err, &fe, name)
	}

	// A host that can see the directory builds the map itself.
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/demo\n\ngo 1.22\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644))
	id, err := project.Resolve(dir)
	require.NoError(t, err)
	local := memory.Access{Project: id.Key}
	built, err := b.brain.Map(ctx, local, brain.MapRequest{Dir: dir})
	require.NoError(t, err)
	require.Contains(t, built.Summary, "Go")
	require.False(t, built.Stale)

	// Later the map is stale; without the directory it is served as it is, marked stale.
	b.now = b.now.Add(25 * time.Hour)
	old, err := b.brain.Map(ctx, local, brain.MapRequest{})
	require.NoError(t, err)
	require.True(t, old.Stale)
	fresh, err := b.brain.Map(ctx, local, brain.MapRequest{Dir: dir})
	require.NoError(t, err)
	require.False(t, fresh.Stale)

	// Refreshing needs the directory, and one of the same project.
	_, err = b.brain.Map(ctx, local, brain.MapRequest{Refresh: true})
	require.ErrorContains(t, err, "cannot see this project's directory")
	_, err = b.brain.Map(ctx, agentA, brain.MapRequest{Dir: dir, Refresh: true})
	require.ErrorContains(t, err, "cannot see this project's directory")
	_, err = b.brain.Map(ctx, agentA, brain.MapRequest{})
	require.ErrorContains(t, err, "has no map yet", "A's map was never written from B's directory")
}

// A map the host builds itself takes the upload's path: its README sentences, Makefile help
// and commit subjects are redacted before they are stored or shown.
func TestMapsBuiltHereAreRedacted(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/demo\n\ngo 1.22\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("Deploys with token SECRETVALUE to prod.\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Makefile"), []byte("deploy: ## Push with SECRETVALUE\n\ttrue\n"), 0o644))
	id, err := project.Resolve(dir)
	require.NoError(t, err)
	local := memory.Access{Project: id.Key}

	built, err := b.brain.Map(ctx, local, brain.MapRequest{Dir: dir})
	require.NoError(t, err)
	require.Equal(t, 2, built.Redactions)
	require.NotContains(t, string(built.Map), "SECRETVALUE")
	require.NotContains(t, built.Summary, "SECRETVALUE")
	require.Contains(t, built.Summary, "About: Deploys with token [REDACTED:test] to prod.")
	res, err := b.brain.Banner(ctx, local, brain.BannerRequest{})
	require.NoError(t, err)
	require.NotContains(t, res.Text, "SECRETVALUE")
}

// A map from beyond the clock-skew allowance, as one stored before uploads were held to the
// clock may be, is stale: surfaces say so and a host that sees the directory rebuilds it.
func TestMapFromTheFutureIsStale(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/demo\n\ngo 1.22\n"), 0o644))
	id, err := project.Resolve(dir)
	require.NoError(t, err)
	local := memory.Access{Project: id.Key}
	future := time.Date(2999, 1, 1, 0, 0, 0, 0, time.UTC)
	_, err = b.store.PutMap(ctx, store.ProjectMap{ScopeKey: id.Key, Map: []byte(`{"format":1}`), Summary: "Order service.",
		GeneratedAt: future})
	require.NoError(t, err)

	old, err := b.brain.Map(ctx, local, brain.MapRequest{})
	require.NoError(t, err)
	require.True(t, old.Stale)
	h, err := b.brain.Health(ctx, local)
	require.NoError(t, err)
	require.True(t, h.MapStale)
	rebuilt, err := b.brain.Map(ctx, local, brain.MapRequest{Dir: dir})
	require.NoError(t, err)
	require.Equal(t, b.now, rebuilt.GeneratedAt)
	require.False(t, rebuilt.Stale)
}

func TestHealthSnapshot(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.populate(t, operatorA, agentA, "AAA")
	b.fact(t, agentA, "FACT-AAA-0: component c0 of AAA uses port 9000.") // an exact fold
	_, err := b.brain.Propose(ctx, agentA, brain.ProposeRequest{Layer: "goal", Text: "A new goal"})
	require.NoError(t, err)
	res, err := b.mem.Search(ctx, agentA, memory.SearchRequest{Query: "component c1 port"})
	require.NoError(t, err)
	require.NotEmpty(t, res.Hits)
	require.NoError(t, b.store.RecordHits(ctx, map[uuid.UUID]int64{res.Hits[0].ID: 3}))
	b.populate(t, operatorB, agentB, "BBB")

	h, err := b.brain.Health(ctx, agentA)
	require.NoError(t, err)
	require.Equal(t, brain.Count{Total: 5, ThisWeek: 5}, h.Facts)
	require.Equal(t, brain.Count{Total: 1, ThisWeek: 1}, h.Journal)
	require.Equal(t, int64(1), h.Folds.Total)
	require.Equal(t, int64(1), h.Proposals.Count)
	require.NotNil(t, h.Proposals.OldestAt)
	require.NotNil(t, h.GoalUpdatedAt)
	require.NotNil(t, h.PlanUpdatedAt)
	require.NotNil(t, h.MapGeneratedAt)
	require.Len(t, h.TopHit, 1)
	require.Equal(t, int64(3), h.TopHit[0].HitCount)
	require.Equal(t, int64(4), h.NeverHit)
	require.Empty(t, h.Archived)

	// A search's results are retrieved, so no longer "never used"; archived facts are counted
	// by reason.
	require.Greater(t, len(res.Hits), 1)
	require.NoError(t, b.store.RecordRetrievals(ctx, []uuid.UUID{res.Hits[len(res.Hits)-1].ID}))
	h, err = b.brain.Health(ctx, agentA)
	require.NoError(t, err)
	require.Equal(t, int64(3), h.NeverHit)
	for _, hit := range res.Hits[:2] {
		_, err = b.store.SetArchived(ctx, store.ArchiveParams{ID: hit.ID, Archived: true, Reason: "stale", Actor: "maintenance:stale"})
		require.NoError(t, err)
	}
	h, err = b.brain.Health(ctx, agentA)
	require.NoError(t, err)
	require.Equal(t, map[string]int64{"stale": 2}, h.Archived)

	empty, err := b.brain.Health(ctx, memory.Access{Project: "github.com/acme/none"})
	require.NoError(t, err)
	require.Zero(t, empty.Facts.Total)
	require.Empty(t, empty.TopHit)
	require.Empty(t, empty.Archived)
}
