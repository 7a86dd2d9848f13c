package memory

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/sdk/embedder"
)

// EmbedderSource yields the embedder that new writes and queries use.
type EmbedderSource interface {
	Active(ctx context.Context) (embedder.Embedder, embedder.Info, error)
}

// RedactFunc replaces secrets in text and reports how many it replaced.
type RedactFunc func(text string) (redacted string, found int)

// Config holds the service's limits and tuning.
type Config struct {
	MaxTextBytes   int                // memory text limit in bytes
	MergedFromMax  int                // bound on merged_from
	FoldThresholds map[string]float64 // per-embedder override of its suggested fold threshold
	// VectorWeights and RelevanceFloors set an embedder's part in relevance (rank.Hybrid), over
	// the defaults of its family and the floor measured at its first use.
	VectorWeights   map[string]float64
	RelevanceFloors map[string]float64
	DefaultK        int
	MaxK            int
	CandidatePool   int // candidates taken from each retrieval path before ranking
	HalfLives       map[store.Kind]time.Duration
	// EmbedWait is how long a write waits for its embedder before it is stored without its
	// vector, which follows (vectors.go); 0 waits as long as the embedder takes.
	EmbedWait time.Duration
}

// DefaultConfig is the configuration memhost ships with (see internal/config for the keys).
func DefaultConfig() Config {
	const day = 24 * time.Hour
	return Config{
		MaxTextBytes: 16 << 10, MergedFromMax: 20, DefaultK: 10, MaxK: 100, CandidatePool: 100, EmbedWait: DefaultEmbedWait,
		HalfLives: map[store.Kind]time.Duration{
			store.KindFact: 180 * day, store.KindDecision: 365 * day, store.KindConvention: 365 * day,
			store.KindPreference: 365 * day, store.KindGotcha: 120 * day, store.KindErrorPattern: 90 * day,
			store.KindReference: 365 * day,
			// A journal entry says what a session did: it fades fast. Goal and plan are the
			// current versions by definition and do not decay (no entry).
			store.KindJournal: 30 * day,
		},
	}
}

// DefaultEmbedWait is Config.EmbedWait as shipped: ten times the BM25 floor's call (under a
// millisecond), a fraction of a CPU model's (50-250 ms a text). A write to an embedder whose
// calls average over half of it does not wait at all (vectors.go).
const DefaultEmbedWait = 10 * time.Millisecond

// Service is the memory write and read paths.
type Service struct {
	store     store.Store
	index     *lexical.Index
	embedders EmbedderSource
	redact    RedactFunc
	cfg       Config
	metrics   *Metrics
	now       func() time.Time

	indexed  sync.Map // embedder name -> struct{}: ANN index ensured
	floors   sync.Map // embedder name -> *floorMeasure: its relevance floor (hybrid.go)
	hits     chan retrieval
	onError  func(error)
	lastCall atomic.Int64 // unix nanoseconds when the last Store or Search began
	gate     Gatekeeper   // nil: every valid write is stored
	follow   vectorFollower
}

// LastCall is when the last Store or Search began (zero before the first): background work
// that competes for the CPU, such as graph insertions, waits for a pause in an agent's calls.
func (s *Service) LastCall() time.Time {
	if n := s.lastCall.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

// called records that a call began (LastCall). It reads the wall clock, not s.now, which
// tests may fix.
func (s *Service) called() { s.lastCall.Store(time.Now().UnixNano()) }

// Option configures a Service.
type Option func(*Service)

// WithMetrics records write and search metrics.
func WithMetrics(m *Metrics) Option { return func(s *Service) { s.metrics = m } }

// WithErrorHandler receives background errors (hit recording) that have no caller to return to.
func WithErrorHandler(fn func(error)) Option { return func(s *Service) { s.onError = fn } }

// New builds the service. Uses (Get) are recorded by RecordHits, which the host runs as a
// background service; without it they are counted as dropped.
func New(st store.Store, ix *lexical.Index, emb EmbedderSource, redact RedactFunc, cfg Config, opts ...Option) *Service {
	s := &Service{store: st, index: ix, embedders: emb, redact: redact, cfg: cfg, now: time.Now,
		hits: make(chan retrieval, 1024), onError: func(error) {}, follow: vectorFollower{queue: make(chan pendingVector, followQueue)}}
	for _, o := range opts {
		o(s)
	}
	return s
}

// hitFlushInterval is how long uses are coalesced before one UPDATE writes them all.
const hitFlushInterval = time.Second

// retrieval is one read's memories: a Get's one memory is a use and a retrieval; a search's
// results are retrievals only.
type retrieval struct {
	ids []uuid.UUID
	use bool
}

// RecordHits writes uses (hit_count, last_hit_at; see Get) and retrievals (last_retrieved_at,
// which the staleness job reads; see Search) off the request path until ctx ends, then
// flushes what it holds: a read returns before it is stored, and a second's worth is
// coalesced into one statement of each. Run it once per Service (lifecycle.Group does).
func (s *Service) RecordHits(ctx context.Context) error {
	uses := map[uuid.UUID]int64{}
	retrieved := map[uuid.UUID]struct{}{}
	tick := time.NewTicker(hitFlushInterval)
	defer tick.Stop()
	add := func(r retrieval) {
		for _, id := range r.ids {
			if r.use {
				uses[id]++
			}
			retrieved[id] = struct{}{}
		}
	}
	flush := func() {
		if len(retrieved) == 0 {
			return
		}
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if err := s.store.RecordHits(fctx, uses); err != nil {
			s.onError(fmt.Errorf("record uses: %w", err))
		}
		ids := make([]uuid.UUID, 0, len(retrieved))
		for id := range retrieved {
			ids = append(ids, id)
		}
		if err := s.store.RecordRetrievals(fctx, ids); err != nil {
			s.onError(fmt.Errorf("record retrievals: %w", err))
		}
		uses = map[uuid.UUID]int64{}
		retrieved = map[uuid.UUID]struct{}{}
	}
	for {
		select {
		case r := <-s.hits:
			add(r)
		case <-tick.C:
			flush()
		case <-ctx.Done():
			for drained := false; !drained; {
				select {
				case r := <-s.hits:
					add(r)
				default:
					drained = true
				}
			}
			flush()
			return nil
		}
	}
}

// Access is who is asking and in which project.
type Access struct {
	Project string // the resolved project key; required
	Admin   bool   // may write and archive global memories (unless Bound)
	// Bound is set when the caller's token is bound to Project: it changes nothing outside
	// that project, so not the global memories every other project sees, even with Admin.
	Bound bool
	Actor string // recorded in history (token name)
}

func (a Access) check() error {
	if a.Project == "" {
		return rules.Errf("project", "is required (pass project or cwd, or use a project-bound token)")
	}
	return nil
}

// visible reports whether m may be read in this access.
func (a Access) visible(m store.Memory) bool {
	return m.Scope == store.ScopeGlobal || m.ScopeKey == a.Project
}

// writable reports whether m may be changed in this access.
func (a Access) writable(m store.Memory) bool {
	if m.Scope == store.ScopeGlobal {
		return a.global()
	}
	return m.ScopeKey == a.Project
}

// global reports whether this access may write, archive, restore and pin global memories.
func (a Access) global() bool { return a.Admin && !a.Bound }

// Prepare resolves the active embedder, ensures its ANN index and measures its relevance floor
// now, so that no request waits for an index build and the first searches already read its
// cosines against the floor; hosts call it at boot. Without it the first request starts this.
func (s *Service) Prepare(ctx context.Context) error {
	_, info, err := s.active(ctx)
	if err != nil {
		return err
	}
	s.waitFloor(ctx, info.Name)
	return nil
}

// active returns the active embedder and makes sure its ANN index exists.
func (s *Service) active(ctx context.Context) (embedder.Embedder, embedder.Info, error) {
	e, info, err := s.embedders.Active(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, info, fmt.Errorf("active embedder: %w", err)
		}
		return nil, info, fmt.Errorf("%w: %w", rules.ErrUnavailable, err)
	}
	if _, ok := s.indexed.Load(info.Name); !ok {
		if err := s.store.EnsureVectorIndex(ctx, info.Name, info.Dimensions); err != nil {
			return nil, info, err
		}
		s.indexed.Store(info.Name, struct{}{})
	}
	s.measureFloor(e, info)
	return e, info, nil
}

func (s *Service) embed(ctx context.Context, e embedder.Embedder, info embedder.Info, purpose embedder.Purpose, text string) (store.Vector, error) {
	vecs, err := e.Embed(ctx, purpose, []string{text})
	if err != nil {
		// Only the caller's own context ending is the caller's doing. A cancelled or timed-out
		// call with the caller still waiting is the plugin's (its connection closing as the
		// process dies, or the host's per-call timeout), and the caller should retry.
		switch {
		case ctx.Err() != nil:
			return store.Vector{}, fmt.Errorf("embed with %s: %w", info.Name, err)
		case errors.Is(err, embedder.ErrInvalidInput):
			return store.Vector{}, fmt.Errorf("%w: embed with %s: %w", rules.ErrRejected, info.Name, err)
		}
		return store.Vector{}, fmt.Errorf("%w: embed with %s: %w", rules.ErrUnavailable, info.Name, err)
	}
	if len(vecs) != 1 {
		return store.Vector{}, fmt.Errorf("%w: embedder %s returned %d vectors for 1 text", rules.ErrUnavailable, info.Name, len(vecs))
	}
	return store.Vector{Embedder: info.Name, Dimensions: info.Dimensions, Values: vecs[0]}, nil
}

func (s *Service) foldThreshold(info embedder.Info) float64 {
	if t, ok := s.cfg.FoldThresholds[info.Name]; ok {
		return t
	}
	return info.SuggestedFoldThreshold
}

func (s *Service) halfLife(k store.Kind) time.Duration { return s.cfg.HalfLives[k] }

// Config returns the limits and defaults the service enforces, for surfaces that describe them.
func (s *Service) Config() Config { return s.cfg }

// changeOf is the feed entry of m, applied locally right after a write so this host reads its
// own writes without waiting for the follower.
func changeOf(m store.Memory) store.Change {
	c := store.Change{Seq: m.Seq, ID: m.ID, Scope: m.Scope, ScopeKey: m.ScopeKey, Kind: m.Kind, Text: m.Text, Archived: m.Archived()}
	for _, mf := range m.MergedFrom {
		c.Merged = append(c.Merged, mf.Text)
	}
	return c
}
