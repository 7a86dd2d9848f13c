package bench

import (
	"fmt"
	"strings"
	"time"
)

// denseMethod says what the dense rounds are and are not.
const denseMethod = `The shared-database round again, with dense vectors of the given width: the densefake
plugin (host/internal/testkit/testplugins/densefake) embeds with the model of the fake
OpenAI-compatible runtime (sdk/embedder/embeddertest/openaifake), computed in the plugin process
rather than over HTTP, so the times are memhost's and Postgres's, without a real model's
inference. Its ranking quality is the fake's, not a real model's. After the timed calls the
re-embed job (maintenance.reembed) gives the large project's memories their vectors back, as
after an embedder switch: a host on the layout times agents' calls idle, then runs the job
(POST /api/v1/maintenance/reembed/run) while the calls go on, and its background indexer moves
the rows into the project's graph.
`

// renderDense writes one dense round.
func renderDense(b *strings.Builder, d Dense, note func(string, ...any)) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	s := d.Shared
	// The shared round's misses, said of this width.
	widthNote := func(format string, args ...any) {
		note("Dense %d: "+format, append([]any{d.Embedder.Dimensions}, args...)...)
	}
	renderShared(b, s, fmt.Sprintf("Dense vectors, %d dimensions (%s): %d memories in %d projects, timed at the MCP client",
		d.Embedder.Dimensions, d.Embedder.Name, s.Layout.Total, len(s.Layout.Sizes)), false, widthNote)
	w("\n")
	w(denseMethod)
	r := d.Reembed
	w("\n| re-embed and fold | |\n| --- | --- |\n")
	w("| re-embed of %s (one job run, batches of 64 through the plugin) | %d memories in %s: %.0f/s |\n", r.Project, r.Rows, r.Took.Round(time.Millisecond), r.Rate())
	w("| - then the indexer into the project's graph (the host's beside the calls for up to %s: %d rows; then one alone) | %s |\n", reembedBusyIndexing, r.Indexed, drained(r.Drained, r.DrainTime))
	sr, qr := ratio(r.BusyStore.P99, r.IdleStore.P99), ratio(r.BusySearch.P99, r.IdleSearch.P99)
	w("| agents' memory_store p99 at the MCP client: idle (%d) / while the host re-embeds and indexes (%d) | %s / %s = %.2fx (target <= %.1fx: %s) |\n",
		r.IdleStore.N, r.BusyStore.N, ms(r.IdleStore.P99), ms(r.BusyStore.P99), sr, targetReembedRatio, verdict(sr <= targetReembedRatio))
	w("| agents' memory_search p99: idle / while the host re-embeds and indexes | %s / %s = %.2fx (target <= %.1fx: %s) |\n",
		ms(r.IdleSearch.P99), ms(r.BusySearch.P99), qr, targetReembedRatio, verdict(qr <= targetReembedRatio))
	w("| - those calls while the job ran (%d) / then while the indexer ran (%d): store p99; search p99 | %s / %s; %s / %s |\n",
		r.JobStore.N, r.IndexStore.N, ms(r.JobStore.P99), ms(r.IndexStore.P99), ms(r.JobSearch.P99), ms(r.IndexSearch.P99))
	w("| - those calls to the re-embedded project (%d) / to the others (%d): store p99; search p99 | %s / %s; %s / %s |\n",
		r.LargeStore.N, r.OtherStore.N, ms(r.LargeStore.P99), ms(r.OtherStore.P99), ms(r.LargeSearch.P99), ms(r.OtherSearch.P99))
	if sr > targetReembedRatio || qr > targetReembedRatio {
		note("Dense %d: a re-embed moved agents' p99 by %.2fx (store) and %.2fx (search) against the %.1fx target: the job's batches and the indexer's graph insertions share the two cores with the calls, and until the indexer has moved the re-embedded rows their project's searches scan them exactly (the rows split by phase and by project say which weighed more). What would take it under: a larger memory.background_yield (the job and the indexer rest longer while agents call, and the re-embed takes longer), and an indexer that moves a re-embedded project's rows into its graph before they are searched.", d.Embedder.Dimensions, sr, qr, targetReembedRatio)
	}
	f := d.Fold
	if f.Calibrated > 0 {
		for _, row := range f.Sweep {
			if row.Threshold == f.Calibrated {
				w("| fold threshold calibrated on the fold set (%d pairs): the lowest whose false folds, as the write path decides, stay <= %.1f%% | %.2f (write path: %.2f%% false / %.1f%% missed; cosine alone: %.1f%% false / %.1f%% missed) |\n",
					f.Pairs, 100*targetFalseFold, f.Calibrated, 100*row.Rule.FalseFold, 100*row.Rule.MissedFold, 100*row.Cosine.FalseFold, 100*row.Cosine.MissedFold)
			}
		}
	} else {
		w("| fold threshold calibrated on the fold set (%d pairs) | none from 0.50 to 0.99 keeps the write path's false folds <= %.1f%% |\n", f.Pairs, 100*targetFalseFold)
		note("Dense %d: no fold threshold from 0.50 to 0.99 keeps the write path's false folds within %.1f%%.", d.Embedder.Dimensions, 100*targetFalseFold)
	}
	var sweep []string
	for _, row := range f.Sweep {
		if int(row.Threshold*100+0.5)%5 == 0 || row.Threshold == f.Calibrated {
			sweep = append(sweep, fmt.Sprintf("%.2f: %.1f%% / %.1f%% (%.2f%% / %.1f%%)", row.Threshold, 100*row.Cosine.FalseFold, 100*row.Cosine.MissedFold,
				100*row.Rule.FalseFold, 100*row.Rule.MissedFold))
		}
	}
	w("| - false / missed folds by threshold: cosine alone (write path) | %s |\n", strings.Join(sweep, "; "))
}

// renderOnlyDense is a run of the dense rounds alone (Config.OnlyDense).
func renderOnlyDense(r Report) string {
	var b strings.Builder
	var notes []string
	note := func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) }
	for _, d := range r.Dense {
		renderDense(&b, d, note)
	}
	renderScorecard(&b, r, "## Targets in this run")
	fmt.Fprintf(&b, "\n| run | |\n| --- | --- |\n| date | %s (%s) |\n| machine | %d CPUs, %s, %s RAM |\n| PostgreSQL | %s, shared_buffers %s |\n",
		r.Started.UTC().Format("2006-01-02 15:04 UTC"), r.Elapsed.Round(time.Second), r.Machine.CPUs, r.Machine.CPUModel, r.Machine.RAM,
		r.Machine.Postgres, r.Machine.SharedBuffers)
	b.WriteString("\nMisses in this run:")
	if len(notes) == 0 {
		b.WriteString(" none, every target was met.\n")
	} else {
		b.WriteString("\n\n")
		for _, n := range notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	return b.String()
}
