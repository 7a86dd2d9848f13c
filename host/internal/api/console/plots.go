package console

import (
	"fmt"
	"html/template"
	"math"
	"sort"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/store"
)

// The Plots screen: where an operator would rather look than read, drawn from the host's own
// figures: the project's facts added, folded, merged and archived per day; how its facts are
// used; the LLM workers' calls, tokens and latency per day (host-wide); the search and store
// latency percentiles since the host started.

// plotDays is how far back the daily plots reach.
const plotDays = 30

// plot is one chart and the figures it draws, for the table beside it.
type plot struct {
	Chart   template.HTML
	Title   string
	Columns []string
	Rows    [][]string
}

// plotsView is the Plots screen's data.
type plotsView struct {
	Project string
	Plots   []plot
	Notes   []string
}

func (c *Console) plots(cl *call) error {
	v := plotsView{}
	ctx := cl.r.Context()
	since := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -(plotDays - 1))
	days := dayLabels(since)
	if c.Figures != nil && (cl.p.ProjectKey != "" || cl.r.FormValue("project") != "") {
		acc, err := cl.resolve()
		if err != nil {
			return err
		}
		v.Project = acc.Project
		act, err := c.Figures.DailyActivity(ctx, acc.Project, since)
		if err != nil {
			return err
		}
		v.Plots = append(v.Plots, activityPlot(days, since, act))
		use, err := c.Figures.UseSpread(ctx, acc.Project)
		if err != nil {
			return err
		}
		v.Plots = append(v.Plots, usePlot(use))
		val, err := c.Brain.Value(ctx, acc, brain.ValueRequest{Since: plotDays * 24 * time.Hour})
		if err != nil {
			return err
		}
		v.Plots = append(v.Plots, valuePlot(val))
	} else {
		v.Notes = append(v.Notes, "Open a project to plot its memories.")
	}
	if c.Figures != nil && cl.p.HostWide() {
		calls, err := c.Figures.DailyCalls(ctx, since)
		if err != nil {
			return err
		}
		v.Plots = append(v.Plots, callPlots(days, since, calls)...)
	} else {
		v.Notes = append(v.Notes, "The LLM workers' figures are every project's: they are plotted for an admin token bound to no project.")
	}
	if c.Metrics != nil {
		if p, ok := latencyPlot(c.Metrics); ok {
			v.Plots = append(v.Plots, p)
		}
	}
	c.render(cl.w, cl.r, cl, 200, "plots", v)
	return nil
}

// dayLabels names the plotDays days from since.
func dayLabels(since time.Time) []string {
	out := make([]string, plotDays)
	for i := range out {
		out[i] = since.AddDate(0, 0, i).Format("01-02")
	}
	return out
}

// dayIndex is d's place among the days from since, or -1.
func dayIndex(since, d time.Time) int {
	i := int(d.Sub(since).Hours() / 24)
	if i < 0 || i >= plotDays {
		return -1
	}
	return i
}

func activityPlot(days []string, since time.Time, act []store.DayActivity) plot {
	added, folded, merged, archived := make([]float64, plotDays), make([]float64, plotDays), make([]float64, plotDays), make([]float64, plotDays)
	p := plot{Title: "Facts added, folded, merged and archived per day", Columns: []string{"day", "added", "folded", "merged", "archived", "restored"}}
	for _, a := range act {
		if i := dayIndex(since, a.Day); i >= 0 {
			added[i], folded[i], merged[i], archived[i] = float64(a.Added), float64(a.Folded), float64(a.Merged), float64(a.Archived)
		}
		p.Rows = append(p.Rows, []string{a.Day.Format("2006-01-02"), num(a.Added), num(a.Folded), num(a.Merged), num(a.Archived), num(a.Restored)})
	}
	p.Chart = chart(chartSpec{ID: "activity", Title: p.Title, Desc: "One group of bars per day over the last 30 days, from the history ledger.",
		Labels: days, Series: []series{{"added", "s1", added}, {"folded", "s2", folded}, {"merged", "s3", merged}, {"archived", "s4", archived}}})
	return p
}

func usePlot(u store.UseSpread) plot {
	p := plot{Title: "Live facts by uses (reads with memory_get)", Columns: []string{"uses", "facts"}}
	var labels []string
	var vals []float64
	for _, b := range u.Buckets {
		l := num(b.Min)
		switch {
		case b.Max < 0:
			l += "+"
		case b.Max != b.Min:
			l += "–" + num(b.Max)
		}
		labels = append(labels, l)
		vals = append(vals, float64(b.Facts))
		p.Rows = append(p.Rows, []string{l, num(b.Facts)})
	}
	p.Rows = append(p.Rows, []string{"never returned by a search or get", num(u.NeverRetrieved)}, []string{"live facts", num(u.Live)})
	p.Chart = chart(chartSpec{ID: "use", Title: p.Title, Desc: "How many live facts were used how often: what is used and what never is.",
		Labels: labels, Series: []series{{"facts", "s1", vals}}})
	return p
}

// valuePlot draws the value figures (brain.Value) of the window's newest sessions, oldest
// first: the memories each was given, and of them those it used (cited or retrieved), beside
// what it retrieved and cited in all.
func valuePlot(r brain.ValueReport) plot {
	p := plot{Title: "What each session was given and used", Columns: []string{"session", "cli", "started", "given", "used", "retrieved", "cited", "tokens saved (estimate)"}}
	n := len(r.Sessions)
	labels := make([]string, n)
	given, used, retrieved, cited := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i, sv := range r.Sessions {
		j := n - 1 - i // the report lists newest first
		labels[j] = sv.StartedAt.UTC().Format("01-02 15:04")
		given[j], used[j], retrieved[j], cited[j] = float64(sv.Given), float64(sv.Used), float64(sv.Retrieved), float64(sv.Cited)
		p.Rows = append(p.Rows, []string{sv.Key, sv.CLI, sv.StartedAt.UTC().Format("2006-01-02 15:04"), num(sv.Given), num(sv.Used), num(sv.Retrieved), num(sv.Cited), num(sv.Saved)})
	}
	t := r.Totals
	p.Rows = append(p.Rows, []string{fmt.Sprintf("all %d sessions", t.Sessions), "", "", num(t.Injected), fmt.Sprintf("%s of %s distinct given ever used (%.0f%%)", num(t.InjectedEverUsed), num(t.DistinctInjected), 100*t.UsedShare),
		num(t.Retrieved), num(t.Cited), num(t.Saved)})
	p.Chart = chart(chartSpec{ID: "value", Title: p.Title, Desc: fmt.Sprintf("For the newest %d sessions of the last %d days, oldest first: the memories each was given, those of them it used, and what it retrieved and cited.", n, plotDays),
		Labels: labels, Series: []series{{"given", "s1", given}, {"used", "s3", used}, {"retrieved", "s2", retrieved}, {"cited", "s4", cited}}})
	return p
}

func callPlots(days []string, since time.Time, calls []store.DayCalls) []plot {
	n, failed, tokens, p50, p95 := make([]float64, plotDays), make([]float64, plotDays), make([]float64, plotDays), make([]float64, plotDays), make([]float64, plotDays)
	table := [][]string{}
	for _, d := range calls {
		if i := dayIndex(since, d.Day); i >= 0 {
			n[i], failed[i], tokens[i], p50[i], p95[i] = float64(d.Calls), float64(d.Failed), float64(d.Tokens), d.P50Ms, d.P95Ms
		}
		table = append(table, []string{d.Day.Format("2006-01-02"), num(d.Calls), num(d.Failed), num(d.Tokens), formatTick(d.P50Ms), formatTick(d.P95Ms)})
	}
	cols := []string{"day", "calls", "failed", "tokens", "p50 ms", "p95 ms"}
	return []plot{
		{Title: "LLM worker calls per day", Columns: cols, Rows: table, Chart: chart(chartSpec{ID: "calls", Title: "LLM worker calls per day",
			Desc: "Calls and failed calls per day, every project's.", Labels: days, Series: []series{{"calls", "s1", n}, {"failed", "s4", failed}}})},
		{Title: "LLM tokens per day", Chart: chart(chartSpec{ID: "tokens", Title: "LLM tokens per day", Desc: "Input and output tokens per day.",
			Labels: days, Series: []series{{"tokens", "s3", tokens}}})},
		{Title: "LLM call latency per day", Chart: chart(chartSpec{ID: "latency-calls", Title: "LLM call latency per day", Unit: "ms",
			Desc: "Median and 95th percentile latency of a worker call per day.", Labels: days, Line: true,
			Series: []series{{"p50", "s1", p50}, {"p95", "s4", p95}}})},
	}
}

// latencyMetrics are the memory service's histograms the latency plot reads.
var latencyMetrics = []struct{ name, label string }{
	{"memhost_memory_search_duration_seconds", "memory_search"},
	{"memhost_memory_store_duration_seconds", "memory_store"},
}

// latencyPlot draws the search and store latency percentiles since the host started, from its
// Prometheus histograms (interpolated within a bucket, as Prometheus's histogram_quantile
// does).
func latencyPlot(g interface {
	Gather() ([]*dto.MetricFamily, error)
}) (plot, bool) {
	fams, err := g.Gather()
	if err != nil {
		return plot{}, false
	}
	qs := []float64{0.5, 0.95, 0.99}
	p := plot{Title: "Search and store latency since the host started", Columns: []string{"call", "count", "p50 ms", "p95 ms", "p99 ms"}}
	var labels []string
	vals := make([][]float64, len(qs))
	for _, m := range latencyMetrics {
		buckets, count := mergedBuckets(fams, m.name)
		if count == 0 {
			continue
		}
		labels = append(labels, m.label)
		row := []string{m.label, num(int64(count))}
		for i, q := range qs {
			ms := 1000 * quantile(q, buckets, count)
			vals[i] = append(vals[i], ms)
			row = append(row, formatTick(math.Round(ms*100)/100))
		}
		p.Rows = append(p.Rows, row)
	}
	if len(labels) == 0 {
		return plot{}, false
	}
	p.Chart = chart(chartSpec{ID: "latency", Title: p.Title, Unit: "ms", Desc: "50th, 95th and 99th percentile latency of memory_search and memory_store on this host since it started.",
		Labels: labels, Series: []series{{"p50", "s1", vals[0]}, {"p95", "s2", vals[1]}, {"p99", "s4", vals[2]}}})
	return p, true
}

// bucket is one cumulative histogram bucket.
type bucket struct {
	upper float64
	count float64
}

// mergedBuckets sums one histogram family's series (store has one per outcome).
func mergedBuckets(fams []*dto.MetricFamily, name string) ([]bucket, float64) {
	sum := map[float64]float64{}
	total := 0.0
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			h := m.GetHistogram()
			if h == nil {
				continue
			}
			total += float64(h.GetSampleCount())
			for _, b := range h.GetBucket() {
				sum[b.GetUpperBound()] += float64(b.GetCumulativeCount())
			}
		}
	}
	out := make([]bucket, 0, len(sum)+1)
	for ub, c := range sum {
		out = append(out, bucket{ub, c})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].upper < out[j].upper })
	out = append(out, bucket{math.Inf(1), total})
	return out, total
}

// quantile estimates the q-quantile of a histogram by linear interpolation inside the bucket
// that holds it; in the open top bucket it answers the highest finite bound.
func quantile(q float64, buckets []bucket, count float64) float64 {
	rank := q * count
	lower, below := 0.0, 0.0
	for _, b := range buckets {
		if b.count >= rank {
			if math.IsInf(b.upper, 1) {
				return lower
			}
			if b.count == below {
				return b.upper
			}
			return lower + (b.upper-lower)*(rank-below)/(b.count-below)
		}
		lower, below = b.upper, b.count
	}
	return lower
}
