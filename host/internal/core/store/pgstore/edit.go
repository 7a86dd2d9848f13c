package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/jackc/pgx/v5"

	"github.com/memhost/memhost/host/internal/core/store"
)

// Edit implements store.ScopeTx: the update, its history entry and COMMIT go in one batch, as
// a fold's do. The entry is written by the update's statement from the row it returns, so a
// row that is not a live fact of the locked scope changes nothing and records nothing.
func (t *scopeTx) Edit(ctx context.Context, p store.EditParams) (store.Memory, error) {
	now := time.Now().UTC()
	target := store.Memory{ID: p.ID, Scope: t.scope.Scope, ScopeKey: t.scope.Key}
	entry, err := historyArgs(target, store.EventUpdate, &p.Before, &p.After, p.Actor, p.Detail, now)
	if err != nil {
		return store.Memory{}, err
	}
	// $1..$6: the row and the time; $7..$11: the entry (event, before, after, actor, detail).
	args := append([]any{p.ID, string(t.scope.Scope), t.scope.Key, string(p.Kind), p.Importance, now}, entry[3:8]...)
	set := `kind = $4, importance = $5, updated_at = $6, seq = next_change_seq()`
	if p.Text != "" {
		if err := checkVector(p.Vector); err != nil {
			return store.Memory{}, err
		}
		// A new text drops the vectors of the old one (migration 0012's trigger); the new
		// vector follows the update in the same batch.
		args = append(args, p.Text, TextHash(p.Text), p.Vector.Embedder)
		set += `, text = $12, text_hash = $13, embedder = $14`
	}
	b := t.batch()
	var m store.Memory
	b.Queue(`WITH edited AS (
			UPDATE memories SET `+set+`
			WHERE id = $1 AND scope = $2 AND scope_key = $3 AND archived_at IS NULL AND `+factKinds+` RETURNING `+memoryColumns+`
		), entry AS (
			INSERT INTO memory_history (memory_id, scope, scope_key, event, before_text, after_text, actor, detail, created_at)
			SELECT id, scope, scope_key, $7::text, $8::text, $9::text, $10::text, $11::jsonb, $6 FROM edited
		)
		SELECT `+memoryColumns+` FROM edited`, args...,
	).QueryRow(func(row pgx.Row) error {
		m, err = scanMemory(row)
		return err
	})
	if p.Text != "" {
		queuePutVector(b, p.ID, p.Text, p.Vector)
	}
	switch err := t.send(ctx, b, true); {
	case errors.Is(err, rules.ErrNotFound):
		return m, fmt.Errorf("edit %s: not a live fact of the locked scope: %w", p.ID, err)
	case isUniqueViolation(err):
		return m, fmt.Errorf("edit %s: %w: another live memory has the text", p.ID, rules.ErrConflict)
	case err != nil:
		return m, fmt.Errorf("edit %s: %w", p.ID, err)
	}
	return m, nil
}
