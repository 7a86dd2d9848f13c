package tasks

import (
	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the memhost_worker_* series, per task kind and worker. Their labels are bounded:
// the task kinds, the configured workers and the Outcome set.
type metrics struct {
	calls    *prometheus.CounterVec
	duration *prometheus.HistogramVec
	tokens   *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "memhost_worker_calls_total",
			Help: "Calls to LLM workers by task kind, worker and outcome.",
		}, []string{"task", "worker", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "memhost_worker_call_duration_seconds",
			Help: "Duration of calls to LLM workers by task kind and worker.",
			// 100ms .. ~7min: a local model answers in seconds, an agent CLI in tens of them.
			Buckets: prometheus.ExponentialBuckets(0.1, 2.5, 10),
		}, []string{"task", "worker"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "memhost_worker_tokens_total",
			Help: "Tokens LLM workers reported, by task kind, worker and direction (input, output).",
		}, []string{"task", "worker", "direction"}),
	}
	if reg != nil {
		for _, c := range []prometheus.Collector{m.calls, m.duration, m.tokens} {
			reg.MustRegister(c)
		}
	}
	return m
}

func (m *metrics) observe(c Call) {
	m.calls.WithLabelValues(c.Task, c.Worker, string(c.Outcome)).Inc()
	m.duration.WithLabelValues(c.Task, c.Worker).Observe(c.Latency.Seconds())
	m.tokens.WithLabelValues(c.Task, c.Worker, "input").Add(float64(c.InputTokens))
	m.tokens.WithLabelValues(c.Task, c.Worker, "output").Add(float64(c.OutputTokens))
}
