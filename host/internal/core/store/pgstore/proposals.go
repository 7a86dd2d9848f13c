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

// shownStatus is a proposal's status as the inbox shows it: a pending proposal whose
// document has changed since it was made (by an archive, say, which marks nothing) is stale.
const shownStatus = `CASE WHEN p.status = 'pending' AND p.base_seq <> COALESCE(d.seq, 0) THEN 'stale' ELSE p.status END`

// proposalSelect reads proposals, each with its document's live row joined for status.
func proposalSelect(status string) string {
	return `SELECT p.id, p.scope_key, p.layer, p.base_seq, p.base_version, p.text, p.reason, p.agent, p.session_id, p.actor,
	` + status + ` AS status, p.decided_by, p.decided_at, p.created_at
	FROM proposals p LEFT JOIN memories d ON d.scope = 'project' AND d.scope_key = p.scope_key AND d.kind = p.layer
		AND d.archived_at IS NULL AND d.` + documentKinds
}

func scanProposal(row pgx.Row) (store.Proposal, error) {
	var p store.Proposal
	var layer, status string
	var decidedBy *string
	err := row.Scan(&p.ID, &p.ScopeKey, &layer, &p.BaseSeq, &p.BaseVersion, &p.Text, &p.Reason, &p.Agent, &p.Session, &p.Actor,
		&status, &decidedBy, &p.DecidedAt, &p.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return p, rules.ErrNotFound
	}
	p.Layer, p.Status = store.Kind(layer), store.ProposalStatus(status)
	if decidedBy != nil {
		p.DecidedBy = *decidedBy
	}
	return p, err
}

// CreateProposal adds a pending proposal made against the project's live document of its
// layer as it is now. p.ID, Text, Layer and ScopeKey are required.
func (s *Store) CreateProposal(ctx context.Context, p store.Proposal) (store.Proposal, error) {
	if !store.IsDocument(p.Layer) {
		return p, fmt.Errorf("create proposal: %q is not goal or plan", p.Layer)
	}
	if p.ID == uuid.Nil {
		p.ID = uuid.Must(uuid.NewV7())
	}
	p.Status = store.ProposalPending
	err := s.pool.QueryRow(ctx, `WITH d AS (SELECT `+documentColumns+` FROM memories WHERE scope = 'project' AND scope_key = $2
			AND kind = $3 AND archived_at IS NULL AND `+documentKinds+`)
		INSERT INTO proposals (id, scope_key, layer, base_seq, base_version, text, reason, agent, session_id, actor)
		SELECT $1, $2, $3, COALESCE((SELECT seq FROM d), 0), COALESCE((SELECT version FROM d), 0), $4, $5, $6, $7, $8
		RETURNING base_seq, base_version, created_at`,
		p.ID, p.ScopeKey, string(p.Layer), p.Text, p.Reason, p.Agent, p.Session, p.Actor).Scan(&p.BaseSeq, &p.BaseVersion, &p.CreatedAt)
	if err != nil {
		return p, fmt.Errorf("create proposal: %w", err)
	}
	return p, nil
}

// Proposal returns one of a project's proposals; another project's id is rules.ErrNotFound.
func (s *Store) Proposal(ctx context.Context, key string, id uuid.UUID) (store.Proposal, error) {
	p, err := scanProposal(s.pool.QueryRow(ctx, proposalSelect(shownStatus)+` WHERE p.id = $1 AND p.scope_key = $2`, id, key))
	if err != nil {
		return p, fmt.Errorf("read proposal %s: %w", id, err)
	}
	return p, nil
}

// ProposalIDsEndingWith returns up to limit ids of a project's proposals whose hex digits end
// with digits, or (when none does) start with them: how a short id shown by the inbox, or one
// printed by an older release, is read back. A project holds few enough proposals that its rows
// are read through the scope key alone.
func (s *Store) ProposalIDsEndingWith(ctx context.Context, key, digits string, limit int) ([]uuid.UUID, error) {
	return queryValues[uuid.UUID](ctx, s.pool, "proposal ids by suffix", `SELECT id FROM proposals WHERE scope_key = $1 AND replace(id::text, '-', '') LIKE '%' || $2
		UNION ALL
		SELECT id FROM proposals WHERE scope_key = $1 AND replace(id::text, '-', '') LIKE $2 || '%'
		  AND NOT EXISTS (SELECT 1 FROM proposals WHERE scope_key = $1 AND replace(id::text, '-', '') LIKE '%' || $2)
		LIMIT $3`, key, digits, limit)
}

// Proposals lists a project's proposals, newest first, filtered by their status as shown.
func (s *Store) Proposals(ctx context.Context, q store.ProposalQuery) ([]store.Proposal, error) {
	args := []any{q.ScopeKey, max(q.Limit, 1)}
	where := ""
	if len(q.Statuses) > 0 {
		statuses := make([]string, len(q.Statuses))
		for i, st := range q.Statuses {
			statuses[i] = string(st)
		}
		args = append(args, statuses)
		where = ` WHERE status = ANY($3)`
	}
	return queryRows(ctx, s.pool, "list proposals", scanProposal, `SELECT * FROM (`+proposalSelect(shownStatus)+` WHERE p.scope_key = $1) inbox`+where+`
		ORDER BY created_at DESC, id DESC LIMIT $2`, args...)
}

// lockProposal loads and locks one of a project's proposals with its stored status.
func lockProposal(ctx context.Context, tx pgx.Tx, key string, id uuid.UUID) (store.Proposal, error) {
	return scanProposal(tx.QueryRow(ctx, proposalSelect("p.status")+` WHERE p.id = $1 AND p.scope_key = $2 FOR UPDATE OF p`, id, key))
}

// ApproveProposal applies a pending proposal: the document takes its text (w carries the
// vector; its Text and Kind are the proposal's) and the proposal records who approved it.
// A proposal whose document changed since it was made is marked stale instead, and the
// error is store.ErrStale; one already decided is store.ErrDecided.
func (s *Store) ApproveProposal(ctx context.Context, key string, id uuid.UUID, w store.DocumentWrite) (store.Proposal, store.Memory, error) {
	var p store.Proposal
	var m store.Memory
	var stale bool
	err := s.inProject(ctx, key, func(tx pgx.Tx) error {
		var err error
		if p, err = lockProposal(ctx, tx, key, id); err != nil {
			return err
		}
		switch p.Status {
		case store.ProposalStale:
			stale = true
			return nil
		case store.ProposalApproved, store.ProposalRejected:
			return fmt.Errorf("%w: it was %s by %s", store.ErrDecided, p.Status, p.DecidedBy)
		}
		cur, err := liveDocument(ctx, tx, key, p.Layer)
		if err != nil {
			return err
		}
		if seqOf(cur) != p.BaseSeq {
			stale, p.Status = true, store.ProposalStale
			_, err := tx.Exec(ctx, `UPDATE proposals SET status = 'stale' WHERE id = $1`, id)
			return err // committed: the inbox shows it stale from now on
		}
		now := time.Now().UTC()
		if _, err := tx.Exec(ctx, `UPDATE proposals SET status = 'approved', decided_by = $2, decided_at = $3 WHERE id = $1`,
			id, w.Actor, now); err != nil {
			return err
		}
		p.Status, p.DecidedBy, p.DecidedAt = store.ProposalApproved, w.Actor, &now
		w.ScopeKey, w.Kind, w.Text = key, p.Layer, p.Text
		m, err = writeDocument(ctx, tx, w, &p.BaseSeq)
		return err
	})
	switch {
	case err != nil:
		return p, m, fmt.Errorf("approve proposal %s: %w", id, err)
	case stale:
		return p, m, fmt.Errorf("approve proposal %s: %w", id, store.ErrStale)
	}
	return p, m, nil
}

// RejectProposal records that a pending or stale proposal was turned down; it stays in the
// inbox's history.
func (s *Store) RejectProposal(ctx context.Context, key string, id uuid.UUID, actor string) (store.Proposal, error) {
	var p store.Proposal
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		if p, err = lockProposal(ctx, tx, key, id); err != nil {
			return err
		}
		if p.Status == store.ProposalApproved || p.Status == store.ProposalRejected {
			return fmt.Errorf("%w: it was %s by %s", store.ErrDecided, p.Status, p.DecidedBy)
		}
		now := time.Now().UTC()
		if _, err := tx.Exec(ctx, `UPDATE proposals SET status = 'rejected', decided_by = $2, decided_at = $3 WHERE id = $1`,
			id, actor, now); err != nil {
			return err
		}
		p.Status, p.DecidedBy, p.DecidedAt = store.ProposalRejected, actor, &now
		return nil
	})
	if err != nil {
		return p, fmt.Errorf("reject proposal %s: %w", id, err)
	}
	return p, nil
}
