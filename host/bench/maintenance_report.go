package bench

import (
	"fmt"
	"strings"
	"time"
)

// targetMaintenanceSlowdown is issue 18's bound on agents' calls while a maintenance pass
// runs: p99 no worse than 1.5x idle.
const targetMaintenanceSlowdown = 1.5

// renderMaintenance writes the maintenance round's section.
func renderMaintenance(b *strings.Builder, m MaintenanceBench) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("\n## Maintenance pass: %d memories in %d projects, a stand-in model behind memhost-worker-openaicompat\n\n", m.Memories, m.Projects)
	w("%d of the memories are reworded copies of a fact in the same project, stored past the write-time fold. Every job runs once across all projects through `POST /api/v1/maintenance/{job}/run`, one after another; the stand-in model answers each task at once (merge: the longest statement; conflicts: none), so the times are memhost's own. Quality of real models' merges is not measured here.\n\n", m.Duplicates)
	w("| job | wall | outcome | examined | changed | LLM calls | tokens | LLM calls / 1,000 memories | tokens / 1,000 memories |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	per1k := func(n int64) string { return fmt.Sprintf("%.1f", float64(n)*1000/float64(max(m.Memories, 1))) }
	for _, j := range m.Jobs {
		w("| %s | %s | %s | %d | %d | %d | %d | %s | %s |\n", j.Job, j.Wall.Round(time.Millisecond), oneCell(j.Outcome), j.Examined, j.Changed, j.LLMCalls, j.Tokens, per1k(j.LLMCalls), per1k(j.Tokens))
	}
	w("| **whole pass** | %s | | | | %d model requests | | | |\n", m.Wall.Round(time.Millisecond), m.ModelCalls)
	if m.Merges.Deterministic+m.Merges.Model > 0 {
		w("\nMemories merged away: %d without a model (identical normalised text, or near-identical vectors with the same specifics), %d by the merge chain (%.0f%% deterministic).\n",
			m.Merges.Deterministic, m.Merges.Model, 100*float64(m.Merges.Deterministic)/float64(m.Merges.Deterministic+m.Merges.Model))
	}
	w("\nAgents' calls at the MCP client (a store of a new fact, then a search, against a random project):\n\n")
	w("| call | idle p50 | idle p99 | during the pass p50 | during the pass p99 | p99 ratio | target | |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n")
	row := func(name string, idle, busy Latency) {
		ratio := float64(busy.P99) / float64(max(idle.P99, 1))
		w("| %s (%d idle, %d during) | %s | %s | %s | %s | %.2fx | <= %.1fx | %s |\n", name, idle.N, busy.N, ms(idle.P50), ms(idle.P99), ms(busy.P50), ms(busy.P99), ratio, targetMaintenanceSlowdown, verdict(ratio <= targetMaintenanceSlowdown))
	}
	row("memory_store", m.IdleStore, m.BusyStore)
	row("memory_search", m.IdleSearch, m.BusySearch)
}

// oneCell keeps a table cell on one line.
func oneCell(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "\n", " "), "|", "/") }
