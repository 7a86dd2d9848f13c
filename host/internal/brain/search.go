package brain

import (
	"context"
	"slices"
	"strings"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"
	"golang.org/x/sync/errgroup"

	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
)

// SearchRequest is one project_search call.
type SearchRequest struct {
	Query    string
	Layers   []string // fact, journal, goal, plan; empty means all four
	TopK     int      // as memory_search
	MinScore float64
}

// SearchHit is a ranked memory labelled with its layer.
type SearchHit struct {
	Layer string `json:"layer"`
	memory.SearchHit
}

// SearchResult is the merged, ranked hits of every layer searched.
type SearchResult struct {
	Project  string      `json:"project"`
	Query    string      `json:"query"`
	Hits     []SearchHit `json:"hits"`
	Degraded string      `json:"degraded,omitempty"`
}

// layerKinds is the kinds of each layer.
func layerKinds(layer string) []store.Kind {
	if layer == LayerFact {
		return store.Kinds
	}
	return []store.Kind{store.Kind(layer)}
}

// Search searches the project's facts, journal, goal and plan in parallel — each layer its own
// candidate pool, so a handful of journal entries is never crowded out by thousands of facts —
// through memory.Service's retrieval path, and merges the hits by the one ranker's score.
// Facts include global memories, as memory_search does.
func (s *Service) Search(ctx context.Context, a memory.Access, req SearchRequest) (SearchResult, error) {
	if err := check(a); err != nil {
		return SearchResult{}, err
	}
	layers, err := parseLayers(req.Layers)
	if err != nil {
		return SearchResult{}, err
	}
	results := make([]memory.SearchResult, len(layers))
	g, gctx := errgroup.WithContext(ctx)
	for i, layer := range layers {
		g.Go(func() error {
			var err error
			results[i], err = s.mem.Search(gctx, a, memory.SearchRequest{Query: req.Query, TopK: req.TopK, MinScore: req.MinScore,
				Within: layerKinds(layer), ExcludeGlobal: layer != LayerFact, Unrecorded: true})
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return SearchResult{}, err
	}
	out := SearchResult{Project: a.Project, Query: req.Query, Hits: []SearchHit{}}
	for _, r := range results {
		for _, h := range r.Hits {
			out.Hits = append(out.Hits, SearchHit{Layer: LayerOf(h.Kind), SearchHit: h})
		}
		if r.Degraded != "" {
			out.Degraded = r.Degraded
		}
	}
	slices.SortFunc(out.Hits, func(x, y SearchHit) int {
		if x.Score != y.Score {
			if x.Score > y.Score {
				return -1
			}
			return 1
		}
		return strings.Compare(x.ID.String(), y.ID.String())
	})
	k := req.TopK
	if k == 0 {
		k = s.mem.Config().DefaultK
	}
	if len(out.Hits) > k {
		out.Hits = out.Hits[:k]
	}
	ids := make([]uuid.UUID, len(out.Hits))
	for i, h := range out.Hits {
		ids[i] = h.ID
	}
	s.mem.Retrieved(ids)
	return out, nil
}

// parseLayers checks layer names; none means all.
func parseLayers(names []string) ([]string, error) {
	if len(names) == 0 {
		return Layers, nil
	}
	var out []string
	for _, n := range names {
		l := strings.ToLower(strings.TrimSpace(n))
		if !slices.Contains(Layers, l) {
			return nil, rules.Errf("layers", "%q is not one of %s", n, strings.Join(Layers, ", "))
		}
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out, nil
}
