package pgstore_test

import (
	"context"
	"crypto/sha256"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/daemon/migrate"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
)

// applyUpTo applies the embedded migrations up to version last, as an older memhost did.
func applyUpTo(t *testing.T, pool *pgxpool.Pool, last int) {
	t.Helper()
	ctx := context.Background()
	all, err := migrate.All()
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL,
		checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`)
	require.NoError(t, err)
	for _, m := range all {
		if m.Version > last {
			break
		}
		require.NoError(t, pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)`, m.Version, m.Name, m.Checksum)
			return err
		}), m.Name)
	}
}

func TestMigration0004KeepsExistingFacts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, testdb.Schema(t))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	applyUpTo(t, pool, 3)

	// A database of the previous release: live and archived facts with history.
	hash := func(s string) []byte { h := sha256.Sum256([]byte(store.NormalizeText(s))); return h[:] }
	_, err = pool.Exec(ctx, `INSERT INTO memories (id, scope, scope_key, kind, text, text_hash, embedder, embedding, seq, archived_at)
		VALUES (gen_random_uuid(), 'project', 'p', 'convention', 'Use pnpm.', $1, 'e', '[1,0,0]', 1, NULL),
		       (gen_random_uuid(), 'project', 'p', 'fact', 'Old fact.', $2, 'e', '[0,1,0]', 2, now()),
		       (gen_random_uuid(), 'global', '', 'preference', 'Tabs.', $3, 'e', '[0,0,1]', 3, NULL)`,
		hash("Use pnpm."), hash("Old fact."), hash("Tabs."))
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `INSERT INTO memory_history (memory_id, scope, scope_key, event, after_text) SELECT id, scope, scope_key, 'add', text FROM memories`)
	require.NoError(t, err)
	var before string
	require.NoError(t, pool.QueryRow(ctx, `SELECT string_agg(id::text || kind || text || coalesce(archived_at::text, '-'), ',' ORDER BY seq) FROM memories`).Scan(&before))

	applied, err := migrate.Up(ctx, pool)
	require.NoError(t, err)
	require.NotEmpty(t, applied)
	require.Equal(t, "0004_brain", applied[0].Name)

	var after string
	require.NoError(t, pool.QueryRow(ctx, `SELECT string_agg(id::text || kind || text || coalesce(archived_at::text, '-'), ',' ORDER BY seq) FROM memories`).Scan(&after))
	require.Equal(t, before, after, "every row survives unchanged")
	var hist int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM memory_history`).Scan(&hist))
	require.Equal(t, 3, hist)

	// Facts keep the one-live-text rule; journal entries may repeat; one live goal per project.
	_, err = pool.Exec(ctx, `INSERT INTO memories (id, scope, scope_key, kind, text, text_hash, embedder, seq)
		VALUES (gen_random_uuid(), 'project', 'p', 'fact', 'use  PNPM.', $1, 'e', 4)`, hash("Use pnpm."))
	require.ErrorContains(t, err, "memories_live_text")
	for range 2 {
		_, err = pool.Exec(ctx, `INSERT INTO memories (id, scope, scope_key, kind, text, text_hash, embedder, seq)
			VALUES (gen_random_uuid(), 'project', 'p', 'journal', 'Use pnpm.', $1, 'e', 5)`, hash("Use pnpm."))
		require.NoError(t, err)
	}
	_, err = pool.Exec(ctx, `INSERT INTO memories (id, scope, scope_key, kind, text, text_hash, embedder, seq)
		VALUES (gen_random_uuid(), 'project', 'p', 'goal', 'G1', $1, 'e', 6)`, hash("G1"))
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `INSERT INTO memories (id, scope, scope_key, kind, text, text_hash, embedder, seq)
		VALUES (gen_random_uuid(), 'project', 'p', 'goal', 'G2', $1, 'e', 7)`, hash("G2"))
	require.ErrorContains(t, err, "memories_live_document")
	_, err = pool.Exec(ctx, `INSERT INTO memories (id, scope, scope_key, kind, text, text_hash, embedder, seq)
		VALUES (gen_random_uuid(), 'global', '', 'plan', 'P', $1, 'e', 8)`, hash("P"))
	require.ErrorContains(t, err, "memories_layer_in_project")

	again, err := migrate.Up(ctx, pool)
	require.NoError(t, err)
	require.Empty(t, again)
}

// TestSpawnReadsThroughIndexes asserts the banner's fetch plan: each part of the one
// statement reads through its index, never by scanning the project's rows.
func TestSpawnReadsThroughIndexes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := testdb.Migrated(t)
	conn, err := pool.Acquire(ctx)
	require.NoError(t, err)
	t.Cleanup(conn.Release)
	// An empty table is cheapest to scan; the test asks whether the indexes can serve.
	_, err = conn.Exec(ctx, `SET enable_seqscan = off`)
	require.NoError(t, err)
	rows, err := conn.Query(ctx, `EXPLAIN `+pgstore.SpawnSQL, "p", 5, 5, 200)
	require.NoError(t, err)
	plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	text := strings.Join(plan, "\n")
	for _, index := range []string{"memories_layer_recent", "memories_scope_recent", "memories_spawn"} {
		require.Contains(t, text, index, text)
	}
	require.NotContains(t, text, "Sort", "every part reads in index order:\n%s", text)
}
