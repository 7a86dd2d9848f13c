package bench

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/store/pgstore"
)

// TestSharedLayoutIsLongTailed: one large project with a tenth of the memories, and a hundred
// others whose sizes run from a handful to thousands, below the large one; the same seed
// gives the same layout.
func TestSharedLayoutIsLongTailed(t *testing.T) {
	t.Parallel()
	layout := sharedLayout(1_000_000, 7420)
	require.Len(t, layout, SharedProjects+1)
	require.Equal(t, classLarge, layout[0].class)
	require.Equal(t, 100_000, layout[0].size)
	total, graphs := 0, 0
	for i, p := range layout {
		total += p.size
		if i == 0 {
			continue
		}
		require.Less(t, p.size, layout[0].size)
		require.LessOrEqual(t, p.size, layout[i-1].size, "largest first")
		require.Equal(t, p.size >= pgstore.DefaultGraphMinRows, p.class == classGraph, p.key)
		if p.class == classGraph {
			graphs++
		}
	}
	require.Equal(t, 1_000_000, total)
	require.Greater(t, layout[1].size, 20*layout[len(layout)/2].size/10, "a long tail: the largest is well above the median")
	require.Less(t, layout[len(layout)-1].size, 500)
	require.Positive(t, graphs)
	require.Less(t, graphs, SharedProjects, "some projects stay below the graph size")
	require.Equal(t, layout, sharedLayout(1_000_000, 7420))
}

// TestProseIsSentencesAndPairs: comments split into sentences that read as prose; code,
// fragments and licence lines are left out; adjacent sentences also come as a pair; a project
// never gets the same text twice, and a second pass hands each text out in its other form.
func TestProseIsSentencesAndPairs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var src strings.Builder
	src.WriteString("// Copyright 2024 The Authors. All rights reserved. Use of this source code is governed by a license.\n\n")
	src.WriteString("// Package demo shows how prose is read from comments in this tree.\npackage demo\n\n")
	for i := range 400 {
		// Two sentences per comment, then code the splitter must not take for prose.
		src.WriteString("// The handler number " + strings.Repeat("x", i%7+1) + " retries idempotent requests after a timeout.\n")
		src.WriteString("// It gives up after three attempts and reports the last error to the caller.\n")
		src.WriteString("//\n//\tx := f(y) + g[z]; return x\n")
		src.WriteString("func f" + strings.Repeat("a", i+1) + "() {}\n\n")
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "demo"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "demo", "demo.go"), []byte(src.String()), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "demo", "demo_test.go"), []byte("package demo\n// A test file is never read, whatever it says about the handler.\n"), 0o644))

	p, err := loadProse(dir)
	require.NoError(t, err)
	texts := map[string]bool{}
	for _, s := range p.sentences {
		require.False(t, texts[s.text], "distinct: %q", s.text)
		texts[s.text] = true
		require.NotContains(t, s.text, "Copyright")
		require.NotContains(t, s.text, ":=")
		require.NotContains(t, s.text, "test file")
		require.Equal(t, "demo/demo.go", s.file)
	}
	require.True(t, texts["Package demo shows how prose is read from comments in this tree."])
	require.True(t, texts["The handler number x retries idempotent requests after a timeout. It gives up after three attempts and reports the last error to the caller."])
	require.Len(t, p.sentences, 1+7+1+7, "each distinct sentence once, each distinct pair once")

	pp := p.project(1)
	seen := map[string]bool{}
	for range 2 * len(p.sentences) {
		f, ok := pp.fact()
		require.True(t, ok)
		require.False(t, seen[f.Text], "a project never gets the same text twice: %q", f.Text)
		seen[f.Text] = true
		require.NotEmpty(t, f.Query)
		require.Contains(t, f.Paraphrase, f.Text[1:len(f.Text)-1])
	}
	_, ok := pp.fact()
	require.False(t, ok, "two passes, then the prose is exhausted")

	// Held facts (the timed writes' new facts) never come back in either form.
	pp = p.project(2)
	held := pp.hold(3)
	require.Len(t, held, 3)
	sentence := func(text string) string {
		text, _, _ = strings.Cut(text, " (see ")
		return strings.TrimSuffix(text, ".")
	}
	heldText := map[string]bool{}
	for _, f := range held {
		heldText[sentence(f.Text)] = true
	}
	n := 0
	for f, ok := pp.fact(); ok; f, ok = pp.fact() {
		require.False(t, heldText[sentence(f.Text)], "held text handed out to the layout: %q", f.Text)
		n++
	}
	require.Equal(t, 2*len(p.sentences)-2*len(held), n, "both passes skip exactly the held texts")
}

// TestHistogramsFromMetrics: histograms are read from the Prometheus text format, summed over
// the series a filter selects, differenced between scrapes, and summarised as
// histogram_quantile does.
func TestHistogramsFromMetrics(t *testing.T) {
	t.Parallel()
	scrape := func(n float64) map[string]histogram {
		body := `# HELP memhost_memory_search_duration_seconds memory_search latency.
# TYPE memhost_memory_search_duration_seconds histogram
memhost_memory_search_duration_seconds_bucket{le="0.001"} 0
memhost_memory_search_duration_seconds_bucket{le="0.005"} ` + ftoa(n) + `
memhost_memory_search_duration_seconds_bucket{le="0.01"} ` + ftoa(2*n) + `
memhost_memory_search_duration_seconds_bucket{le="+Inf"} ` + ftoa(2*n) + `
memhost_memory_search_duration_seconds_sum ` + ftoa(n*0.012) + `
memhost_memory_search_duration_seconds_count ` + ftoa(2*n) + `
memhost_plugin_call_duration_seconds_bucket{kind="embedder",method="Embed",name="bm25",le="0.001"} ` + ftoa(n) + `
memhost_plugin_call_duration_seconds_bucket{kind="embedder",method="Embed",name="bm25",le="+Inf"} ` + ftoa(n) + `
memhost_plugin_call_duration_seconds_sum{kind="embedder",method="Embed",name="bm25"} ` + ftoa(n*0.0005) + `
memhost_plugin_call_duration_seconds_count{kind="embedder",method="Embed",name="bm25"} ` + ftoa(n) + `
memhost_plugin_call_duration_seconds_count{kind="embedder",method="Health",name="bm25"} 1000
# TYPE memhost_memory_search_vector_lookups_total counter
memhost_memory_search_vector_lookups_total{outcome="ran"} ` + ftoa(n/10) + `
memhost_memory_search_vector_lookups_total{outcome="skipped"} ` + ftoa(n) + `
# TYPE go_gc_duration_seconds summary
go_gc_duration_seconds{quantile="0"} 0.0001
go_gc_duration_seconds{quantile="1"} 0.002
go_gc_duration_seconds_sum ` + ftoa(n*0.001) + `
go_gc_duration_seconds_count ` + ftoa(n) + `
`
		h, err := parseHistograms(strings.NewReader(body), map[string]string{metricSearch: "", metricPlugin: `method="Embed"`, metricLookup: `outcome="ran"`,
			metricGCs: "", metricGCPause: ""})
		require.NoError(t, err)
		return h
	}
	before, after := scrape(10), scrape(60)
	search := after[metricSearch].since(before[metricSearch]).summary()
	require.Equal(t, 100, search.Count)
	require.Equal(t, 6*time.Millisecond, search.Mean)
	require.Equal(t, 5*time.Millisecond, search.P50, "half the calls finished within the 5 ms bucket")
	require.Equal(t, 9900*time.Microsecond, search.P99, "interpolated inside the 5-10 ms bucket")
	embed := after[metricPlugin].since(before[metricPlugin]).summary()
	require.Equal(t, 50, embed.Count, "only the Embed series")
	require.Equal(t, 500*time.Microsecond, embed.Mean)
	require.Equal(t, 140, after[metricSearch].plus(before[metricSearch]).summary().Count)
	require.Equal(t, 5, after[metricLookup].since(before[metricLookup]).summary().Count, "a counter is read as a count, one series")
	require.InDelta(t, 50, after[metricGCs].since(before[metricGCs]).count, 1e-9, "a summary's _count alone, not its quantiles")
	require.InDelta(t, 0.05, after[metricGCPause].since(before[metricGCPause]).count, 1e-9)
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// TestRenderSharedMarksMisses: the shared section shows every class beside the targets, marks
// a miss, explains it in the notes, and prints the plans.
func TestRenderSharedMarksMisses(t *testing.T) {
	t.Parallel()
	fast := Latency{N: 10, P50: 2 * time.Millisecond, P99: 9 * time.Millisecond}
	slow := Latency{N: 10, P50: 9 * time.Millisecond, P99: 30 * time.Millisecond}
	rep := Report{Started: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC), Shared: &Shared{
		Layout:  SharedLayout{Total: 1000, Sizes: []int{100, 500, 300, 100}, GraphMinRows: 1000, ByClass: map[string]int{classExact: 3, classLarge: 1}},
		Classes: []SharedClass{{Class: classExact, Projects: 3, MinRows: 100, MaxRows: 500, Store: fast, Search: fast}, {Class: classLarge, Projects: 1, MinRows: 100, MaxRows: 100, Store: slow, Search: fast}},
		All:     SharedClass{Class: "all", Store: slow, Search: fast},
		Recall:  []SharedRecall{{Project: "p", Rows: 100, Class: classLarge, Recall: 0.9}},
		Explain: []SharedExplain{{Project: "p", Rows: 100, Class: classLarge, Plan: "Limit\n  ->  Index Scan using memories_graph_x"}},
	}}
	md := Render(rep)
	require.Contains(t, md, "## Shared database: 1000 memories in 4 projects, timed at the MCP client")
	require.Contains(t, md, "| memory_store p50 | <= 5.00 ms | 2.00 ms | **9.00 ms** | **9.00 ms** |")
	require.Contains(t, md, "| memory_search top-10 p99 | <= 25.00 ms | 9.00 ms | 9.00 ms | 9.00 ms |")
	require.Contains(t, md, "| p (100 rows, large) | >= 0.95 | **0.900** |")
	require.Contains(t, md, "\n      ->  Index Scan using memories_graph_x")
	require.Contains(t, md, "Shared layout, large projects: store p50 9.00 ms")
}

// TestRenderOnlySharedIsOneSectionOfItsSettings: a run of the shared round alone (make
// bench-1m) is one section headed by the Postgres settings it ran at, with what was prewarmed,
// the machine and that run's misses, and no file header, so two runs stack in one file.
func TestRenderOnlySharedIsOneSectionOfItsSettings(t *testing.T) {
	t.Parallel()
	fast := Latency{N: 10, P50: 2 * time.Millisecond, P99: 9 * time.Millisecond}
	slow := Latency{N: 10, P50: 2 * time.Millisecond, P99: 30 * time.Millisecond}
	shared := func(pw *Prewarm, search Latency) *Shared {
		return &Shared{
			Layout:  SharedLayout{Total: 1000, Sizes: []int{100, 500, 300, 100}, GraphMinRows: 1000, ByClass: map[string]int{classExact: 3, classLarge: 1}},
			Classes: []SharedClass{{Class: classLarge, Projects: 1, MinRows: 100, MaxRows: 100, Store: fast, Search: search}},
			All:     SharedClass{Class: "all", Store: fast, Search: search},
			Prewarm: pw,
		}
	}
	cold := Render(Report{Config: Config{OnlyShared: true}, Machine: Machine{SharedBuffers: "256MB", HugePages: "none reserved"}, Shared: shared(nil, slow)})
	require.True(t, strings.HasPrefix(cold, "\n## 1000 memories in 4 projects, shared_buffers 256MB\n"), cold[:80])
	require.NotContains(t, cold, "# Benchmarks")
	require.NotContains(t, cold, "prewarmed")
	require.Contains(t, cold, "| PostgreSQL | , shared_buffers 256MB, huge pages: none reserved |")
	require.Contains(t, cold, "Misses in this run:\n\n- Shared layout, large projects:")

	sized := Render(Report{Config: Config{OnlyShared: true}, Machine: Machine{SharedBuffers: "7GB"},
		Shared: shared(&Prewarm{Pages: 128, Bytes: 1 << 20, Took: time.Second}, fast)})
	require.Contains(t, sized, "## 1000 memories in 4 projects, shared_buffers 7GB, prewarmed\n")
	require.Contains(t, sized, "| table and indexes prewarmed into shared_buffers (pg_prewarm) | 128 pages (1 MiB) in 1s |")
	require.Contains(t, sized, "Misses in this run: none, every target was met.")
}

// TestASharedMissSaysWhy: a missed shared-layout target is explained from the class's own
// figures: the flush when the unflushed writes meet it, the service when its own tail misses,
// else the client's side; a slow nearest-neighbour query names the memory it needs.
func TestASharedMissSaysWhy(t *testing.T) {
	t.Parallel()
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	c := SharedClass{Store: Latency{N: 9, P50: ms(3), P99: ms(40)}, Search: Latency{N: 9, P50: ms(3), P99: ms(9)},
		StoreUnflushed: Latency{N: 9, P50: ms(2), P99: ms(12)}}
	require.Contains(t, sharedWhy(c, false), "the store's miss is the commit's fdatasync")

	c.StoreUnflushed.P99 = ms(30)
	c.StoreServer = ServerTime{P50: ms(2), P99: ms(35)}
	c.Checkpoints = 2
	require.Contains(t, sharedWhy(c, false), "The service's own store p99 is 35.00 ms (checkpoints beside the calls: 2")

	c.StoreServer.P99 = ms(10)
	require.Contains(t, sharedWhy(c, false), "the rest is the call's MCP, HTTP and JSON")
	require.NotContains(t, sharedWhy(c, false), "search")

	c.Search.P99 = ms(60)
	c.Nearest, c.Lookups = Latency{N: 5, P99: ms(50)}, 5
	require.Contains(t, sharedWhy(c, false), "The nearest-neighbour query alone has p99 50.00 ms (run by 5 of 9 searches): the pages")
	require.Contains(t, sharedWhy(c, true), "with the layout held in shared_buffers", "a sized layout's tail is not pages read in")

	c.Nearest, c.SearchServer = Latency{}, ServerTime{P99: ms(30)}
	require.Contains(t, sharedWhy(c, false), "The service's own search p99 is 30.00 ms: the tail", "no nearest-neighbour figure when it was not timed")
}
