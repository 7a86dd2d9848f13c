package pgstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/memhost/memhost/host/internal/core/store"
)

// purgeable is the purge rule, one copy for the scan and the re-check under the row lock: an
// unpinned memory archived before @cutoff.
const purgeable = `archived_at IS NOT NULL AND archived_at < @cutoff AND NOT pinned`

// Purgeable returns up to limit memories the purge job may hard-delete (purgeable), oldest
// archive first; project "" means every scope.
func (s *Store) Purgeable(ctx context.Context, cutoff time.Time, project string, limit int) ([]uuid.UUID, error) {
	return s.ruleCandidates(ctx, "find purgeable memories", purgeable, "archived_at", cutoff, project, limit)
}

// Purge hard-deletes p.ID if it is still purgeable under its row lock, in one transaction: the
// texts in its ledger are erased, a purge row records who, when, why and the text's sha256,
// and a tombstone on the change feed tells every host's indexes. purged says whether it did.
func (s *Store) Purge(ctx context.Context, p store.PurgeParams) (purged bool, err error) {
	id := p.ID
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		m, err := lockRow(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM memories WHERE id = @id AND `+purgeable+`)`,
			pgx.NamedArgs{"id": id, "cutoff": p.Cutoff}).Scan(&purged); err != nil || !purged {
			return err
		}
		now := time.Now().UTC()
		sum := sha256.Sum256([]byte(m.Text))
		if _, err := tx.Exec(ctx, `UPDATE memory_history SET before_text = NULL, after_text = NULL WHERE memory_id = $1`, id); err != nil {
			return fmt.Errorf("erase history texts: %w", err)
		}
		detail := map[string]any{"reason": p.Reason, "text_sha256": hex.EncodeToString(sum[:]), "archived_reason": m.ArchivedReason}
		if m.ArchivedAt != nil {
			detail["archived_at"] = m.ArchivedAt.UTC()
		}
		if err := appendHistory(ctx, tx, m, store.EventPurge, nil, nil, p.Actor, detail, now); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM memories WHERE id = $1`, id); err != nil {
			return fmt.Errorf("delete: %w", err)
		}
		// Last, as every writer does: next_change_seq holds its lock until commit.
		_, err = tx.Exec(ctx, `INSERT INTO memory_tombstones (seq, id, scope, scope_key, kind, purged_at)
			VALUES (next_change_seq(), $1, $2, $3, $4, $5)`, id, string(m.Scope), m.ScopeKey, string(m.Kind), now)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("purge %s: %w", id, err)
	}
	return purged, nil
}

// PurgedScope returns the scope a purged memory lived in, from its purge row; found is false
// when id was never purged.
func (s *Store) PurgedScope(ctx context.Context, id uuid.UUID) (ref store.ScopeRef, found bool, err error) {
	var scope string
	err = s.pool.QueryRow(ctx, `SELECT scope, scope_key FROM memory_history WHERE memory_id = $1 AND event = 'purge' LIMIT 1`, id).Scan(&scope, &ref.Key)
	if errors.Is(err, pgx.ErrNoRows) {
		return ref, false, nil
	}
	if err != nil {
		return ref, false, fmt.Errorf("find purge of %s: %w", id, err)
	}
	ref.Scope = store.Scope(scope)
	return ref, true, nil
}
