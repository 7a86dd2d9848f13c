package pgstore

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// RecordRetrievals implements store.Store. last_retrieved_at is in no index, so the update is
// HOT like a hit's.
func (s *Store) RecordRetrievals(ctx context.Context, ids []uuid.UUID) error {
	if len(ids) == 0 {
		return nil
	}
	if _, err := s.pool.Exec(ctx, `UPDATE memories SET last_retrieved_at = now() WHERE id = ANY($1::uuid[])`, uuidArray(ids)); err != nil {
		return fmt.Errorf("record retrievals: %w", err)
	}
	return nil
}

// LastRetrieved is when the memory was last returned by a search or a get, nil if never.
func (s *Store) LastRetrieved(ctx context.Context, id uuid.UUID) (*time.Time, error) {
	var at *time.Time
	if err := s.pool.QueryRow(ctx, `SELECT last_retrieved_at FROM memories WHERE id = $1`, id).Scan(&at); err != nil {
		return nil, fmt.Errorf("read last_retrieved_at of %s: %w", id, err)
	}
	return at, nil
}
