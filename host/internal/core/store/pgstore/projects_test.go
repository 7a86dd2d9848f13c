package pgstore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
)

// A database shared by many projects, scaled down to run in a test: projects × perProject
// memories (every tenth a journal entry, every seventh archived), each with its add in history.
const (
	projects   = 30
	perProject = 400
)

func seedProjects(t *testing.T, ctx context.Context, run func(sql string, args ...any)) {
	t.Helper()
	run(`INSERT INTO memories (id, scope, scope_key, kind, text, text_hash, embedder, seq, archived_at, created_at, updated_at)
		SELECT gen_random_uuid(), 'project', 'github.com/acme/p' || (i % $1),
			CASE WHEN i % 10 = 0 THEN 'journal' ELSE 'fact' END, 'note ' || i, sha256(('note ' || i)::bytea),
			'e', i, CASE WHEN i % 7 = 0 THEN now() END, ts, ts
		FROM generate_series(1, $2::int) i, LATERAL (SELECT now() - make_interval(secs => i)) t(ts)`, projects, projects*perProject)
	run(`INSERT INTO memories (id, scope, scope_key, kind, text, text_hash, embedder, seq)
		VALUES (gen_random_uuid(), 'global', '', 'fact', 'a global note', sha256('a global note'), 'e', 0)`)
	run(`INSERT INTO memory_history (memory_id, scope, scope_key, event, after_text, created_at)
		SELECT id, scope, scope_key, 'add', text, created_at FROM memories ORDER BY created_at`)
	// A project with nothing but a pending proposal, and one with nothing but a map.
	run(`INSERT INTO proposals (id, scope_key, layer, text, created_at) VALUES (gen_random_uuid(), 'github.com/acme/inbox', 'goal', 'Ship.', now() + interval '1 minute')`)
	run(`INSERT INTO project_maps (scope_key, map, generated_at, updated_at) VALUES ('github.com/acme/mapped', '{}', now(), now() - interval '1 year')`)
	for _, table := range []string{"memories", "memory_history", "proposals", "project_maps"} {
		run(`VACUUM ANALYZE ` + table) // the visibility map lets the counts read indexes only
	}
}

// TestProjectsListingPagesAndCounts: every project that holds anything is listed once, most
// recently active first, paged, with its counts; a key filter lists that project alone.
func TestProjectsListingPagesAndCounts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := testdb.Migrated(t)
	seedProjects(t, ctx, func(sql string, args ...any) {
		_, err := pool.Exec(ctx, sql, args...)
		require.NoError(t, err, sql)
	})
	st := pgstore.New(pool)

	var all []store.ProjectSummary
	q := store.ProjectsQuery{Limit: 7}
	for {
		page, err := st.Projects(ctx, q)
		require.NoError(t, err)
		all = append(all, page...)
		if len(page) < q.Limit {
			break
		}
		c := store.ProjectsCursorOf(page[len(page)-1])
		c, ok := store.ParseProjectsCursor(c.String())
		require.True(t, ok)
		q.After = &c
	}
	require.Len(t, all, projects+2)
	require.Equal(t, "github.com/acme/inbox", all[0].Key, "a proposal filed last is the newest activity")
	require.Equal(t, int64(1), all[0].PendingProposals)
	require.Equal(t, "github.com/acme/mapped", all[len(all)-1].Key)
	seen := map[string]bool{}
	for i, p := range all {
		require.False(t, seen[p.Key], "%s listed twice", p.Key)
		seen[p.Key] = true
		if i > 0 {
			require.False(t, p.LastActivity.After(all[i-1].LastActivity), "newest first")
		}
	}

	one, err := st.Projects(ctx, store.ProjectsQuery{Key: "github.com/acme/p3", Limit: 10})
	require.NoError(t, err)
	require.Len(t, one, 1)
	var want store.ProjectSummary
	require.NoError(t, pool.QueryRow(ctx, `SELECT
			count(*) FILTER (WHERE archived_at IS NULL AND kind = 'fact'),
			count(*) FILTER (WHERE archived_at IS NOT NULL),
			count(*) FILTER (WHERE archived_at IS NULL AND kind = 'journal'),
			max(created_at)
		FROM memories WHERE scope_key = 'github.com/acme/p3'`).Scan(&want.Memories, &want.Archived, &want.Journal, &want.LastActivity))
	want.Key = "github.com/acme/p3"
	require.Equal(t, want.LastActivity.UnixMicro(), one[0].LastActivity.UnixMicro())
	want.LastActivity = one[0].LastActivity
	require.Equal(t, want, one[0])
}

// TestProjectsListingReadsThroughIndexes pins the listing's plan on a database of many
// projects: no table is scanned; keys, last activity and counts all come from indexes.
func TestProjectsListingReadsThroughIndexes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := testdb.Migrated(t)
	seedProjects(t, ctx, func(sql string, args ...any) {
		_, err := pool.Exec(ctx, sql, args...)
		require.NoError(t, err, sql)
	})
	rows, err := pool.Query(ctx, `EXPLAIN `+pgstore.ProjectsSQL, "", nil, "", 50)
	require.NoError(t, err)
	plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	text := strings.Join(plan, "\n")
	for _, table := range []string{"memories", "memory_history"} {
		require.NotContains(t, text, "Seq Scan on "+table+" ", "a table scan:\n%s", text)
	}
	for _, index := range []string{"memories_scope_recent", "memory_history_scope", "memories_layer_recent"} {
		require.Contains(t, text, index, text)
	}
	// Live facts: either partial index over facts serves, and they are counted once per project.
	facts := strings.Count(text, "Index Only Scan using memories_spawn") + strings.Count(text, "Index Only Scan using memories_live_text")
	require.Equal(t, 1, facts, text)
}
