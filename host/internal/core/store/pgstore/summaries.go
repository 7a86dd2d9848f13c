package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/memhost/memhost/host/internal/core/store"
)

// QueueTranscriptTx records t in tx, the transaction of its journal entry.
func (s *Store) QueueTranscriptTx(ctx context.Context, tx pgx.Tx, t store.SessionTranscript) error {
	_, err := tx.Exec(ctx, `INSERT INTO session_transcripts (journal_id, scope_key, agent, excerpt, created_at)
		VALUES ($1, $2, $3, $4, $5)`, t.JournalID, t.Project, t.Agent, t.Excerpt, t.CreatedAt)
	if err != nil {
		return fmt.Errorf("queue the session's transcript: %w", err)
	}
	return nil
}

// PendingTranscripts returns up to limit transcripts waiting for a summary, oldest first, of
// project ("" for every project).
func (s *Store) PendingTranscripts(ctx context.Context, project string, limit int) ([]store.SessionTranscript, error) {
	return queryCollect(ctx, s.pool, "list pending transcripts", func(r pgx.CollectableRow) (store.SessionTranscript, error) {
		var t store.SessionTranscript
		err := r.Scan(&t.JournalID, &t.Project, &t.Agent, &t.Excerpt, &t.CreatedAt, &t.Attempts, &t.LastError)
		return t, err
	}, `SELECT journal_id, scope_key, agent, excerpt, created_at, attempts, last_error
		FROM session_transcripts WHERE $1 = '' OR scope_key = $1 ORDER BY created_at, journal_id LIMIT $2`, project, limit)
}

// TranscriptFailed records a failed summary of journalID's transcript and returns how many
// have failed.
func (s *Store) TranscriptFailed(ctx context.Context, journalID uuid.UUID, reason string) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `UPDATE session_transcripts SET attempts = attempts + 1, last_error = $2
		WHERE journal_id = $1 RETURNING attempts`, journalID, reason).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, rules.ErrNotFound
	}
	if err != nil {
		return 0, fmt.Errorf("record the failed summary: %w", err)
	}
	return n, nil
}

// SummarizeJournal replaces the text (and vector) of the live journal entry sum.JournalID with
// sum.Text, records an update in its history, and deletes its waiting transcript, in one
// transaction. An entry archived or gone meanwhile is ErrNotFound, and its
// transcript is dropped.
func (s *Store) SummarizeJournal(ctx context.Context, sum store.JournalSummary) (store.Memory, error) {
	journalID, text, v := sum.JournalID, sum.Text, sum.Vector
	var out store.Memory
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM session_transcripts WHERE journal_id = $1`, journalID); err != nil {
			return err
		}
		m, err := lockRow(ctx, tx, journalID)
		if err != nil {
			return err
		}
		if m.Kind != store.KindJournal || m.ArchivedAt != nil {
			return rules.ErrNotFound
		}
		if err := checkVector(v); err != nil {
			return err
		}
		now := time.Now().UTC()
		b := &pgx.Batch{}
		if err := queueHistory(b, m, store.EventUpdate, &m.Text, &text, sum.Actor, map[string]any{"reason": "session summary"}, now); err != nil {
			return err
		}
		// The new text drops the old one's vectors (migration 0012's trigger); its own vector
		// follows the update in the same batch.
		b.Queue(`UPDATE memories SET text = $2, text_hash = $3, embedder = $4, updated_at = $5, seq = next_change_seq()
			WHERE id = $1 RETURNING `+memoryColumns, journalID, text, TextHash(text), v.Embedder, now,
		).QueryRow(func(row pgx.Row) error {
			out, err = scanMemory(row)
			return err
		})
		queuePutVector(b, journalID, text, v)
		return tx.SendBatch(ctx, b).Close()
	})
	if errors.Is(err, rules.ErrNotFound) {
		// Nothing to summarise into: the transcript goes anyway.
		return out, errors.Join(err, s.DropTranscript(context.WithoutCancel(ctx), journalID))
	}
	if err != nil {
		return out, fmt.Errorf("summarise journal entry %s: %w", journalID, err)
	}
	return out, nil
}

// DropTranscript deletes journalID's waiting transcript (its entry is gone).
func (s *Store) DropTranscript(ctx context.Context, journalID uuid.UUID) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM session_transcripts WHERE journal_id = $1`, journalID); err != nil {
		return fmt.Errorf("drop the session's transcript: %w", err)
	}
	return nil
}
