package memory

import (
	"time"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/store"
)

// View is the JSON shape of a memory on the API surfaces (MCP structured output, REST). Export
// files have their own versioned record format (package transfer), which must stay stable.
type View struct {
	ID             uuid.UUID      `json:"id"`
	Scope          store.Scope    `json:"scope"`
	Project        string         `json:"project,omitempty"`
	Kind           store.Kind     `json:"kind"`
	Text           string         `json:"text"`
	Importance     float64        `json:"importance"`
	Confidence     float64        `json:"confidence"`
	Pinned         bool           `json:"pinned"`
	HitCount       int64          `json:"hit_count"`
	LastHitAt      *time.Time     `json:"last_hit_at,omitempty"`
	Agent          string         `json:"agent,omitempty"`
	Session        string         `json:"session,omitempty"`
	Source         string         `json:"source,omitempty"`
	Embedder       string         `json:"embedder"`
	DedupedCount   int            `json:"deduped_count"`
	MergedFrom     []store.Merged `json:"merged_from,omitempty"`
	CreatedAt      time.Time      `json:"created_at"`
	UpdatedAt      time.Time      `json:"updated_at"`
	ArchivedAt     *time.Time     `json:"archived_at,omitempty"`
	ArchivedReason string         `json:"archived_reason,omitempty"`
	// SupersededBy is the memory that replaced this one (the conflicts job's finding).
	SupersededBy *uuid.UUID `json:"superseded_by,omitempty"`
	// Absorbed is what the memory took in: set by Get and Peek alone, when it took in anything.
	Absorbed *Absorbed `json:"absorbed,omitempty"`
}

// ViewOf converts a stored memory.
func ViewOf(m store.Memory) View {
	return View{
		ID: m.ID, Scope: m.Scope, Project: m.ScopeKey, Kind: m.Kind, Text: m.Text,
		Importance: round3(m.Importance), Confidence: round3(m.Confidence), Pinned: m.Pinned,
		HitCount: m.HitCount, LastHitAt: m.LastHitAt, Agent: m.Provenance.Agent, Session: m.Provenance.Session,
		Source: m.Provenance.Source, Embedder: m.Embedder, DedupedCount: m.DedupedCount, MergedFrom: m.MergedFrom,
		CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt, ArchivedAt: m.ArchivedAt, ArchivedReason: m.ArchivedReason,
		SupersededBy: m.SupersededBy,
	}
}

// round3 hides float32 storage noise (0.800000011920929 -> 0.8).
func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }
