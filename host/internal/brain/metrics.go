package brain

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/memhost/memhost/host/internal/core/store"
)

// Metrics are the session records' Prometheus series: the value figures as counters, so a
// dashboard can plot them over any window (docs/value.md).
type Metrics struct {
	memories *prometheus.CounterVec
	sessions *prometheus.CounterVec
	used     prometheus.Counter
	saved    prometheus.Counter
	found    prometheus.Counter
}

// NewMetrics registers the series on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		memories: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "memhost_session_memories_total",
			Help: "Memories recorded in sessions' records, by event: given (banner or prompt hook), retrieved (search or get), stored, cited."}, []string{"event"}),
		sessions: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "memhost_sessions_ended_total",
			Help: "Sessions whose end was reported, by origin (run, connected)."}, []string{"origin"}),
		used: prometheus.NewCounter(prometheus.CounterOpts{Name: "memhost_session_injected_used_total",
			Help: "Memories given to an ended session that it cited or retrieved (over memhost_session_memories_total{event=\"given\"}: the share of injected memories used)."}),
		saved: prometheus.NewCounter(prometheus.CounterOpts{Name: "memhost_session_saved_tokens_total",
			Help: "Estimated tokens ended sessions did not spend finding again what earlier sessions found (docs/value.md)."}),
		found: prometheus.NewCounter(prometheus.CounterOpts{Name: "memhost_session_discovery_tokens_total",
			Help: "Tokens sessions spent before storing the facts they stored (their discovery cost), where their transcripts record usage."}),
	}
	for _, ev := range store.SessionEvents {
		m.memories.WithLabelValues(string(ev))
	}
	reg.MustRegister(m.memories, m.sessions, m.used, m.saved, m.found)
	return m
}

// WithMetrics records the session series on m.
func WithMetrics(m *Metrics) Option { return func(s *Service) { s.metrics = m } }

func (m *Metrics) recorded(added map[store.SessionEvent]int) {
	if m == nil {
		return
	}
	for ev, n := range added {
		m.memories.WithLabelValues(string(ev)).Add(float64(n))
	}
}

func (m *Metrics) ended(origin store.SessionOrigin, used int, saved int64, found []store.Discovery) {
	if m == nil {
		return
	}
	m.sessions.WithLabelValues(string(origin)).Inc()
	m.used.Add(float64(used))
	m.saved.Add(float64(saved))
	for _, d := range found {
		m.found.Add(float64(d.Tokens))
	}
}
