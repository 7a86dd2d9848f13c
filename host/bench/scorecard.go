package bench

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// targetANNSearchP50 bounds memory_search p50 in the project whose ANN recall is judged: the
// recall must not be bought with a walk too wide to answer in time.
const targetANNSearchP50 = 8 * time.Millisecond

// targetVectorLag bounds how long a write stored before its vector waits for it ("within
// seconds").
const targetVectorLag = 10 * time.Second

// scoreRow is one performance target as this run measured it.
type scoreRow struct {
	Target   string // what must hold, with its bound
	Measured string // the figures it was judged on
	OK       bool
	Section  string // the report's section that holds the details
}

// scorecard is every performance target the run measured (DESIGN.md "Performance targets",
// issue 29's "What to reach"), one row each (a size round's targets share one), judged by the same constants as the sections
// below it: a reader sees at the head of the report what passed and what missed, and where
// to read why. Rounds the run skipped have no rows.
func scorecard(r Report) []scoreRow {
	var rows []scoreRow
	add := func(ok bool, section, target, format string, args ...any) {
		rows = append(rows, scoreRow{Target: target, Measured: fmt.Sprintf(format, args...), OK: ok, Section: section})
	}
	if rt := r.RoundTrip; rt.N > 0 {
		add(rt.P50 <= targetRTTP50 && rt.P99 <= targetRTTP99, "Plugin round trip",
			fmt.Sprintf("a plugin call's round trip p50 <= %s, p99 <= %s", ms(targetRTTP50), ms(targetRTTP99)),
			"%s / %s", ms(rt.P50), ms(rt.P99))
	}
	for _, s := range r.Scales {
		im, bn := s.Import, s.Banner
		add(im.Rate() >= targetImportRate && s.Store.P50 <= targetStoreP50 && s.Store.P99 <= targetStoreP99 &&
			s.Search.P50 <= targetSearchP50 && s.Search.P99 <= targetSearchP99 &&
			bn.Render.P99 <= targetBannerRenderP99 && bn.Fetch.P50 <= targetBannerFetchP50,
			fmt.Sprintf("%d memories in one project", s.N),
			fmt.Sprintf("%d in one project (in the service): import >= %.0f/s, memory_store p50 / p99 <= %s / %s, memory_search <= %s / %s, banner render p99 <= %s, fetch p50 <= %s",
				s.N, targetImportRate, ms(targetStoreP50), ms(targetStoreP99), ms(targetSearchP50), ms(targetSearchP99), ms(targetBannerRenderP99), ms(targetBannerFetchP50)),
			"%.0f/s; %s / %s; %s / %s; %s, %s", im.Rate(), ms(s.Store.P50), ms(s.Store.P99), ms(s.Search.P50), ms(s.Search.P99), ms(bn.Render.P99), ms(bn.Fetch.P50))
	}
	if p := r.Peers; p != nil && len(p.Sides) > 1 {
		m, pe := p.Sides[0], p.Sides[len(p.Sides)-1]
		o := p.optIn()
		sec := "Side by side with " + p.Peer + ", at the MCP client"
		sr, sr99, qr := ratio(m.Store.P50, pe.Store.P50), ratio(m.Store.P99, pe.Store.P99), ratio(m.Search.P50, pe.Search.P50)
		add(sr <= targetPeerStoreRatio, sec, fmt.Sprintf("memory_store p50 <= %.1fx the peer's, same run", targetPeerStoreRatio),
			"%s vs %s = %.2fx (opt-in flush_writes = false: %.2fx)", ms(m.Store.P50), ms(pe.Store.P50), sr, ratio(o.Store.P50, pe.Store.P50))
		add(sr99 <= 1, sec, "memory_store p99 <= the peer's",
			"%s vs %s = %.2fx (opt-in: %.2fx)", ms(m.Store.P99), ms(pe.Store.P99), sr99, ratio(o.Store.P99, pe.Store.P99))
		add(qr <= 1, sec, "memory_search p50 <= the peer's",
			"%s vs %s = %.2fx", ms(m.Search.P50), ms(pe.Search.P50), qr)
	}
	if lo, hi, ok := flatness(r.Scales); ok {
		f := ratio(hi.Store.P50, lo.Store.P50)
		add(f <= targetFlat, fmt.Sprintf("memory_store from %d to %d memories in one project", lo.N, hi.N),
			fmt.Sprintf("memory_store p50 at %d <= %.1fx its p50 at %d (in the service)", hi.N, targetFlat, lo.N),
			"%s / %s = %.2fx", ms(hi.Store.P50), ms(lo.Store.P50), f)
	}
	if len(r.Scales) > 0 {
		s := slices.MaxFunc(r.Scales, func(a, b Scale) int { return a.N - b.N })
		add(s.Recall >= targetRecall && s.Search.P50 <= targetANNSearchP50, fmt.Sprintf("%d memories in one project", s.N),
			fmt.Sprintf("ANN recall@10 >= %.2f at %d in one project, memory_search p50 <= %s (in the service)", targetRecall, s.N, ms(targetANNSearchP50)),
			"recall %.3f (hnsw.ef_search %d), search p50 %s", s.Recall, s.EfSearch, ms(s.Search.P50))
	}
	if s := r.Shared; s != nil {
		sharedRows(add, fmt.Sprintf("Shared database: %d memories in %d projects, timed at the MCP client", s.Layout.Total, len(s.Layout.Sizes)),
			fmt.Sprintf("%d in %d projects", s.Layout.Total, len(s.Layout.Sizes)), s.All)
	}
	for _, d := range r.Dense {
		s := d.Shared
		sec := fmt.Sprintf("Dense vectors, %d dimensions (%s): %d memories in %d projects, timed at the MCP client", d.Embedder.Dimensions, d.Embedder.Name, s.Layout.Total, len(s.Layout.Sizes))
		sharedRows(add, sec, fmt.Sprintf("dense %d-d, %d in %d projects", d.Embedder.Dimensions, s.Layout.Total, len(s.Layout.Sizes)), s.All)
		e := d.Reembed
		sr, qr := ratio(e.BusyStore.P99, e.IdleStore.P99), ratio(e.BusySearch.P99, e.IdleSearch.P99)
		add(sr <= targetReembedRatio && qr <= targetReembedRatio, sec,
			fmt.Sprintf("a re-embed (dense %d-d) moves agents' store and search p99 <= %.1fx", d.Embedder.Dimensions, targetReembedRatio),
			"store %s -> %s = %.2fx, search %s -> %s = %.2fx", ms(e.IdleStore.P99), ms(e.BusyStore.P99), sr, ms(e.IdleSearch.P99), ms(e.BusySearch.P99), qr)
	}
	if s := r.Slow; s != nil {
		sec := "A slow CPU model on the write path (" + s.Model + ")"
		f := ratio(s.Slow.P50, s.Floor.P50)
		add(f <= 2, sec, "a real CPU model configured: memory_store p50 <= 2x the floor's, same run",
			"%s vs %s = %.2fx; %d of %d writes answered before their vector", ms(s.Slow.P50), ms(s.Floor.P50), f, s.Pending, s.Slow.N)
		add(s.Left == 0 && s.Lag.P99 <= targetVectorLag && s.Lexical == s.Slow.N, sec,
			fmt.Sprintf("its vector follows within %s, the write found lexically meanwhile", targetVectorLag),
			"lag p50 %s / p99 %s, %d left; found right after the write %d of %d", ms(s.Lag.P50), ms(s.Lag.P99), s.Left, s.Lexical, s.Slow.N)
	}
	if s := r.Spawn; s != nil {
		add(s.Overhead.P50 <= targetSpawnP50 && s.Overhead.P99 <= targetSpawnP99, fmt.Sprintf("Spawn injection: `memhost run %s` (%d runs, project of %d facts)", s.CLI, s.Overhead.N, s.Facts),
			fmt.Sprintf("spawn overhead p50 <= %s, p99 <= %s, attributed", ms(targetSpawnP50), ms(targetSpawnP99)),
			"%s / %s (%d steps timed)", ms(s.Overhead.P50), ms(s.Overhead.P99), len(s.Phases))
	}
	return rows
}

// sharedRows adds the targets of a database shared by many projects, judged on every class's
// calls together.
func sharedRows(add func(ok bool, section, target, format string, args ...any), section, layout string, all SharedClass) {
	add(all.Store.P50 <= targetSharedStoreP50 && all.Store.P99 <= targetSharedStoreP99, section,
		fmt.Sprintf("%s: memory_store p50 / p99 <= %s / %s", layout, ms(targetSharedStoreP50), ms(targetSharedStoreP99)),
		"%s / %s (opt-in flush_writes = false: %s / %s)", ms(all.Store.P50), ms(all.Store.P99), ms(all.StoreUnflushed.P50), ms(all.StoreUnflushed.P99))
	add(all.Search.P50 <= targetSharedSearchP50 && all.Search.P99 <= targetSharedSearchP99, section,
		fmt.Sprintf("%s: memory_search p50 / p99 <= %s / %s", layout, ms(targetSharedSearchP50), ms(targetSharedSearchP99)),
		"%s / %s", ms(all.Search.P50), ms(all.Search.P99))
}

// renderScorecard writes the scorecard under heading, with the machine's load, which moves
// every figure on a shared machine.
func renderScorecard(b *strings.Builder, r Report, heading string) {
	rows := scorecard(r)
	if len(rows) == 0 {
		return
	}
	missed := 0
	for _, row := range rows {
		if !row.OK {
			missed++
		}
	}
	fmt.Fprintf(b, "\n%s\n\n", heading)
	fmt.Fprintf(b, "%d of %d targets met on %d CPUs (load averages at the start / the end of the run: %s / %s). Each row is judged as its section below judges it; the notes on misses at the end say why each miss is one.",
		len(rows)-missed, len(rows), r.Machine.CPUs, r.LoadAvg[0], r.LoadAvg[1])
	if !r.Config.OnlyShared {
		fmt.Fprintf(b, " `make bench-1m` judges the 1M layout in docs/benchmarks-1m.md.")
	}
	fmt.Fprintf(b, "\n\n")
	fmt.Fprintf(b, "| target | measured | | section |\n| --- | --- | --- | --- |\n")
	for _, row := range rows {
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", row.Target, row.Measured, verdict(row.OK), row.Section)
	}
}
