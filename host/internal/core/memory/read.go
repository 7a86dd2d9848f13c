package memory

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/rank"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/sdk/embedder"
)

// SearchRequest is one memory_search call.
type SearchRequest struct {
	Query           string
	TopK            int      // default Config.DefaultK, at most Config.MaxK
	Kinds           []string // empty = all kinds
	MinScore        float64  // [0, 1]
	IncludeArchived bool
	ExcludeGlobal   bool
	// Within is the set of kinds searched when Kinds is empty: the fact kinds (store.Kinds)
	// when empty. Cross-layer search (package brain) sets it to a layer's kinds; callers'
	// own kind names only ever select among fact kinds.
	Within []store.Kind
	// Unrecorded leaves recording the results as retrieved to the caller (Retrieved): a
	// caller that cuts the results further (project_search merges layers, then keeps its
	// top_k) must record only what it returns, or a fact cut away would never age.
	Unrecorded bool
	// Explain fills each hit's Terms: its score taken apart into the ranker's own terms.
	Explain bool
	// Filter keeps only the memories it matches (the operator console's filters), before the
	// cut to top_k.
	Filter store.Filter
}

// SearchHit is a ranked memory with the signals that ranked it.
type SearchHit struct {
	View
	Score     float64  `json:"score"`
	Relevance float64  `json:"relevance"`
	Cosine    *float64 `json:"cosine,omitempty"`
	Lexical   *float64 `json:"lexical,omitempty"`
	// Terms is Score taken apart (rank.Explain), when the request asked for it: they sum to
	// Score, supersession included.
	Terms *rank.Terms `json:"terms,omitempty"`
}

// SearchResult is a ranked page of hits. Degraded is empty when every retrieval path served;
// otherwise it says which path was skipped and why, and the hits come from the others.
type SearchResult struct {
	Hits     []SearchHit `json:"hits"`
	Degraded string      `json:"degraded,omitempty"`
}

// DegradedLexicalOnly is SearchResult.Degraded when the embedder could not serve the query:
// the hits are the lexical (BM25) path's alone. Memory never blocks an agent's work, so an
// embedder outage costs recall, not the answer.
const DegradedLexicalOnly = "lexical only: the embedder is unavailable, so results come from keyword (BM25) search alone"

// Search is the read path: BM25 (with the thesaurus's expansions) and ANN candidates (each up
// to Config.CandidatePool), fused, ranked by rank.Score (a statement a newer one replaces
// moved below it by rank.DemoteSuperseded), cut to top_k. It records no use:
// being shown is not being used, and counting it would let the order of past queries decide
// today's ranking (a memory counts as used when Get reads it). It does record, off the
// request path, that its results were retrieved (last_retrieved_at), which only the
// staleness job reads. When the embedder cannot
// serve, it answers from the lexical path and says so in Degraded.
func (s *Service) Search(ctx context.Context, a Access, req SearchRequest) (SearchResult, error) {
	s.called()
	start := s.now()
	if err := a.check(); err != nil {
		return SearchResult{}, err
	}
	if err := s.validateText("query", req.Query); err != nil {
		return SearchResult{}, err
	}
	k := req.TopK
	if k == 0 {
		k = s.cfg.DefaultK
	}
	if k < 1 || k > s.cfg.MaxK {
		return SearchResult{}, rules.Errf("top_k", "%d is out of range 1..%d", req.TopK, s.cfg.MaxK)
	}
	if !(req.MinScore >= 0 && req.MinScore <= 1) {
		return SearchResult{}, rules.Errf("min_score", "%v is out of range 0..1", req.MinScore)
	}
	kinds, err := parseKinds(req.Kinds)
	if err != nil {
		return SearchResult{}, err
	}
	if len(kinds) == 0 {
		kinds = req.Within
	}
	if len(kinds) == 0 {
		kinds = store.Kinds
	}
	scopes := []store.ScopeRef{store.Project(a.Project)}
	if !req.ExcludeGlobal {
		scopes = append(scopes, store.Global)
	}
	pool := max(s.cfg.CandidatePool, k)

	// The lexical path is this process's CPU and the query's embedding the plugin's, so they run
	// side by side. The nearest-neighbour lookup (a graph walk in Postgres, the costliest step
	// in a large database) is used only when the lexical hits leave room for a memory only it
	// can find (loader.needsVector). With the BM25 floor they rarely do, so it runs after the
	// lexical candidates are read and only if needed; a semantic embedder's share of relevance
	// nearly always leaves room, so its lookup starts beside that read (nearestLookup).
	lexDone := make(chan []lexical.Hit, 1)
	go func() {
		lexDone <- s.index.Search(lexical.Query{Text: req.Query, Scopes: scopes, Kinds: kinds, IncludeArchived: req.IncludeArchived, Limit: pool, Expand: true})
	}()
	var out SearchResult
	vec, err := s.queryVector(ctx, req.Query)
	lex := <-lexDone
	switch {
	case errors.Is(err, rules.ErrUnavailable):
		out.Degraded = DegradedLexicalOnly
		s.metrics.degradedSearch()
	case err != nil:
		return SearchResult{}, err
	}
	if len(lex) == 0 && vec == nil {
		if lex, err = s.exactMatches(ctx, store.TextQuery{Text: req.Query, Scopes: scopes, Kinds: kinds, IncludeArchived: req.IncludeArchived, Limit: pool}); err != nil {
			return SearchResult{}, err
		}
	}

	hybrid := rank.Lexical // without a query vector the lexical score is all the relevance there is
	if vec != nil {
		hybrid = s.Hybrid(vec.Embedder)
	}
	now := s.now()
	score := func(l store.Loaded, lexPtr *float64) (SearchHit, bool) {
		// The index may briefly lag an archive made on another host; the row is the truth.
		if !a.visible(l.Memory) || (l.Archived() && !req.IncludeArchived) || !containsKind(kinds, l.Kind) || !req.Filter.Match(l.Memory) {
			return SearchHit{}, false
		}
		parts := hybrid.Parts(l.Similarity, lexPtr)
		relevance := parts.Vector + parts.Lexical // hybrid.Fuse
		sig := s.signals(l.Memory, true, relevance, now)
		score := rank.Score(sig)
		// A score of 0 is no evidence at all: no query term, and no cosine above the embedder's
		// floor (the nearest-neighbour lookup returns the nearest memories however far they
		// are), so such a memory is never an answer, whatever min_score says.
		if score <= 0 || score < req.MinScore {
			return SearchHit{}, false
		}
		hit := SearchHit{View: ViewOf(l.Memory), Score: score, Relevance: relevance, Cosine: l.Similarity, Lexical: lexPtr}
		if req.Explain {
			terms := rank.Explain(sig).SplitBase(parts)
			hit.Terms = &terms
		}
		return hit, true
	}
	get := func(ctx context.Context, ids []uuid.UUID) ([]store.Loaded, error) {
		return s.store.GetMany(ctx, ids, vec)
	}
	var lookup *nearestLookup
	if vec != nil {
		q := store.VectorQuery{Vector: *vec, Scopes: scopes, Kinds: kinds, IncludeArchived: req.IncludeArchived, Limit: pool}
		lookup = s.newLookup(ctx, q, !lexicalEmbedder(vec.Embedder))
		defer lookup.close()
	}
	l := newLoader(max(k, rank.SupersedeWindow), get, score)
	if err := l.load(ctx, newCandidates(lex, nil, hybrid)); err != nil {
		return SearchResult{}, err
	}
	if lookup != nil {
		needed := l.needsVector(hybrid)
		s.metrics.vectorLookup(lookupOutcome(needed, lookup.started))
		if needed {
			ann, err := lookup.hits(ctx)
			if err != nil {
				return SearchResult{}, err
			}
			if err := l.load(ctx, newCandidates(lex, ann, hybrid)); err != nil {
				return SearchResult{}, err
			}
		}
	}
	hits := l.hits
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ID.String() < hits[j].ID.String()
	})
	hits = demoteSuperseded(hits, s.index, scopes[0])
	if len(hits) > k {
		hits = hits[:k]
	}
	s.metrics.search(start)
	out.Hits = hits
	if !req.Unrecorded {
		ids := make([]uuid.UUID, len(hits))
		for i, h := range hits {
			ids[i] = h.ID
		}
		s.Retrieved(ids)
	}
	return out, nil
}

// Retrieved queues memories a read returned for last_retrieved_at (RecordHits), never
// blocking: a full queue drops them and counts the drop, as it does uses.
func (s *Service) Retrieved(ids []uuid.UUID) {
	if len(ids) == 0 {
		return
	}
	select {
	case s.hits <- retrieval{ids: ids}:
	default:
		s.metrics.droppedHits()
	}
}

// queryVector embeds a query. It returns nil, nil for a query the embedder maps to no
// direction at all (a zero vector: emoji or symbols the embedder has no tokens for), which has
// no nearest neighbours, so only the lexical path can answer it.
func (s *Service) queryVector(ctx context.Context, query string) (*store.Vector, error) {
	e, info, err := s.active(ctx)
	if err != nil {
		return nil, err
	}
	vec, err := s.embed(ctx, e, info, embedder.PurposeQuery, query)
	if err != nil {
		return nil, err
	}
	for _, v := range vec.Values {
		if v != 0 {
			return &vec, nil
		}
	}
	return nil, nil
}

// signals gathers rank.Score's inputs for one memory.
func (s *Service) signals(m store.Memory, hasQuery bool, relevance float64, now time.Time) rank.Signals {
	last := m.UpdatedAt
	if m.LastHitAt != nil && m.LastHitAt.After(last) {
		last = *m.LastHitAt
	}
	return rank.Signals{HasQuery: hasQuery, Relevance: relevance, Importance: m.Importance, Confidence: m.Confidence,
		HitCount: m.HitCount, Pinned: m.Pinned, Age: now.Sub(last), HalfLife: s.halfLife(m.Kind)}
}

// parseKinds reads the kinds a search or a listing asks for: fact kinds, and the journal, whose
// entries are memories an operator lists and searches like facts (its own routes page it by
// session). Goal and plan are one document each, read through their own routes.
func parseKinds(names []string) ([]store.Kind, error) {
	var kinds []store.Kind
	for _, n := range names {
		if strings.TrimSpace(n) == "" {
			return nil, rules.Errf("kinds", "must not contain an empty kind")
		}
		if store.Kind(strings.ToLower(strings.TrimSpace(n))) == store.KindJournal {
			kinds = append(kinds, store.KindJournal)
			continue
		}
		k, err := store.ParseKind(n)
		if err != nil {
			msg := strings.TrimPrefix(err.Error(), "kind: ")
			if !store.IsLayer(store.Kind(strings.ToLower(strings.TrimSpace(n)))) {
				msg += ", " + string(store.KindJournal)
			}
			return nil, rules.Errf("kinds", "%s", msg)
		}
		kinds = append(kinds, k)
	}
	return kinds, nil
}

func containsKind(kinds []store.Kind, k store.Kind) bool {
	for _, x := range kinds {
		if x == k {
			return true
		}
	}
	return false
}

// Get returns one memory visible in the caller's project, with what it absorbed (Absorbed),
// and counts a use of it: an agent that opens a memory found by search is using it, and uses
// (hit_count, last_hit_at) raise its rank in later searches (rank.Usage, recency). The count is
// recorded off the request path by RecordHits; the returned view shows the count before this
// read.
func (s *Service) Get(ctx context.Context, a Access, id uuid.UUID) (View, error) {
	v, err := s.Peek(ctx, a, id)
	if err != nil {
		return View{}, err
	}
	select {
	case s.hits <- retrieval{ids: []uuid.UUID{v.ID}, use: true}:
	default:
		s.metrics.droppedHits()
	}
	return v, nil
}

// Peek is Get without counting a use: the operator console looks at memories, an agent uses
// them, and only an agent's use may change a rank or keep a memory from the staleness job.
func (s *Service) Peek(ctx context.Context, a Access, id uuid.UUID) (View, error) {
	m, err := s.load(ctx, a, id)
	if err != nil {
		return View{}, err
	}
	absorbed, err := s.absorbedOf(ctx, m)
	if err != nil {
		return View{}, err
	}
	v := ViewOf(m)
	v.Absorbed = absorbed
	return v, nil
}

func (s *Service) load(ctx context.Context, a Access, id uuid.UUID) (store.Memory, error) {
	if err := a.check(); err != nil {
		return store.Memory{}, err
	}
	m, err := s.store.Get(ctx, id)
	if err != nil {
		return m, err
	}
	if !a.visible(m) {
		return store.Memory{}, fmt.Errorf("memory %s in project %q: %w", id, a.Project, rules.ErrNotFound)
	}
	return m, nil
}

// History returns a memory's ledger, oldest first. A purged memory's ledger still answers
// (its texts erased, a purge row last) to those who could see the memory.
func (s *Service) History(ctx context.Context, a Access, id uuid.UUID) ([]store.HistoryEntry, error) {
	_, err := s.load(ctx, a, id)
	if errors.Is(err, rules.ErrNotFound) {
		ref, purged, perr := s.store.PurgedScope(ctx, id)
		if perr != nil {
			return nil, perr
		}
		if purged && a.visible(store.Memory{Scope: ref.Scope, ScopeKey: ref.Key}) {
			err = nil
		}
	}
	if err != nil {
		return nil, err
	}
	return s.store.History(ctx, id)
}

// ListRequest pages through a project's memories, newest first.
type ListRequest struct {
	Kinds           []string
	IncludeArchived bool
	OnlyArchived    bool
	ExcludeGlobal   bool
	Filter          store.Filter
	Limit           int    // default 50, at most 500
	Cursor          string // from the previous page's Next
}

// ListPage is one page and the cursor of the next ("" at the end).
type ListPage struct {
	Memories []View `json:"memories"`
	Next     string `json:"next_cursor,omitempty"`
}

// List pages through memories.
func (s *Service) List(ctx context.Context, a Access, req ListRequest) (ListPage, error) {
	if err := a.check(); err != nil {
		return ListPage{}, err
	}
	limit := req.Limit
	if limit == 0 {
		limit = 50
	}
	if limit < 1 || limit > 500 {
		return ListPage{}, rules.Errf("limit", "%d is out of range 1..500", req.Limit)
	}
	kinds, err := parseKinds(req.Kinds)
	if err != nil {
		return ListPage{}, err
	}
	if len(kinds) == 0 {
		kinds = store.Kinds // goal, plan and journal have their own tools
	}
	q := store.ListQuery{Scopes: []store.ScopeRef{store.Project(a.Project)}, Kinds: kinds,
		IncludeArchived: req.IncludeArchived, OnlyArchived: req.OnlyArchived, Filter: req.Filter, Limit: limit + 1}
	if !req.ExcludeGlobal {
		q.Scopes = append(q.Scopes, store.Global)
	}
	if req.Cursor != "" {
		c, ok := store.ParseCursor(req.Cursor)
		if !ok {
			return ListPage{}, rules.Errf("cursor", "is not a cursor returned by a previous page")
		}
		q.Before = &c
	}
	ms, err := s.store.List(ctx, q)
	if err != nil {
		return ListPage{}, err
	}
	page := ListPage{Memories: make([]View, 0, len(ms))}
	if len(ms) > limit {
		last := ms[limit-1]
		page.Next = store.CursorOf(last).String()
		ms = ms[:limit]
	}
	for _, m := range ms {
		page.Memories = append(page.Memories, ViewOf(m))
	}
	return page, nil
}

// demoteSuperseded applies rank.DemoteSuperseded to hits sorted by score: a statement that a
// newer one near the top replaces ranks directly below it, and its score is lowered to that
// statement's, so the scores stay in rank order.
func demoteSuperseded(hits []SearchHit, ix *lexical.Index, scope store.ScopeRef) []SearchHit {
	st := make([]rank.Statement, len(hits))
	for i, h := range hits {
		st[i] = rank.Statement{Text: h.Text, Written: h.UpdatedAt, ID: h.ID.String()}
		if h.SupersededBy != nil {
			st[i].SupersededBy = h.SupersededBy.String()
		}
	}
	order := rank.DemoteSuperseded(st, func(t string) float64 { return ix.IDF(scope, t) })
	out := make([]SearchHit, len(hits))
	for i, j := range order {
		out[i] = hits[j]
		if i > 0 && out[i].Score > out[i-1].Score {
			if t := out[i].Terms; t != nil {
				demoted := *t
				demoted.Supersession = out[i-1].Score - out[i].Score
				out[i].Terms = &demoted
			}
			out[i].Score = out[i-1].Score
		}
	}
	return out
}
