package restapi

import (
	"context"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/memory"
)

// editBody is PATCH /memories/{id}: the fields to change, an absent one left as it is.
type editBody struct {
	Text       *string  `json:"text"`
	Kind       *string  `json:"kind"`
	Importance *float64 `json:"importance"`
	place
}

// edit corrects a memory's text, kind or importance (memory.Service.Edit).
func (a *api) edit(ctx context.Context, acc memory.Access, id uuid.UUID, b *editBody) (any, error) {
	return a.Service.Edit(ctx, acc, id, memory.EditRequest{Text: b.Text, Kind: b.Kind, Importance: b.Importance})
}
