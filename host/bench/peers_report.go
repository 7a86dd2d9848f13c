package bench

import (
	"fmt"
	"strings"
)

// Targets of the peers round (issue 29; DESIGN.md "Performance targets"): memory_store p50
// within 1.5x of the peer's (aim: parity) and p99 no higher; memory_search p50 no higher.
const targetPeerStoreRatio = 1.5

// peersMethod says how the peers round is run.
const peersMethod = `memhost and [@ai-devkit/memory](https://www.npmjs.com/package/@ai-devkit/memory) (SQLite with
FTS5, an MCP server over stdio; pinned in host/bench/peers, installed by ` + "`npm ci`" + `) get the
same writes and the same questions through their MCP servers, from one client process, one call
on each in turn (the order rotates, so no side always goes first), so all meet the machine at the same
moment. memhost is a real ` + "`memhost serve`" + ` with the BM25 plugin, reached over streamable HTTP (as
` + "`memhost run`" + ` gives a CLI its tools) and through ` + "`memhost mcp`" + ` (the stdio forwarder ` + "`memhost connect`" + `
registers), the two alternating on one host and one project. memhost's sessions connect as the
coding CLIs do, asking for no structured output, so each answer is the text a model reads; a call
is timed from ` + "`CallTool`" + ` to the answer received and parsed by the MCP client, and the bench's
own reading of it (JSON for the peer, the text for memhost) is left out on both sides. The texts are the shared round's
prose (Go standard library doc comments of 50 characters and more, the peer's minimum); the
peer is given the text as its content and the text cut at a word before 100 characters as its
title. Both sides first get the same preload through their store tools, then the timed writes
(one in seven restates a preloaded fact with a lead-in, which memhost folds and the peer stores
as another row), then the timed questions (three to five content words of a stored fact, top
10). The peer runs with its defaults: FTS5 alone (its optional semantic search downloads a model
at first use), and SQLite in WAL mode with synchronous=NORMAL (its dist/database/connection.js
sets ` + "`journal_mode = WAL`" + ` and ` + "`synchronous = NORMAL`" + `): a commit does not wait for the disk, so a killed
process loses nothing but a crash of the OS or a power cut may lose the last commits. memhost's
default is stricter: a write waits for Postgres's WAL flush, so every acknowledged write
survives a crash of Postgres or the machine. For a like-for-like comparison a second memhost
host, configured with ` + "`memory.flush_writes = false`" + ` (the operator's opt-in, the peer's durability:
a kill -9 loses nothing, a crash of Postgres or the OS up to ~3 x wal_writer_delay of writes),
gets the same calls over HTTP in the same rotation, on a database schema of its own; the
ratios are given both ways.
`

// optIn is the side of the host with memory.flush_writes = false; its zero value (no calls)
// when the round ran without it.
func (r Peers) optIn() PeerSide {
	if r.OptIn > 0 && r.OptIn < len(r.Sides)-1 {
		return r.Sides[r.OptIn]
	}
	return PeerSide{}
}

// renderPeers writes the peers round.
func renderPeers(b *strings.Builder, r Peers, note func(string, ...any)) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("\n## Side by side with %s, at the MCP client\n\n", r.Peer)
	w(peersMethod)
	w("\n| at the MCP client | memory_store p50 | p99 | memory_search top-10 p50 | p99 | source fact in the top 10 |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, s := range r.Sides {
		w("| %s | %s | %s | %s | %s | %d of %d |\n", s.Name, ms(s.Store.P50), ms(s.Store.P99), ms(s.Search.P50), ms(s.Search.P99), s.SelfHit, s.Search.N)
	}
	m, pe := r.Sides[0], r.Sides[len(r.Sides)-1]
	sr, sr99, qr := ratio(m.Store.P50, pe.Store.P50), ratio(m.Store.P99, pe.Store.P99), ratio(m.Search.P50, pe.Search.P50)
	w("\n| memhost / peer | target | default (flush_writes = true) | | opt-in (flush_writes = false, the peer's durability) | |\n| --- | --- | --- | --- | --- | --- |\n")
	o := r.optIn()
	both := func(name, target string, def, opt float64, limit float64) {
		optCell, optVerdict := "not run", ""
		if o.Store.N > 0 {
			optCell, optVerdict = fmt.Sprintf("%.2fx", opt), verdict(opt <= limit)
		}
		w("| %s | %s | %.2fx | %s | %s | %s |\n", name, target, def, verdict(def <= limit), optCell, optVerdict)
	}
	both("memory_store p50", fmt.Sprintf("<= %.1fx (aim 1x)", targetPeerStoreRatio), sr, ratio(o.Store.P50, pe.Store.P50), targetPeerStoreRatio)
	both("memory_store p99", "<= 1x", sr99, ratio(o.Store.P99, pe.Store.P99), 1)
	both("memory_search p50", "<= 1x", qr, ratio(o.Search.P50, pe.Search.P50), 1)
	w("\n| | |\n| --- | --- |\n")
	w("| preloaded into each (through the store tool) | %d facts |\n", r.Preloaded)
	w("| timed calls per side (memhost's two surfaces share its half) | %d stores, %d searches |\n", pe.Store.N, pe.Search.N)
	w("| restatements among the writes: memhost folded / timed writes the peer refused (a duplicate title or content, or a text it calls generic) | %d of %d / %d |\n", r.Folded, r.Paraphrase, r.Rejected)
	w("| memhost's service time (its /metrics): store mean / p50 / p99 | %s / %s / %s |\n", ms(r.StoreSvc.Mean), ms(r.StoreSvc.P50), ms(r.StoreSvc.P99))
	w("| memhost's service time: search mean / p50 / p99 | %s / %s / %s |\n", ms(r.SearchSvc.Mean), ms(r.SearchSvc.P50), ms(r.SearchSvc.P99))
	w("| machine load (1/5/15-min load average) before / after the timed calls | %s / %s |\n", r.LoadAvg[0], r.LoadAvg[1])
	if sr > targetPeerStoreRatio || sr99 > 1 || qr > 1 {
		note("Side by side with %s: memory_store p50 %.2fx and p99 %.2fx the peer's, memory_search p50 %.2fx (targets <= %.1fx, <= 1x, <= 1x), with memhost's default durable writes; with memory.flush_writes = false (the peer's durability) memory_store p50 %.2fx and p99 %.2fx; memhost's service time is in the table, the rest is MCP, HTTP and JSON on the client's side; \"Where the time goes\" splits a write into its steps and says what parity would take.",
			r.Peer, sr, sr99, qr, targetPeerStoreRatio, ratio(o.Store.P50, pe.Store.P50), ratio(o.Store.P99, pe.Store.P99))
	}
}
