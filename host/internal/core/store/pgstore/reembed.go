package pgstore

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/memhost/memhost/host/internal/core/store"
)

// VectorCoverage counts the memories lacking a vector of embedder: the re-embed job's work
// left. Every vector belongs to a memory (a foreign key), so the difference is exact.
func (s *Store) VectorCoverage(ctx context.Context, embedder string) (store.VectorCoverage, error) {
	var c store.VectorCoverage
	var have int64
	if err := s.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM memories), (SELECT count(*) FROM memory_vectors WHERE embedder = $1)`,
		embedder).Scan(&c.Total, &have); err != nil {
		return c, fmt.Errorf("vector coverage of %s: %w", embedder, err)
	}
	c.Missing = max(c.Total-have, 0)
	return c, nil
}

// Unembedded returns the memories q asks for, each with its text to embed. Paging by id lets a run step past a text the embedder refuses.
func (s *Store) Unembedded(ctx context.Context, q store.UnembeddedQuery) ([]store.Unembedded, error) {
	if q.Limit <= 0 {
		return nil, fmt.Errorf("unembedded memories: limit %d must be positive", q.Limit)
	}
	return queryCollect(ctx, s.pool, "unembedded memories", func(row pgx.CollectableRow) (store.Unembedded, error) {
		var u store.Unembedded
		err := row.Scan(&u.ID, &u.Text, &u.Hash)
		return u, err
	}, `SELECT id, text, text_hash FROM memories m
		WHERE id > $2 AND ($3 = '' OR (scope = 'project' AND scope_key = $3))
			AND NOT EXISTS (SELECT 1 FROM memory_vectors v WHERE v.memory_id = m.id AND v.embedder = $1)
		ORDER BY id LIMIT $4`, q.Embedder, q.After, q.Project, q.Limit)
}

// PutVectors stores vectors of one embedder for memories whose text is still the one embedded
// (its hash), in one transaction, and returns how many it stored. A memory whose text changed
// meanwhile, or that a write gave a vector of the embedder meanwhile, is left as it is. The
// scopes' write locks are held for the insert, so no fold changes a text between the check and
// the commit.
func (s *Store) PutVectors(ctx context.Context, embedder string, items []store.Embedded) (int, error) {
	if len(items) == 0 {
		return 0, nil
	}
	ids := make([]uuid.UUID, len(items))
	vecs := make([]string, len(items))
	hashes := make([][]byte, len(items))
	for i, it := range items {
		if it.Vector.Embedder != embedder {
			return 0, fmt.Errorf("put vectors of %s: memory %s has a vector of %s", embedder, it.ID, it.Vector.Embedder)
		}
		if err := checkVector(it.Vector); err != nil {
			return 0, fmt.Errorf("put vectors: memory %s: %w", it.ID, err)
		}
		ids[i], vecs[i], hashes[i] = it.ID, vectorText(it.Vector.Values), it.Hash
	}
	var stored int
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		keys, err := scopeKeysOf(ctx, tx, ids)
		if err != nil {
			return err
		}
		// In one order on every host; a write holds one scope's lock and never waits for another.
		for _, k := range keys {
			if _, err := tx.Exec(ctx, scopeLockSQL, k); err != nil {
				return fmt.Errorf("lock scope: %w", err)
			}
		}
		tag, err := tx.Exec(ctx, `INSERT INTO memory_vectors (memory_id, embedder, scope, scope_key, kind, archived, embedding, ann_deferred)
			SELECT m.id, $1, m.scope, m.scope_key, m.kind, m.archived_at IS NOT NULL, x.v::vector, to_regclass(`+graphNameSQL("$1::text")+`) IS NOT NULL
			FROM unnest($2::uuid[], $3::text[], $4::bytea[]) AS x(id, v, h) JOIN memories m ON m.id = x.id AND m.text_hash = x.h
			ON CONFLICT (memory_id, embedder) DO NOTHING`, embedder, uuidArray(ids), vecs, hashes)
		if err != nil {
			return err
		}
		stored = int(tag.RowsAffected())
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("put vectors of %s: %w", embedder, err)
	}
	return stored, nil
}

// scopeKeysOf returns the write-lock keys of the scopes of ids, sorted and distinct.
func scopeKeysOf(ctx context.Context, tx pgx.Tx, ids []uuid.UUID) ([]string, error) {
	rows, err := tx.Query(ctx, `SELECT DISTINCT scope, scope_key FROM memories WHERE id = ANY($1)`, uuidArray(ids))
	if err != nil {
		return nil, fmt.Errorf("scopes of memories: %w", err)
	}
	keys, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (string, error) {
		var scope, key string
		err := row.Scan(&scope, &key)
		return scopeLockKey(store.Scope(scope), key), err
	})
	if err != nil {
		return nil, fmt.Errorf("scopes of memories: %w", err)
	}
	slices.Sort(keys)
	return keys, nil
}

// WithExclusive runs fn while this process holds the database-wide lock named name, and
// reports false without running fn when another session holds it: a job that must run on one
// host at a time whoever starts it (River's leader, or an operator's run by hand).
func (s *Store) WithExclusive(ctx context.Context, name string, fn func() error) (bool, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return false, fmt.Errorf("exclusive %s: %w", name, err)
	}
	defer releaseAdvisory(conn)
	var locked bool
	// The schema is part of the key, as for graph builds: tests run one schema each.
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock(hashtextextended('memhost.exclusive:' || current_schema() || '.' || $1, 7420))`,
		name).Scan(&locked); err != nil {
		return false, fmt.Errorf("exclusive %s: %w", name, err)
	}
	if !locked {
		return false, nil
	}
	return true, fn()
}

// JobThroughput sums what the finished runs of job started since since changed, and how long
// those runs took: a rate over the time the job worked, for progress reports. Runs that
// changed nothing (an idle run at boot, one that waited out an outage) count for neither.
func (s *Store) JobThroughput(ctx context.Context, job string, since time.Time) (changed int64, busy time.Duration, err error) {
	var seconds float64
	err = s.pool.QueryRow(ctx, `SELECT coalesce(sum(changed), 0), coalesce(sum(extract(epoch FROM finished_at - started_at)), 0)::float8
		FROM maintenance_runs WHERE job = $1 AND started_at >= $2 AND finished_at IS NOT NULL AND NOT dry_run AND changed > 0`, job, since).Scan(&changed, &seconds)
	if err != nil {
		return 0, 0, fmt.Errorf("throughput of %s: %w", job, err)
	}
	return changed, time.Duration(seconds * float64(time.Second)), nil
}
