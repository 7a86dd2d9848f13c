package memory

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/store"
)

// Absorbed is what one memory took in, as Get shows it: the paraphrases writes folded into it
// (the fold's losing texts) and, apart from them, the memories consolidation merged into it
// (archived "merged into <id>", restorable with unmerge). Both come from merged_from and the
// memory's history; merged_from is bounded (memory.merged_from_max), so the oldest paraphrases
// may be gone from it, while history keeps every merge.
type Absorbed struct {
	Paraphrases []store.Merged `json:"paraphrases,omitempty"`
	Merged      []MergedMemory `json:"merged,omitempty"`
}

// MergedMemory is one memory consolidation merged into another.
type MergedMemory struct {
	ID uuid.UUID `json:"id"`
	// Text is the merged memory's own text ("" once purge erased it).
	Text string    `json:"text,omitempty"`
	At   time.Time `json:"at"`
}

// absorbedOf reads what m absorbed: nil when it absorbed nothing (no history is read then).
func (s *Service) absorbedOf(ctx context.Context, m store.Memory) (*Absorbed, error) {
	if m.DedupedCount == 0 && len(m.MergedFrom) == 0 {
		return nil, nil
	}
	history, err := s.store.History(ctx, m.ID)
	if err != nil {
		return nil, err
	}
	merged := mergedInto(history)
	ids := make([]uuid.UUID, 0, len(merged))
	for id := range merged {
		ids = append(ids, id)
	}
	rows, err := s.store.GetMany(ctx, ids, nil)
	if err != nil {
		return nil, err
	}
	texts := make(map[uuid.UUID]string, len(rows))
	for _, r := range rows {
		texts[r.ID] = r.Text
	}
	return splitAbsorbed(m.MergedFrom, history, merged, texts), nil
}

// mergedInto returns the memories consolidation merged into the memory whose history this is
// and has not unmerged since, with when: the ids of its merge events' "absorbed", less those
// of later unmerges' "unmerged".
func mergedInto(history []store.HistoryEntry) map[uuid.UUID]time.Time {
	out := map[uuid.UUID]time.Time{}
	for _, h := range history {
		switch {
		case h.Event == store.EventMerge:
			for _, id := range detailIDs(h.Detail, "absorbed") {
				out[id] = h.CreatedAt
			}
		case h.Event == store.EventUpdate && h.Detail["unmerged"] != nil:
			for _, id := range detailIDs(h.Detail, "unmerged") {
				delete(out, id)
			}
		}
	}
	return out
}

// splitAbsorbed parts merged_from into paraphrases and the merged memories' texts, in history
// order.
func splitAbsorbed(mergedFrom []store.Merged, history []store.HistoryEntry, merged map[uuid.UUID]time.Time, texts map[uuid.UUID]string) *Absorbed {
	out := &Absorbed{}
	taken := map[string]bool{}
	for _, h := range history {
		if h.Event != store.EventMerge {
			continue
		}
		for _, id := range detailIDs(h.Detail, "absorbed") {
			if at, ok := merged[id]; ok && at.Equal(h.CreatedAt) {
				out.Merged = append(out.Merged, MergedMemory{ID: id, Text: texts[id], At: at})
				taken[store.NormalizeText(texts[id])] = true
			}
		}
	}
	for _, p := range mergedFrom {
		if !taken[store.NormalizeText(p.Text)] {
			out.Paraphrases = append(out.Paraphrases, p)
		}
	}
	if len(out.Paraphrases) == 0 && len(out.Merged) == 0 {
		return nil
	}
	return out
}

// detailIDs reads a history detail's list of ids under key (JSON strings); what does not
// parse is skipped.
func detailIDs(detail map[string]any, key string) []uuid.UUID {
	list, _ := detail[key].([]any)
	var ids []uuid.UUID
	for _, v := range list {
		if s, ok := v.(string); ok {
			if id, err := uuid.Parse(s); err == nil {
				ids = append(ids, id)
			}
		}
	}
	return ids
}
