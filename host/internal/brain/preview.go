package brain

import (
	"context"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/brain/banner"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/rank"
	"github.com/memhost/memhost/host/internal/core/store"
)

// BannerFact is one fact a banner considered, and why it made the cut or did not: its place
// by the spawn score and the score's own terms (rank.Explain), whether it is among the newest
// facts (the guaranteed window), and the section that shows it.
type BannerFact struct {
	ID        uuid.UUID  `json:"id"`
	Kind      store.Kind `json:"kind"`
	Text      string     `json:"text"`
	Pinned    bool       `json:"pinned"`
	UpdatedAt time.Time  `json:"updated_at"`
	// Rank is the fact's place among the candidates by the spawn score (1 is first).
	Rank  int        `json:"rank"`
	Score float64    `json:"score"`
	Terms rank.Terms `json:"terms"`
	// Recent is set for the newest facts, which the banner shows first whatever they score.
	Recent bool `json:"recent"`
	// Section is where the banner shows the fact; "" when it was cut.
	Section banner.Section `json:"section,omitempty"`
}

// BannerPreview is a banner exactly as Banner renders it for the same request (the same
// text, byte for byte), with the facts it weighed.
type BannerPreview struct {
	BannerView
	// Facts are the candidates best first, at most PreviewFacts of them; Candidates counts all.
	Facts      []BannerFact `json:"facts"`
	Candidates int          `json:"candidates"`
}

// PreviewFacts bounds the facts a preview lists.
const PreviewFacts = 100

// BannerPreview renders the banner a session starting now would receive (Banner) and says,
// for each candidate fact, where the spawn score ranks it, what the score is made of, and
// which section shows it.
func (s *Service) BannerPreview(ctx context.Context, a memory.Access, req BannerRequest) (BannerPreview, error) {
	rows, opts, err := s.bannerRows(ctx, a, req)
	if err != nil {
		return BannerPreview{}, err
	}
	in := s.bannerInput(a.Project, rows)
	v, err := render(a.Project, in, opts)
	if err != nil {
		return BannerPreview{}, err
	}
	shownIn := map[uuid.UUID]banner.Section{}
	for _, sec := range v.Sections {
		for _, id := range sec.Facts {
			shownIn[id] = sec.Section
		}
	}
	recent := map[uuid.UUID]bool{}
	for _, f := range in.Recent[:min(len(in.Recent), max(opts.RecentWindow, 0))] {
		recent[f.ID] = true
	}
	byID := make(map[uuid.UUID]store.Memory, len(rows.Candidates)+len(rows.Recent))
	for _, m := range slices.Concat(rows.Candidates, rows.Recent) {
		byID[m.ID] = m
	}
	p := BannerPreview{BannerView: v, Candidates: len(in.Facts)}
	// in.Facts is the candidates ranked as the banner ranks them; a newest fact outside the
	// candidate pool is listed after them.
	order := slices.Clone(in.Facts)
	for _, f := range in.Recent {
		if !slices.ContainsFunc(order, func(g banner.Fact) bool { return g.ID == f.ID }) {
			order = append(order, f)
		}
	}
	for i, f := range order {
		if i >= PreviewFacts {
			break
		}
		m := byID[f.ID]
		terms := s.mem.SpawnTerms(m, in.Now)
		bf := BannerFact{ID: f.ID, Kind: m.Kind, Text: f.Text, Pinned: f.Pinned, UpdatedAt: f.UpdatedAt, Score: terms.Sum(), Terms: terms,
			Recent: recent[f.ID], Section: shownIn[f.ID]}
		if i < len(in.Facts) {
			bf.Rank = i + 1
		}
		p.Facts = append(p.Facts, bf)
	}
	return p, nil
}
