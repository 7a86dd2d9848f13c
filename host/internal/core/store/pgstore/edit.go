package pgstore

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/memhost/memhost/host/internal/core/store"
)

// Edit changes a live memory as an operator edited it, in one transaction under its scope's
// lock: the text (its old vectors dropped by migration 0012's trigger, the new one stored),
// kind, importance and confidence, with an update row in history holding the text before and
// after and which fields changed. The change takes a new seq, so followers re-index it.
func (s *Store) Edit(ctx context.Context, p store.EditParams) (store.Memory, error) {
	var out store.Memory
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		m, err := lockRow(ctx, tx, p.ID)
		if err != nil {
			return err
		}
		switch {
		case m.Archived():
			return fmt.Errorf("%w: the memory is archived; restore it before editing", store.ErrConflict)
		case m.Text != p.Expect:
			return fmt.Errorf("%w: the memory's text changed since it was read", store.ErrConflict)
		}
		after := m.Text
		changed := []string{}
		args := []any{m.ID, string(p.Kind), p.Importance, p.Confidence, time.Now().UTC()}
		set := `kind = $2, importance = $3, confidence = $4, updated_at = $5, seq = next_change_seq()`
		if r := p.Replacement; r != nil && r.Text != m.Text {
			if err := checkVector(r.Vector); err != nil {
				return err
			}
			after = r.Text
			args = append(args, r.Text, TextHash(r.Text), r.Vector.Embedder)
			set += `, text = $6, text_hash = $7, embedder = $8`
			changed = append(changed, "text")
		}
		if p.Kind != m.Kind {
			changed = append(changed, "kind")
		}
		if float32(p.Importance) != float32(m.Importance) {
			changed = append(changed, "importance")
		}
		if float32(p.Confidence) != float32(m.Confidence) {
			changed = append(changed, "confidence")
		}
		if len(changed) == 0 {
			out = m
			return nil
		}
		detail := map[string]any{"edited": changed}
		if err := appendHistory(ctx, tx, m, store.EventUpdate, &m.Text, &after, p.Actor, detail, args[4].(time.Time)); err != nil {
			return err
		}
		if out, err = scanMemory(tx.QueryRow(ctx, `UPDATE memories SET `+set+` WHERE id = $1 RETURNING `+memoryColumns, args...)); err != nil {
			if isUniqueViolation(err) {
				return fmt.Errorf("%w: another live memory already has this text", store.ErrConflict)
			}
			return fmt.Errorf("update: %w", err)
		}
		if r := p.Replacement; r != nil && r.Text != m.Text {
			if _, err := tx.Exec(ctx, putVectorSQL, m.ID, r.Vector.Embedder, vectorText(r.Vector.Values), TextHash(r.Text)); err != nil {
				return fmt.Errorf("store the vector: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("edit %s: %w", p.ID, err)
	}
	return out, nil
}
