package memory

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the write and search path's Prometheus series.
type Metrics struct {
	writes      *prometheus.HistogramVec
	searches    prometheus.Histogram
	hitsDropped prometheus.Counter
	degraded    prometheus.Counter
	lookups     *prometheus.CounterVec
	follow      *prometheus.CounterVec
	lag         prometheus.Histogram
}

// NewMetrics registers the series on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	buckets := []float64{.0005, .001, .0025, .005, .01, .02, .03, .05, .1, .25, .5, 1, 2.5}
	m := &Metrics{
		writes: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "memhost_memory_store_duration_seconds",
			Help: "memory_store latency by outcome (insert, fold, fold_exact, invalid, unavailable, error).", Buckets: buckets}, []string{"outcome"}),
		searches: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "memhost_memory_search_duration_seconds",
			Help: "memory_search latency.", Buckets: buckets}),
		hitsDropped: prometheus.NewCounter(prometheus.CounterOpts{Name: "memhost_memory_hits_dropped_total",
			Help: "Use and retrieval records (gets, search results) dropped because the hit recorder was saturated."}),
		degraded: prometheus.NewCounter(prometheus.CounterOpts{Name: "memhost_memory_search_degraded_total",
			Help: "Searches answered from the lexical path alone because the embedder was unavailable."}),
		lookups: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "memhost_memory_search_vector_lookups_total",
			Help: "Searches with a query vector, by what became of the nearest-neighbour lookup: ran, skipped (the lexical hits already outscore anything only it could find) or unused (started early for a semantic embedder, then not needed)."}, []string{"outcome"}),
		follow: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "memhost_memory_vectors_followed_total",
			Help: "Memories stored before their embedder answered, by what became of their vector: queued, stored, failed or dropped (both left to the re-embed job)."}, []string{"outcome"}),
		lag: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "memhost_memory_vector_lag_seconds",
			Help: "Time from a write stored without its vector to the vector stored.", Buckets: []float64{.01, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}}),
	}
	reg.MustRegister(m.writes, m.searches, m.hitsDropped, m.degraded, m.lookups, m.follow, m.lag)
	return m
}

func (m *Metrics) write(outcome string, start time.Time) {
	if m != nil {
		m.writes.WithLabelValues(outcome).Observe(time.Since(start).Seconds())
	}
}

func (m *Metrics) search(start time.Time) {
	if m != nil {
		m.searches.Observe(time.Since(start).Seconds())
	}
}

func (m *Metrics) droppedHits() {
	if m != nil {
		m.hitsDropped.Inc()
	}
}

func (m *Metrics) degradedSearch() {
	if m != nil {
		m.degraded.Inc()
	}
}

func (m *Metrics) vectorLookup(outcome string) {
	if m != nil {
		m.lookups.WithLabelValues(outcome).Inc()
	}
}

func (m *Metrics) vectorFollow(outcome string, n int) {
	if m != nil {
		m.follow.WithLabelValues(outcome).Add(float64(n))
	}
}

func (m *Metrics) vectorLag(d time.Duration) {
	if m != nil {
		m.lag.Observe(d.Seconds())
	}
}
