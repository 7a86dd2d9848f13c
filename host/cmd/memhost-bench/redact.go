package main

import (
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/redact"
)

// redactor is the write path's secret redactor, the same one the host wires in, so measured
// store latency includes the gitleaks scan every real write pays.
func redactor() (memory.RedactFunc, string, error) {
	r, err := redact.New()
	if err != nil {
		return nil, "", err
	}
	fn := func(text string) (string, int) {
		out, findings := r.Redact(text)
		return out, len(findings)
	}
	return fn, "host/internal/core/redact (gitleaks default rules + extras)", nil
}
