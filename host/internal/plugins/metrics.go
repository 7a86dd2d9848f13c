package plugins

import (
	"context"
	"errors"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"
)

// metrics holds the Prometheus collectors of one Supervisor. The collectors
// always exist (recording is unconditional and cheap); they are only exposed
// when Config.Registerer is set.
type metrics struct {
	calls    *prometheus.CounterVec
	duration *prometheus.HistogramVec
	restarts *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer, logger hclog.Logger) *metrics {
	m := &metrics{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "memhost_plugin_calls_total",
			Help: "Calls made to plugins through the plugin supervisor, by outcome.",
		}, []string{"kind", "name", "method", "result"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "memhost_plugin_call_duration_seconds",
			Help: "Duration of calls to plugins, including calls refused while a plugin restarts.",
			// 100us .. ~6.5s: one gRPC round trip is ~200us, a large batch
			// on a dense model can take seconds.
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 9),
		}, []string{"kind", "name", "method"}),
		restarts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "memhost_plugin_restarts_total",
			Help: "Successful restarts of plugin processes.",
		}, []string{"kind", "name"}),
	}
	if reg == nil {
		return m
	}
	m.calls = register(reg, m.calls, logger)
	m.duration = register(reg, m.duration, logger)
	m.restarts = register(reg, m.restarts, logger)
	return m
}

// register registers c, or adopts the collector already registered under
// the same name, so that a second Supervisor on one registry (a config
// reload) keeps counting into the same series instead of failing.
func register[C prometheus.Collector](reg prometheus.Registerer, c C, logger hclog.Logger) C {
	err := reg.Register(c)
	if err == nil {
		return c
	}
	var are prometheus.AlreadyRegisteredError
	if errors.As(err, &are) {
		if existing, ok := are.ExistingCollector.(C); ok {
			return existing
		}
	}
	logger.Error("cannot register plugin metrics", "error", err)
	return c
}

// resultLabel maps a call's error to a small fixed set of label values so the
// result label cannot explode in cardinality.
func resultLabel(a Adapter, method string, err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	switch a.Classify(err) {
	case Unavailable:
		return "unavailable"
	case Rejected:
		return "invalid_input"
	case Unimplemented:
		return "unimplemented"
	}
	if method == healthMethod {
		return "unhealthy"
	}
	return "error"
}

func (m *metrics) observe(kind, name, method string, start time.Time, result string) {
	m.calls.WithLabelValues(kind, name, method, result).Inc()
	m.duration.WithLabelValues(kind, name, method).Observe(time.Since(start).Seconds())
}
