package transfer

import (
	"time"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/store"
)

// FormatVersion is the export format's version; import refuses newer ones.
const FormatVersion = 1

// Header is the first line of an export.
type Header struct {
	Format     int       `json:"memhost_export"`
	Scope      string    `json:"scope"`
	Project    string    `json:"project,omitempty"`
	ExportedAt time.Time `json:"exported_at"`
}

// Record is one memory line.
type Record struct {
	ID             uuid.UUID            `json:"id"`
	Scope          store.Scope          `json:"scope"`
	Project        string               `json:"project,omitempty"`
	Kind           store.Kind           `json:"kind"`
	Text           string               `json:"text"`
	Importance     float64              `json:"importance"`
	Confidence     float64              `json:"confidence"`
	Pinned         bool                 `json:"pinned,omitempty"`
	HitCount       int64                `json:"hit_count,omitempty"`
	LastHitAt      *time.Time           `json:"last_hit_at,omitempty"`
	Provenance     store.Provenance     `json:"provenance"`
	DedupedCount   int                  `json:"deduped_count,omitempty"`
	MergedFrom     []store.Merged       `json:"merged_from,omitempty"`
	CreatedAt      time.Time            `json:"created_at"`
	UpdatedAt      time.Time            `json:"updated_at"`
	ArchivedAt     *time.Time           `json:"archived_at,omitempty"`
	ArchivedReason string               `json:"archived_reason,omitempty"`
	Embedding      Embedding            `json:"embedding"`
	History        []store.HistoryEntry `json:"history,omitempty"`
}

// Embedding is a record's vector.
type Embedding struct {
	Embedder   string `json:"embedder"`
	Dimensions int    `json:"dimensions"`
	Values     Values `json:"values"`
}

func recordOf(r store.ExportRecord) Record {
	m := r.Memory
	return Record{
		ID: m.ID, Scope: m.Scope, Project: m.ScopeKey, Kind: m.Kind, Text: m.Text, Importance: m.Importance,
		Confidence: m.Confidence, Pinned: m.Pinned, HitCount: m.HitCount, LastHitAt: m.LastHitAt, Provenance: m.Provenance,
		DedupedCount: m.DedupedCount, MergedFrom: m.MergedFrom, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt,
		ArchivedAt: m.ArchivedAt, ArchivedReason: m.ArchivedReason,
		Embedding: Embedding{Embedder: r.Vector.Embedder, Dimensions: r.Vector.Dimensions, Values: r.Vector.Values},
		History:   r.History,
	}
}

// idNamespace derives ids for records imported into another scope than they were exported
// from (UUIDv5), so the same file imported twice into one project still lands once.
var idNamespace = uuid.MustParse("6d656d68-6f73-7420-8000-696d706f7274")

// targetID keeps a record's id when it goes back to its own scope and derives a stable new one
// when it moves, so a copy never collides with its original in the same database.
func (r Record) targetID(scope store.ScopeRef) uuid.UUID {
	if r.Scope == scope.Scope && r.Project == scope.Key {
		return r.ID
	}
	return uuid.NewSHA1(idNamespace, []byte(r.ID.String()+"\x00"+string(scope.Scope)+"\x00"+scope.Key))
}

func (r Record) exportRecord(scope store.ScopeRef) store.ExportRecord {
	return store.ExportRecord{
		Memory: store.Memory{
			ID: r.targetID(scope), Scope: scope.Scope, ScopeKey: scope.Key, Kind: r.Kind, Text: r.Text, Importance: r.Importance,
			Confidence: r.Confidence, Pinned: r.Pinned, HitCount: r.HitCount, LastHitAt: r.LastHitAt, Provenance: r.Provenance,
			Embedder: r.Embedding.Embedder, DedupedCount: r.DedupedCount, MergedFrom: r.MergedFrom, CreatedAt: r.CreatedAt,
			UpdatedAt: r.UpdatedAt, ArchivedAt: r.ArchivedAt, ArchivedReason: r.ArchivedReason,
		},
		Vector:  store.Vector{Embedder: r.Embedding.Embedder, Dimensions: r.Embedding.Dimensions, Values: r.Embedding.Values},
		History: r.History,
	}
}
