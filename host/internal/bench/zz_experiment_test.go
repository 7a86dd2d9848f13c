package bench

// Throwaway experiment harness (deleted before hand-off): an in-process copy of the read
// path's candidate generation (lexical index + exact cosine of the BM25 embedder) to compare
// ranking variants quickly on the retrieval set.

import (
	"context"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/lexical"
	"github.com/memhost/memhost/host/internal/memory"
	"github.com/memhost/memhost/host/internal/rank"
	"github.com/memhost/memhost/host/internal/store"
	"github.com/memhost/memhost/plugins/embed-bm25/bm25"
	"github.com/memhost/memhost/sdk/embedder"
)

type xdoc struct {
	id      uuid.UUID
	fact    string
	project string
	kind    store.Kind
	text    string
	age     int
	vec     []float32
}

type xcand struct {
	d            *xdoc
	bm25, cover  float64
	lexRank      int // 1-based, 0 = not in lexical list
	cos          float64
	cosRank      int
	hasLex       bool
}

type xenv struct {
	docs   []*xdoc
	byID   map[uuid.UUID]*xdoc
	byFact map[string]*xdoc
	ix     *lexical.Index
	set    RetrievalSet
}

func embedTexts(t *testing.T, texts []string, purpose embedder.Purpose) [][]float32 {
	e := bm25.New()
	var out [][]float32
	for lo := 0; lo < len(texts); lo += 256 {
		v, err := e.Embed(context.Background(), purpose, texts[lo:min(lo+256, len(texts))])
		require.NoError(t, err)
		out = append(out, v...)
	}
	return out
}

func loadEnv(t *testing.T, filler int) *xenv {
	set, err := LoadRetrievalSet("testdata/retrieval")
	require.NoError(t, err)
	env := &xenv{byID: map[uuid.UUID]*xdoc{}, byFact: map[string]*xdoc{}, ix: lexical.New(), set: set}
	corpus := NewCorpus(7)
	for _, p := range set.Projects {
		key := p.keyOf()
		for _, f := range p.Facts {
			k, _ := store.ParseKind(f.Kind)
			d := &xdoc{id: uuid.New(), fact: f.ID, project: key, kind: k, text: f.Text, age: f.AgeDays}
			env.docs = append(env.docs, d)
			env.byFact[f.ID] = d
		}
		if p.Role == RoleEvaluated {
			for i, f := range corpus.Take(filler) {
				env.docs = append(env.docs, &xdoc{id: uuid.New(), project: key, kind: f.Kind, text: f.Text, age: 1 + (i*37)%300})
			}
		}
	}
	texts := make([]string, len(env.docs))
	for i, d := range env.docs {
		texts[i] = d.text
	}
	vecs := embedTexts(t, texts, embedder.PurposeDocument)
	for i, d := range env.docs {
		d.vec = vecs[i]
		env.byID[d.id] = d
		scope, key := store.ScopeProject, d.project
		if key == "" {
			scope = store.ScopeGlobal
		}
		env.ix.Apply(store.Change{Seq: int64(i + 1), ID: d.id, Scope: scope, ScopeKey: key, Kind: d.kind, Text: d.text})
	}
	return env
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// candidates mirrors memory.Service.Search's candidate generation.
func (env *xenv) candidates(project, query string, qvec []float32, lq lexical.Query) []*xcand {
	const pool = 100
	lq.Scopes = []store.ScopeRef{store.Project(project), store.Global}
	lq.Kinds = store.Kinds
	lq.Limit = pool
	lex := env.ix.Search(lq)
	c := map[uuid.UUID]*xcand{}
	for i, h := range lex {
		d := env.byID[h.ID]
		c[h.ID] = &xcand{d: d, bm25: h.Score, cover: h.Coverage, lexRank: i + 1, hasLex: true}
	}
	type sc struct {
		d *xdoc
		s float64
	}
	var all []sc
	for _, d := range env.docs {
		if d.project == project || d.project == "" {
			all = append(all, sc{d, dot(d.vec, qvec)})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].s > all[j].s })
	for i, x := range all {
		if i < pool {
			if c[x.d.id] == nil {
				c[x.d.id] = &xcand{d: x.d}
			}
		}
		if cc := c[x.d.id]; cc != nil {
			cc.cos = x.s
			cc.cosRank = i + 1
		}
	}
	out := make([]*xcand, 0, len(c))
	for _, x := range c {
		out = append(out, x)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].d.id.String() < out[j].d.id.String() })
	return out
}

type variant struct {
	name  string
	lq    func(q string) lexical.Query
	score func(cands []*xcand) map[*xcand]float64
}

func halfLife(k store.Kind) time.Duration {
	return memory.DefaultConfig().HalfLives[k]
}

func quality(d *xdoc) float64 {
	age := time.Duration(d.age) * 24 * time.Hour
	return rank.Score(rank.Signals{HasQuery: true, Relevance: 1, Confidence: 0.8, Age: age, HalfLife: halfLife(d.kind)})
}

func currentScore(cands []*xcand) map[*xcand]float64 {
	best := 0.0
	for _, c := range cands {
		best = max(best, c.bm25)
	}
	out := map[*xcand]float64{}
	for _, c := range cands {
		cos := c.cos
		var rel float64
		if c.hasLex {
			l := rank.NormalizeBM25(c.bm25, best, c.cover)
			rel = rank.Fuse(&cos, &l)
		} else {
			rel = rank.Fuse(&cos, nil)
		}
		out[c] = rel * quality(c.d)
	}
	return out
}

func (env *xenv) eval(t *testing.T, v variant, split string, dump bool) (r10 float64, byCat map[string]float64) {
	var qs []RetrievalQuestion
	var projs []string
	for _, p := range env.set.Projects {
		for _, q := range p.Questions {
			if split == "" || q.Split() == split {
				qs = append(qs, q)
				projs = append(projs, p.Project)
			}
		}
	}
	texts := make([]string, len(qs))
	for i, q := range qs {
		texts[i] = q.Query
	}
	qv := embedTexts(t, texts, embedder.PurposeQuery)
	byCat = map[string]float64{}
	nCat := map[string]float64{}
	var sum float64
	for i, q := range qs {
		lq := lexical.Query{Text: q.Query}
		if v.lq != nil {
			lq = v.lq(q.Query)
		}
		cands := env.candidates(projs[i], q.Query, qv[i], lq)
		s := v.score(cands)
		sort.SliceStable(cands, func(a, b int) bool { return s[cands[a]] > s[cands[b]] })
		want := map[string]bool{}
		for _, id := range q.Relevant {
			want[env.byFact[id].id.String()] = true
		}
		ranked := []string{}
		for _, c := range cands[:min(10, len(cands))] {
			ranked = append(ranked, c.d.id.String())
		}
		sc := scoreRanking(ranked, want, nil)
		sum += sc.recall10
		byCat[q.Category] += sc.recall10
		nCat[q.Category]++
		if dump && sc.recall10 < 1 {
			var top []string
			for _, c := range cands[:min(3, len(cands))] {
				top = append(top, fmt.Sprintf("%.2f %s", s[c], trunc(c.d.text, 60)))
			}
			var rel []string
			for _, id := range q.Relevant {
				rel = append(rel, trunc(env.byFact[id].text, 80))
			}
			fmt.Fprintf(os.Stderr, "MISS %s [%s] %q\n   want: %s\n   got:  %s\n", q.ID, q.Category, q.Query, strings.Join(rel, " || "), strings.Join(top, " | "))
		}
	}
	for k := range byCat {
		byCat[k] /= nCat[k]
	}
	return sum / float64(len(qs)), byCat
}

func trunc(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func bm25Only(cands []*xcand) map[*xcand]float64 {
	out := map[*xcand]float64{}
	for _, c := range cands {
		if c.hasLex {
			out[c] = c.bm25
		} else {
			out[c] = -1 + c.cos*0 - float64(c.cosRank)*1e-9
		}
	}
	return out
}

var _ = math.Inf

func TestExperiment(t *testing.T) {
	filler := 0
	if s := os.Getenv("XFILLER"); s != "" {
		fmt.Sscan(s, &filler)
	}
	env := loadEnv(t, filler)
	split := os.Getenv("XSPLIT")
	variants := []variant{
		{name: "bm25", score: bm25Only},
		{name: "current", score: currentScore},
		{name: "bm25+thes", score: bm25Only, lq: expandQ},
		{name: "current+thes", score: currentScore, lq: expandQ},
		{name: "lin.6+thes", score: linear(0.6), lq: expandQ},
		{name: "lin.8+thes", score: linear(0.8), lq: expandQ},
		{name: "lin.9+thes", score: linear(0.9), lq: expandQ},
		{name: "lin1+thes", score: linear(1), lq: expandQ},
		{name: "rrf+thes", score: rrf(60, 0.5), lq: expandQ},
		{name: "rrf.7+thes", score: rrf(60, 0.7), lq: expandQ},
		{name: "rrf.85+thes", score: rrf(60, 0.85), lq: expandQ},
		{name: "rrf10.7+thes", score: rrf(10, 0.7), lq: expandQ},
	}
	if os.Getenv("XPRF") != "" {
		fmt.Sscan(os.Getenv("XPRF"), &lexical.PRFDocs, &lexical.PRFTerms, &lexical.PRFWeight)
		variants = []variant{{name: "lin.9+thes", score: linear(0.9), lq: expandQ}}
	}
	for _, v := range variants {
		r, cats := env.eval(t, v, split, os.Getenv("XDUMP") == v.name)
		fmt.Fprintf(os.Stderr, "%-12s r10 %.3f  direct %.3f vocab %.3f multi %.3f temporal %.3f exact %.3f\n", v.name, r, cats["direct"], cats["vocab"], cats["multi"], cats["temporal"], cats["exact"])
	}
}

func expandQ(q string) lexical.Query { return lexical.Query{Text: q, Expand: true} }

func linear(wl float64) func(cands []*xcand) map[*xcand]float64 {
	return func(cands []*xcand) map[*xcand]float64 {
		best := 0.0
		for _, c := range cands {
			best = max(best, c.bm25)
		}
		out := map[*xcand]float64{}
		for _, c := range cands {
			rel := (1 - wl) * max(0, c.cos)
			if c.hasLex {
				rel += wl * rank.NormalizeBM25(c.bm25, best, c.cover)
			}
			out[c] = rel * quality(c.d)
		}
		return out
	}
}

func rrf(k, wl float64) func(cands []*xcand) map[*xcand]float64 {
	return func(cands []*xcand) map[*xcand]float64 {
		out := map[*xcand]float64{}
		for _, c := range cands {
			var rel float64
			if c.hasLex {
				rel += wl / (k + float64(c.lexRank))
			}
			if c.cosRank > 0 && c.cos > 0 {
				rel += (1 - wl) / (k + float64(c.cosRank))
			}
			out[c] = rel * (k + 1) * quality(c.d)
		}
		return out
	}
}
