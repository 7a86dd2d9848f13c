package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/memhost/memhost/host/internal/core/rules"
	"github.com/memhost/memhost/host/internal/core/store"
)

// Session records (agent_sessions, session_memories, memory_discovery; migration 0015). Every
// statement names the project: a memory is recorded only when it is the project's or global,
// and a session is found only in its own project.

// openSession upserts k's session in tx and returns its id. A session first seen here starts at
// at; a later call keeps its start and origin, and fills in the CLI if it was unknown.
func openSession(ctx context.Context, tx pgx.Tx, k store.SessionKey, at time.Time, taskScoped bool) (uuid.UUID, error) {
	var id uuid.UUID
	err := tx.QueryRow(ctx, `INSERT INTO agent_sessions (id, scope_key, client_key, cli, origin, task_scoped, started_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (scope_key, client_key) DO UPDATE SET
			cli = CASE WHEN agent_sessions.cli = '' THEN excluded.cli ELSE agent_sessions.cli END,
			task_scoped = agent_sessions.task_scoped OR excluded.task_scoped
		RETURNING id`, uuid.Must(uuid.NewV7()), k.ScopeKey, k.Key, k.CLI, string(k.Origin), taskScoped, at).Scan(&id)
	if err != nil {
		return uuid.Nil, fmt.Errorf("open the session record: %w", err)
	}
	return id, nil
}

// recordMemories inserts recs for session id, keeping only memories of project or the global
// scope, and the first record of each (memory, event). It returns the events newly recorded.
func recordMemories(ctx context.Context, tx pgx.Tx, id uuid.UUID, project string, recs []store.SessionMemory) (map[store.SessionEvent]int, error) {
	if len(recs) == 0 {
		return nil, nil
	}
	ids := make([]uuid.UUID, len(recs))
	events := make([]string, len(recs))
	channels := make([]string, len(recs))
	tokens := make([]int32, len(recs))
	ats := make([]time.Time, len(recs))
	for i, r := range recs {
		ids[i], events[i], channels[i], tokens[i], ats[i] = r.MemoryID, string(r.Event), r.Channel, int32(max(r.Tokens, 0)), r.At
	}
	rows, err := tx.Query(ctx, `INSERT INTO session_memories (session_id, memory_id, event, channel, tokens, at)
		SELECT $1, m.id, r.event, r.channel, r.tokens, r.at
		FROM unnest($2::uuid[], $3::text[], $4::text[], $5::int[], $6::timestamptz[]) AS r(memory_id, event, channel, tokens, at)
		JOIN memories m ON m.id = r.memory_id AND (m.scope = 'global' OR (m.scope = 'project' AND m.scope_key = $7))
		ON CONFLICT (session_id, memory_id, event) DO NOTHING
		RETURNING event`, id, ids, events, channels, tokens, ats, project)
	if err != nil {
		return nil, fmt.Errorf("record the session's memories: %w", err)
	}
	added := map[store.SessionEvent]int{}
	for rows.Next() {
		var ev string
		if err := rows.Scan(&ev); err != nil {
			rows.Close()
			return nil, fmt.Errorf("record the session's memories: %w", err)
		}
		added[store.SessionEvent(ev)]++
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("record the session's memories: %w", err)
	}
	return added, nil
}

// RecordSession records recs in k's session, opening its record first if needed (a session
// whose first sign is a tool call starts at at). It returns the events newly recorded: a
// memory already recorded with the same event is not counted again.
func (s *Store) RecordSession(ctx context.Context, k store.SessionKey, at time.Time, taskScoped bool, recs []store.SessionMemory) (map[store.SessionEvent]int, error) {
	var added map[store.SessionEvent]int
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		id, err := openSession(ctx, tx, k, at, taskScoped)
		if err != nil {
			return err
		}
		added, err = recordMemories(ctx, tx, id, k.ScopeKey, recs)
		return err
	})
	return added, err
}

// SessionSeen returns the memories project's session key was given or retrieved so far.
func (s *Store) SessionSeen(ctx context.Context, project, key string) ([]uuid.UUID, error) {
	return queryValues[uuid.UUID](ctx, s.pool, "read what the session was given", `SELECT DISTINCT sm.memory_id FROM session_memories sm
		JOIN agent_sessions a ON a.id = sm.session_id
		WHERE a.scope_key = $1 AND a.client_key = $2 AND sm.event IN ('given', 'retrieved')`, project, key)
}

// EndSession closes e's session (opening its record if it has none, started at started) and
// records recs and the discovery costs of the memories it stored, in one transaction. A
// memory's first measured discovery stands.
func (s *Store) EndSession(ctx context.Context, e store.SessionEnd, started time.Time, recs []store.SessionMemory, found []store.Discovery) (uuid.UUID, map[store.SessionEvent]int, error) {
	var (
		id    uuid.UUID
		added map[store.SessionEvent]int
	)
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		if id, err = openSession(ctx, tx, e.Key, started, false); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE agent_sessions SET ended_at = $2,
			cli_session = CASE WHEN $3 = '' THEN cli_session ELSE $3 END,
			tokens = coalesce($4, tokens), turns = coalesce($5, turns) WHERE id = $1`,
			id, e.EndedAt, e.CLISession, e.Tokens, e.Turns); err != nil {
			return fmt.Errorf("close the session record: %w", err)
		}
		if added, err = recordMemories(ctx, tx, id, e.Key.ScopeKey, recs); err != nil {
			return err
		}
		if len(found) == 0 {
			return nil
		}
		ids := make([]uuid.UUID, len(found))
		tokens := make([]int64, len(found))
		seconds := make([]float64, len(found))
		turns := make([]int32, len(found))
		for i, d := range found {
			ids[i], tokens[i], seconds[i], turns[i] = d.MemoryID, max(d.Tokens, 0), max(d.Seconds, 0), int32(max(d.Turns, 0))
		}
		_, err = tx.Exec(ctx, `INSERT INTO memory_discovery (memory_id, session_id, scope_key, tokens, seconds, turns, measured_at)
			SELECT m.id, $1, $2, d.tokens, d.seconds, d.turns, $7
			FROM unnest($3::uuid[], $4::bigint[], $5::float8[], $6::int[]) AS d(memory_id, tokens, seconds, turns)
			JOIN memories m ON m.id = d.memory_id AND m.scope = 'project' AND m.scope_key = $2
			ON CONFLICT (memory_id) DO NOTHING`, id, e.Key.ScopeKey, ids, tokens, seconds, turns, e.EndedAt)
		if err != nil {
			return fmt.Errorf("record discovery costs: %w", err)
		}
		return nil
	})
	return id, added, err
}

// ResolveShortIDs maps each of digits (hex digits, at least 8, lower case) to the one memory of
// project or the global scope whose id ends with them; digits that match none or several are
// left out.
func (s *Store) ResolveShortIDs(ctx context.Context, project string, digits []string) (map[string]uuid.UUID, error) {
	if len(digits) == 0 {
		return map[string]uuid.UUID{}, nil
	}
	for _, d := range digits {
		if len(d) < 8 {
			return nil, fmt.Errorf("short ids: %q has %d digits; at least 8 are needed", d, len(d))
		}
	}
	rows, err := s.pool.Query(ctx, `SELECT d.digits, m.id FROM unnest($2::text[]) AS d(digits)
		JOIN memories m ON right(m.id::text, 8) = right(d.digits, 8) AND replace(m.id::text, '-', '') LIKE '%' || d.digits
		WHERE m.scope = 'global' OR (m.scope = 'project' AND m.scope_key = $1)`, project, digits)
	if err != nil {
		return nil, fmt.Errorf("resolve short ids: %w", err)
	}
	found := map[string][]uuid.UUID{}
	for rows.Next() {
		var d string
		var id uuid.UUID
		if err := rows.Scan(&d, &id); err != nil {
			rows.Close()
			return nil, fmt.Errorf("resolve short ids: %w", err)
		}
		found[d] = append(found[d], id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("resolve short ids: %w", err)
	}
	out := make(map[string]uuid.UUID, len(found))
	for d, ids := range found {
		if len(ids) == 1 {
			out[d] = ids[0]
		}
	}
	return out, nil
}

// sessionColumns are a session's columns and its counts per event, over agent_sessions a left
// joined with session_memories sm and grouped by a.id.
const sessionColumns = `a.id, a.scope_key, a.client_key, a.cli, a.origin, a.cli_session, a.task_scoped, a.started_at, a.ended_at,
	a.tokens, a.turns,
	count(sm.memory_id) FILTER (WHERE sm.event = 'given'), count(sm.memory_id) FILTER (WHERE sm.event = 'retrieved'),
	count(sm.memory_id) FILTER (WHERE sm.event = 'stored'), count(sm.memory_id) FILTER (WHERE sm.event = 'cited')`

func scanSession(row pgx.CollectableRow) (store.Session, error) {
	var (
		x                            store.Session
		origin                       string
		given, retrieved, stored, ct int
	)
	err := row.Scan(&x.ID, &x.ScopeKey, &x.Key, &x.CLI, &origin, &x.CLISession, &x.TaskScoped, &x.StartedAt, &x.EndedAt,
		&x.Tokens, &x.Turns, &given, &retrieved, &stored, &ct)
	x.Origin = store.SessionOrigin(origin)
	x.Counts = map[store.SessionEvent]int{store.EventGiven: given, store.EventRetrieved: retrieved, store.EventStored: stored, store.EventCited: ct}
	return x, err
}

// Sessions lists q's sessions, newest first.
func (s *Store) Sessions(ctx context.Context, q store.SessionQuery) ([]store.Session, error) {
	return listSessions(ctx, s.pool, q)
}

func listSessions(ctx context.Context, db querier, q store.SessionQuery) ([]store.Session, error) {
	args := []any{q.ScopeKey, q.Since, q.CLI}
	where := []string{"a.scope_key = $1", "a.started_at >= $2", "($3 = '' OR a.cli = $3)"}
	if q.Before != nil {
		args = append(args, q.Before.CreatedAt, q.Before.ID)
		where = append(where, fmt.Sprintf("(a.started_at, a.id) < ($%d, $%d)", len(args)-1, len(args)))
	}
	args = append(args, max(q.Limit, 1))
	return queryCollect(ctx, db, "list sessions", scanSession, fmt.Sprintf(`SELECT %s FROM agent_sessions a
		LEFT JOIN session_memories sm ON sm.session_id = a.id
		WHERE %s GROUP BY a.id ORDER BY a.started_at DESC, a.id DESC LIMIT $%d`,
		sessionColumns, strings.Join(where, " AND "), len(args)), args...)
}

// Session returns one of project's sessions, found by its id or its client key, and its events
// with each memory as it reads now, in the order they happened.
func (s *Store) Session(ctx context.Context, project string, id uuid.UUID, key string) (store.Session, []store.SessionMemoryRow, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+sessionColumns+` FROM agent_sessions a
		LEFT JOIN session_memories sm ON sm.session_id = a.id
		WHERE a.scope_key = $1 AND (a.id = $2 OR a.client_key = $3) GROUP BY a.id ORDER BY a.started_at DESC LIMIT 1`, project, id, key)
	if err != nil {
		return store.Session{}, nil, fmt.Errorf("read the session: %w", err)
	}
	x, err := pgx.CollectExactlyOneRow(rows, scanSession)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Session{}, nil, rules.ErrNotFound
	}
	if err != nil {
		return store.Session{}, nil, fmt.Errorf("read the session: %w", err)
	}
	rows, err = s.pool.Query(ctx, `SELECT sm.memory_id, sm.event, sm.channel, sm.tokens, sm.at, m.kind, m.text, m.archived_at IS NOT NULL
		FROM session_memories sm JOIN memories m ON m.id = sm.memory_id
		WHERE sm.session_id = $1 ORDER BY sm.at, sm.event, sm.memory_id`, x.ID)
	if err != nil {
		return store.Session{}, nil, fmt.Errorf("read the session's memories: %w", err)
	}
	events, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.SessionMemoryRow, error) {
		var r store.SessionMemoryRow
		var ev, kind string
		err := row.Scan(&r.MemoryID, &ev, &r.Channel, &r.Tokens, &r.At, &kind, &r.Text, &r.Archived)
		r.Event, r.Kind = store.SessionEvent(ev), store.Kind(kind)
		return r, err
	})
	if err != nil {
		return store.Session{}, nil, fmt.Errorf("read the session's memories: %w", err)
	}
	return x, events, nil
}

// MemoryAccess returns the events of project's sessions about memory id, newest first: which
// sessions were given it, whose searches returned it, who read, stored or cited it.
func (s *Store) MemoryAccess(ctx context.Context, project string, id uuid.UUID, limit int) ([]store.MemoryAccess, error) {
	return queryCollect(ctx, s.pool, "read the memory's access log", func(row pgx.CollectableRow) (store.MemoryAccess, error) {
		var r store.MemoryAccess
		var ev, origin string
		err := row.Scan(&r.MemoryID, &ev, &r.Channel, &r.Tokens, &r.At, &r.SessionID, &r.CLI, &origin, &r.CLISession, &r.StartedAt)
		r.Event, r.Origin = store.SessionEvent(ev), store.SessionOrigin(origin)
		return r, err
	}, `SELECT sm.memory_id, sm.event, sm.channel, sm.tokens, sm.at, a.id, a.cli, a.origin, a.cli_session, a.started_at
		FROM session_memories sm JOIN agent_sessions a ON a.id = sm.session_id
		WHERE sm.memory_id = $2 AND a.scope_key = $1 ORDER BY sm.at DESC, a.id DESC LIMIT $3`, project, id, max(limit, 1))
}
