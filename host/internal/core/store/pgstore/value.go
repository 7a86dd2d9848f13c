package pgstore

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/memhost/memhost/host/internal/core/store"
)

// Value computes q's project's value figures from its session records (docs/value.md): the
// newest q.Sessions sessions since q.Since with what each used and saved, the totals over every
// session in the window, and the live memories given in at least q.UnusedAfter ended sessions
// and never cited or retrieved in any (candidates to bury).
func (s *Store) Value(ctx context.Context, q store.ValueQuery) (store.ValueRows, error) {
	var out store.ValueRows
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly, IsoLevel: pgx.RepeatableRead}, func(tx pgx.Tx) error {
		sessions, err := listSessions(ctx, tx, store.SessionQuery{ScopeKey: q.ScopeKey, Since: q.Since, Limit: q.Sessions})
		if err != nil {
			return err
		}
		per, err := usedAndSaved(ctx, tx, q.ScopeKey, q.Since, uuid.Nil)
		if err != nil {
			return err
		}
		t := &out.Totals
		t.Events = map[store.SessionEvent]int{}
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM agent_sessions WHERE scope_key = $1 AND started_at >= $2`, q.ScopeKey, q.Since).Scan(&t.Sessions); err != nil {
			return fmt.Errorf("count sessions: %w", err)
		}
		rows, err := tx.Query(ctx, `SELECT sm.event, count(*) FROM session_memories sm JOIN agent_sessions a ON a.id = sm.session_id
			WHERE a.scope_key = $1 AND a.started_at >= $2 GROUP BY sm.event`, q.ScopeKey, q.Since)
		if err != nil {
			return fmt.Errorf("count session events: %w", err)
		}
		var ev string
		var n int
		if _, err := pgx.ForEachRow(rows, []any{&ev, &n}, func() error { t.Events[store.SessionEvent(ev)] = n; return nil }); err != nil {
			return fmt.Errorf("count session events: %w", err)
		}
		if err := tx.QueryRow(ctx, `WITH g AS (
				SELECT DISTINCT sm.memory_id FROM session_memories sm JOIN agent_sessions a ON a.id = sm.session_id
				WHERE a.scope_key = $1 AND a.started_at >= $2 AND sm.event = 'given')
			SELECT count(*), count(*) FILTER (WHERE EXISTS (
				SELECT 1 FROM session_memories u JOIN agent_sessions b ON b.id = u.session_id
				WHERE u.memory_id = g.memory_id AND b.scope_key = $1 AND u.event IN ('cited', 'retrieved')))
			FROM g`, q.ScopeKey, q.Since).Scan(&t.Injected, &t.InjectedUsed); err != nil {
			return fmt.Errorf("count injected memories: %w", err)
		}
		if err := tx.QueryRow(ctx, `SELECT count(*), coalesce(sum(tokens), 0) FROM memory_discovery
			WHERE scope_key = $1 AND measured_at >= $2`, q.ScopeKey, q.Since).Scan(&t.Discovered, &t.DiscoveryTokens); err != nil {
			return fmt.Errorf("sum discovery costs: %w", err)
		}
		for _, v := range per {
			t.Saved += v.Saved
			t.SavedFacts += v.SavedFacts
		}
		out.Sessions = make([]store.SessionValue, len(sessions))
		for i, x := range sessions {
			out.Sessions[i] = store.SessionValue{Session: x, Used: per[x.ID].Used, Saved: per[x.ID].Saved, SavedFacts: per[x.ID].SavedFacts}
		}
		out.Unused, err = unused(ctx, tx, q)
		return err
	})
	if err != nil {
		return store.ValueRows{}, err
	}
	return out, nil
}

// sessionUse is one session's used and saved figures.
type sessionUse struct {
	Used       int
	Saved      int64
	SavedFacts int
}

// usedAndSaved computes, for every session in the window: the memories given to it that it
// cited or retrieved, and its estimated saving. A memory it used (cited or retrieved) that
// another session stored with a measured discovery cost saves that cost less what reading it
// cost here: the fewest tokens it took in the banner, a prompt hook or a tool result (0 when
// unknown), and never less than nothing.
//
// With session set, only that session is computed (since is then ignored).
func usedAndSaved(ctx context.Context, db querier, project string, since time.Time, session uuid.UUID) (map[uuid.UUID]sessionUse, error) {
	rows, err := db.Query(ctx, `WITH per AS (
			SELECT sm.session_id, sm.memory_id,
				bool_or(sm.event = 'given') AS given,
				bool_or(sm.event IN ('cited', 'retrieved')) AS used,
				min(NULLIF(sm.tokens, 0)) FILTER (WHERE sm.event IN ('given', 'retrieved')) AS read_tokens
			FROM session_memories sm JOIN agent_sessions a ON a.id = sm.session_id
			WHERE a.scope_key = $1 AND CASE WHEN $3::uuid IS NULL THEN a.started_at >= $2 ELSE a.id = $3 END
			GROUP BY sm.session_id, sm.memory_id)
		SELECT p.session_id,
			count(*) FILTER (WHERE p.given AND p.used),
			coalesce(sum(greatest(d.tokens - coalesce(p.read_tokens, 0), 0)) FILTER (WHERE p.used), 0)::bigint,
			count(d.memory_id) FILTER (WHERE p.used)
		FROM per p LEFT JOIN memory_discovery d ON d.memory_id = p.memory_id AND d.session_id IS DISTINCT FROM p.session_id
		GROUP BY p.session_id`, project, since, nullID(session))
	if err != nil {
		return nil, fmt.Errorf("compute sessions' use: %w", err)
	}
	out := map[uuid.UUID]sessionUse{}
	var (
		id uuid.UUID
		u  sessionUse
	)
	if _, err := pgx.ForEachRow(rows, []any{&id, &u.Used, &u.Saved, &u.SavedFacts}, func() error { out[id] = u; return nil }); err != nil {
		return nil, fmt.Errorf("compute sessions' use: %w", err)
	}
	return out, nil
}

// SessionUse is one of project's sessions' figures: the memories given to it that it cited or
// retrieved, and its estimated saving over savedFacts memories (usedAndSaved).
func (s *Store) SessionUse(ctx context.Context, project string, id uuid.UUID) (used int, saved int64, savedFacts int, err error) {
	per, err := usedAndSaved(ctx, s.pool, project, time.Time{}, id)
	if err != nil {
		return 0, 0, 0, err
	}
	u := per[id]
	return u.Used, u.Saved, u.SavedFacts, nil
}

func nullID(id uuid.UUID) *uuid.UUID {
	if id == uuid.Nil {
		return nil
	}
	return &id
}

// unused lists the live memories given in at least q.UnusedAfter ended sessions of the project
// (sessions whose use could be reported) and never cited or retrieved in any of its sessions.
func unused(ctx context.Context, tx pgx.Tx, q store.ValueQuery) ([]store.UnusedMemory, error) {
	return queryCollect(ctx, tx, "list unused memories", func(row pgx.CollectableRow) (store.UnusedMemory, error) {
		var u store.UnusedMemory
		var kind string
		err := row.Scan(&u.ID, &kind, &u.Text, &u.Given, &u.LastGiven)
		u.Kind = store.Kind(kind)
		return u, err
	}, `SELECT m.id, m.kind, m.text, count(DISTINCT sm.session_id), max(sm.at)
		FROM session_memories sm JOIN agent_sessions a ON a.id = sm.session_id JOIN memories m ON m.id = sm.memory_id
		WHERE a.scope_key = $1 AND a.ended_at IS NOT NULL AND sm.event = 'given' AND m.archived_at IS NULL
			AND NOT EXISTS (SELECT 1 FROM session_memories u JOIN agent_sessions b ON b.id = u.session_id
				WHERE u.memory_id = sm.memory_id AND b.scope_key = $1 AND u.event IN ('cited', 'retrieved'))
		GROUP BY m.id, m.kind, m.text HAVING count(DISTINCT sm.session_id) >= $2
		ORDER BY count(DISTINCT sm.session_id) DESC, max(sm.at) DESC, m.id LIMIT $3`, q.ScopeKey, max(q.UnusedAfter, 1), max(q.Unused, 1))
}
