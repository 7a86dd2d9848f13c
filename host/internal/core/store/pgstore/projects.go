package pgstore

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/memhost/memhost/host/internal/core/store"
)

// projectsSQL lists projects for the operator's overview without reading a table through:
// in a database shared by many projects it must not cost a scan of every memory (wide rows:
// the vectors are inline).
//
//   - The project keys come from loose index scans (one index probe per distinct key) over
//     memories_scope_recent and proposals_inbox, plus project_maps, which has one row per key.
//   - Each key's last activity is a few probes: its newest history entry (memory_history_scope)
//     and memory (memories_scope_recent), its proposals (proposals_inbox) and its map.
//   - Only the page's projects are counted, each by index-only scans of its own index range:
//     every row (memories_scope_recent), live facts (memories_live_text's predicate), live
//     layer rows (memories_layer_recent's), pending proposals (proposals_pending's). Archived
//     rows are the rest, since a row is either live or archived, and live rows are facts or
//     layers. Each predicate repeats its partial index's literally (see factKinds).
//
// Order: last activity, newest first, then key (descending, so that one row comparison pages).
const projectsSQL = `
WITH RECURSIVE mem_keys(k) AS (
    (SELECT scope_key FROM memories WHERE scope = 'project' ORDER BY scope_key LIMIT 1)
    UNION ALL
    SELECT (SELECT m.scope_key FROM memories m WHERE m.scope = 'project' AND m.scope_key > mem_keys.k
            ORDER BY m.scope_key LIMIT 1)
    FROM mem_keys WHERE k IS NOT NULL
), proposal_keys(k) AS (
    (SELECT scope_key FROM proposals ORDER BY scope_key LIMIT 1)
    UNION ALL
    SELECT (SELECT p.scope_key FROM proposals p WHERE p.scope_key > proposal_keys.k ORDER BY p.scope_key LIMIT 1)
    FROM proposal_keys WHERE k IS NOT NULL
), keys(k) AS (
    SELECT k FROM mem_keys WHERE k IS NOT NULL
    UNION SELECT k FROM proposal_keys WHERE k IS NOT NULL
    UNION SELECT scope_key FROM project_maps
), active AS (
    SELECT k, GREATEST(
        (SELECT h.created_at FROM memory_history h WHERE h.scope = 'project' AND h.scope_key = keys.k
         ORDER BY h.id DESC LIMIT 1),
        (SELECT m.created_at FROM memories m WHERE m.scope = 'project' AND m.scope_key = keys.k
         ORDER BY m.created_at DESC LIMIT 1),
        (SELECT max(GREATEST(p.created_at, p.decided_at)) FROM proposals p WHERE p.scope_key = keys.k),
        (SELECT pm.updated_at FROM project_maps pm WHERE pm.scope_key = keys.k)
    ) AS last_activity
    FROM keys
    WHERE $1 = '' OR k = $1
), page AS (
    SELECT k, last_activity FROM active
    WHERE $2::timestamptz IS NULL OR (last_activity, k) < ($2::timestamptz, $3::text)
    ORDER BY last_activity DESC, k DESC
    LIMIT $4
), counted AS MATERIALIZED ( -- materialized: the outer query reads facts twice, counts it once
    SELECT k, last_activity,
        (SELECT count(*) FROM memories m WHERE m.scope = 'project' AND m.scope_key = page.k) AS total,
        (SELECT count(*) FROM memories m WHERE m.scope = 'project' AND m.scope_key = page.k
            AND m.archived_at IS NULL AND m.kind NOT IN ('goal', 'plan', 'journal')) AS facts,
        (SELECT count(*) FROM memories m WHERE m.scope_key = page.k
            AND m.archived_at IS NULL AND m.kind IN ('goal', 'plan', 'journal')) AS layers,
        (SELECT count(*) FROM memories m WHERE m.scope_key = page.k
            AND m.archived_at IS NULL AND m.kind IN ('goal', 'plan', 'journal') AND m.kind = 'journal') AS journal,
        (SELECT count(*) FROM proposals p WHERE p.scope_key = page.k AND p.status = 'pending') AS pending
    FROM page
)
SELECT k, last_activity, facts, total - facts - layers, pending, journal
FROM counted
ORDER BY last_activity DESC, k DESC`

// Projects lists the projects that hold anything, most recently active first, with their counts.
func (s *Store) Projects(ctx context.Context, q store.ProjectsQuery) ([]store.ProjectSummary, error) {
	var afterAt *time.Time
	var afterKey string
	if q.After != nil {
		afterAt, afterKey = &q.After.LastActivity, q.After.Key
	}
	return queryCollect(ctx, s.pool, "list projects", func(r pgx.CollectableRow) (store.ProjectSummary, error) {
		var p store.ProjectSummary
		err := r.Scan(&p.Key, &p.LastActivity, &p.Memories, &p.Archived, &p.PendingProposals, &p.Journal)
		return p, err
	}, projectsSQL, q.Key, afterAt, afterKey, q.Limit)
}
