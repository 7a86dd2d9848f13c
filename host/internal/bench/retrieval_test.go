package bench_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/bench"
	"github.com/memhost/memhost/host/internal/testdb"
	"github.com/memhost/memhost/host/internal/testplugins"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
)

const retrievalDir = "testdata/retrieval"

func TestRetrievalSetLoadsAndIsLargeEnough(t *testing.T) {
	t.Parallel()
	set, err := bench.LoadRetrievalSet(retrievalDir)
	require.NoError(t, err)
	projects, facts, questions := set.Counts()
	require.GreaterOrEqual(t, projects, 8)
	require.GreaterOrEqual(t, questions, 400, "a 2-point recall change must be measurable")
	require.Greater(t, facts, questions/2)
	perCategory, perSplit := map[string]int{}, map[string]int{}
	roles := map[string]int{}
	for _, p := range set.Projects {
		roles[p.Role]++
		for _, q := range p.Questions {
			perCategory[q.Category]++
			perSplit[q.Split()]++
		}
	}
	for _, c := range bench.Categories {
		require.Positive(t, perCategory[c], c)
	}
	require.Greater(t, perSplit["dev"], questions/3)
	require.Greater(t, perSplit["test"], questions/3)
	require.Positive(t, roles[bench.RoleDistractor])
	require.Positive(t, roles[bench.RoleGlobal])
}

func TestLoadRetrievalSetRejectsBadLabels(t *testing.T) {
	t.Parallel()
	valid := func() bench.RetrievalProject {
		return bench.RetrievalProject{Project: "github.com/acme/app", Role: bench.RoleEvaluated,
			Facts:     []bench.RetrievalFact{{ID: "a-1", Kind: "convention", AgeDays: 3, Text: "Use pnpm."}, {ID: "a-2", Kind: "fact", Text: "Port 8080."}},
			Questions: []bench.RetrievalQuestion{{ID: "a-q1", Category: bench.CategoryVocab, Query: "which package manager?", Relevant: []string{"a-1"}}}}
	}
	cases := []struct {
		name, want string
		edit       func(p *bench.RetrievalProject)
	}{
		{"unknown relevant fact", `unknown fact "a-9"`, func(p *bench.RetrievalProject) { p.Questions[0].Relevant = []string{"a-9"} }},
		{"unknown stale fact", `unknown fact "zz"`, func(p *bench.RetrievalProject) { p.Questions[0].Stale = []string{"zz"} }},
		{"stale also relevant", `names fact "a-1" twice`, func(p *bench.RetrievalProject) { p.Questions[0].Stale = []string{"a-1"} }},
		{"duplicate fact id", `"a-1" is used twice`, func(p *bench.RetrievalProject) { p.Facts[1].ID = "a-1" }},
		{"bad category", `category "easy"`, func(p *bench.RetrievalProject) { p.Questions[0].Category = "easy" }},
		{"bad kind", `kind "rumour"`, func(p *bench.RetrievalProject) { p.Facts[0].Kind = "rumour" }},
		{"age out of range", "age_days -1 is out of range 0..3650", func(p *bench.RetrievalProject) { p.Facts[0].AgeDays = -1 }},
		{"no relevant fact", "needs at least one relevant fact", func(p *bench.RetrievalProject) { p.Questions[0].Relevant = nil }},
		{"questions in a distractor", "only they may have any", func(p *bench.RetrievalProject) { p.Role = bench.RoleDistractor }},
		{"unknown role", `role "judge"`, func(p *bench.RetrievalProject) { p.Role = "judge" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			p := valid()
			c.edit(&p)
			b, err := json.Marshal(p)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "app.json"), b, 0o600))
			_, err = bench.LoadRetrievalSet(dir)
			require.ErrorContains(t, err, c.want)
		})
	}
	dir := t.TempDir()
	b, err := json.Marshal(valid())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "app.json"), b, 0o600))
	_, err = bench.LoadRetrievalSet(dir)
	require.NoError(t, err, "the unedited project is valid")
}

// Floors for the subset below, measured when the ranker was tuned (see docs/ranking.md) minus a
// margin, so a ranking, thesaurus or tokenizer change that loses answers fails `make test`.
const (
	retrievalRecallFloor = 0.93
	// retrievalGainFloor: the read path must stay ahead of plain BM25 on the same questions.
	retrievalGainFloor = 0.02
)

// TestRetrievalFloor runs three projects of the retrieval benchmark through the real read path
// (memory.Service over pgstore and the BM25 plugin process) in a few seconds.
func TestRetrievalFloor(t *testing.T) {
	t.Parallel()
	set, err := bench.LoadRetrievalSet(retrievalDir)
	require.NoError(t, err)
	set = set.Only("github.com/vitejs/vite", "github.com/go-gitea/gitea", "github.com/tokio-rs/tokio")
	pool, _ := testdb.Migrated(t)
	emb := embeddertest.Launch(t, testplugins.BM25(t))

	res, err := bench.Retrieval(t.Context(), pool, emb, nil, set, bench.RetrievalOptions{})
	require.NoError(t, err)
	mem, bm25 := res.Systems[0], res.Systems[1]
	t.Logf("%d questions: memhost recall@10 %.3f MRR %.3f; plain BM25 recall@10 %.3f MRR %.3f; gain %+.3f [%+.3f, %+.3f]",
		res.Questions, mem.All.Recall10.Mean, mem.All.MRR.Mean, bm25.All.Recall10.Mean, bm25.All.MRR.Mean, res.Gain.Mean, res.Gain.Lo, res.Gain.Hi)
	require.Zero(t, res.Leaks, "a search returned another project's memory")
	require.GreaterOrEqual(t, mem.All.Recall10.Mean, retrievalRecallFloor)
	require.GreaterOrEqual(t, res.Gain.Mean, retrievalGainFloor)
}
