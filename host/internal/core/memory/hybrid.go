package memory

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/memhost/memhost/host/internal/core/rank"
	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/embedder/calibration"
)

// This file holds each embedder's part in relevance (rank.Hybrid): the operator's settings
// (Config.VectorWeights, Config.RelevanceFloors), else the floor measured at the embedder's
// first use, else the defaults of its family.

// lexicalEmbedderPrefix names embedders whose vectors are a lexical signal (the BM25 floor,
// bm25-v1-384): a hashed copy of the terms the lexical index already scores.
const lexicalEmbedderPrefix = "bm25-"

func lexicalEmbedder(name string) bool { return strings.HasPrefix(name, lexicalEmbedderPrefix) }

// Hybrid is the hybrid search uses for vectors of the named embedder.
func (s *Service) Hybrid(name string) rank.Hybrid {
	h := rank.HybridSemantic
	if lexicalEmbedder(name) {
		h = rank.HybridLexical
	} else if f, ok := s.measuredFloor(name); ok {
		h.Floor = f
	}
	if w, ok := s.cfg.VectorWeights[name]; ok {
		h.VectorWeight = w
	}
	if f, ok := s.cfg.RelevanceFloors[name]; ok {
		h.Floor = f
	}
	return h
}

// floorSubjects are a question and the fact that answers it, for subjects unrelated to one
// another: a question's cosine to another subject's fact is what unrelated texts reach under
// an embedder, to its own fact what a related pair reaches (calibration.Floor).
var floorSubjects = [][2]string{
	{"Which package manager installs the frontend's dependencies?", "The frontend installs its dependencies with pnpm."},
	{"How are database schema changes applied?", "Schema migrations run with goose before each deploy."},
	{"Where do the service logs go?", "Service logs are shipped to Loki by promtail."},
	{"Who reviews pull requests to the billing code?", "The payments team reviews every change to billing."},
	{"What port does the API listen on?", "The API server listens on port 8080."},
	{"How do I run the end-to-end tests?", "End-to-end tests run with Playwright against a local stack."},
	{"Which Go version does the project build with?", "The module pins Go 1.24 in go.mod."},
	{"How are secrets provided to production?", "Production secrets come from Vault at startup."},
	{"What style checker runs before commits?", "A pre-commit hook runs golangci-lint."},
	{"Where are release notes written?", "Release notes are drafted in CHANGELOG.md by the release manager."},
	{"How are images built for deployment?", "Container images are built by Kaniko in CI."},
	{"What does the cache in front of the catalog use?", "The product catalog is cached in Redis for ten minutes."},
	{"Which feature flag service do we use?", "Feature flags are served by Unleash."},
	{"How should errors be reported to users?", "User-facing errors carry a code and a short message, never a stack trace."},
	{"When are dependency updates merged?", "Renovate's dependency updates are merged on Mondays."},
	{"What time zone do timestamps use?", "Every timestamp is stored in UTC."},
}

// floorTimeout bounds one embedder's floor measurement: 32 short texts, seconds on a slow
// local model.
const floorTimeout = 2 * time.Minute

// floorRetry is how long a failed measurement waits before the next use tries again.
const floorRetry = time.Minute

// floorMeasure is one embedder's floor measurement.
type floorMeasure struct {
	done  chan struct{}
	floor float64
	err   error
	at    time.Time
}

// measureFloor starts measuring e's floor unless it is measured, being measured, configured,
// lexical, or failed less than floorRetry ago; it never waits (Prepare does). It runs on every
// use of the embedder, so the common case is one map read.
func (s *Service) measureFloor(e embedder.Embedder, info embedder.Info) {
	if lexicalEmbedder(info.Name) {
		return
	}
	if _, ok := s.cfg.RelevanceFloors[info.Name]; ok {
		return
	}
	prev, known := s.floors.Load(info.Name)
	if known {
		p := prev.(*floorMeasure)
		select {
		case <-p.done:
			if p.err == nil || time.Since(p.at) < floorRetry {
				return
			}
		default:
			return
		}
	}
	m := &floorMeasure{done: make(chan struct{})}
	if known && !s.floors.CompareAndSwap(info.Name, prev, m) {
		return
	}
	if !known {
		if _, loaded := s.floors.LoadOrStore(info.Name, m); loaded {
			return
		}
	}
	go func() {
		defer close(m.done)
		ctx, cancel := context.WithTimeout(context.Background(), floorTimeout)
		defer cancel()
		m.floor, m.err = s.floorOf(ctx, e, info)
		m.at = time.Now()
		if m.err != nil {
			s.onError(fmt.Errorf("measure the relevance floor of %s (searches read its cosines from 0 until it is known): %w", info.Name, m.err))
		}
	}()
}

// measuredFloor is name's measured floor, once known.
func (s *Service) measuredFloor(name string) (float64, bool) {
	v, ok := s.floors.Load(name)
	if !ok {
		return 0, false
	}
	m := v.(*floorMeasure)
	select {
	case <-m.done:
		return m.floor, m.err == nil
	default:
		return 0, false
	}
}

// waitFloor waits for name's floor measurement, if one runs, or for ctx.
func (s *Service) waitFloor(ctx context.Context, name string) {
	if v, ok := s.floors.Load(name); ok {
		select {
		case <-v.(*floorMeasure).done:
		case <-ctx.Done():
		}
	}
}

// floorOf measures the floor: the questions embedded as queries, the facts as documents.
func (s *Service) floorOf(ctx context.Context, e embedder.Embedder, info embedder.Info) (float64, error) {
	questions := make([]string, len(floorSubjects))
	facts := make([]string, len(floorSubjects))
	for i, p := range floorSubjects {
		questions[i], facts[i] = p[0], p[1]
	}
	qv, err := embedAll(ctx, e, info, embedder.PurposeQuery, questions)
	if err != nil {
		return 0, err
	}
	fv, err := embedAll(ctx, e, info, embedder.PurposeDocument, facts)
	if err != nil {
		return 0, err
	}
	var unrelated, related []float64
	for i := range qv {
		for j := range fv {
			c := calibration.Cosine(qv[i], fv[j])
			if i == j {
				related = append(related, c)
			} else {
				unrelated = append(unrelated, c)
			}
		}
	}
	return calibration.Floor(unrelated, related), nil
}

// embedAll embeds texts in batches the embedder takes.
func embedAll(ctx context.Context, e embedder.Embedder, info embedder.Info, purpose embedder.Purpose, texts []string) ([][]float32, error) {
	batch := max(info.MaxBatch, 1)
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += batch {
		part := texts[start:min(start+batch, len(texts))]
		v, err := e.Embed(ctx, purpose, part)
		if err != nil {
			return nil, err
		}
		if len(v) != len(part) {
			return nil, fmt.Errorf("embedder %s returned %d vectors for %d texts", info.Name, len(v), len(part))
		}
		out = append(out, v...)
	}
	return out, nil
}
