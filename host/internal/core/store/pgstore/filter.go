package pgstore

import (
	"fmt"
	"strings"

	"github.com/memhost/memhost/host/internal/core/store"
)

// filterSQL is store.Filter as a condition on the memories table, its arguments appended to
// args. It must keep exactly the rows store.Filter.Match keeps (TestFilterSQLMatchesMatch).
func filterSQL(f store.Filter, args *[]any) string {
	var where []string
	if f.Pinned {
		where = append(where, "pinned")
	}
	if f.Superseded {
		where = append(where, "superseded_by IS NOT NULL")
	}
	if f.Archived {
		where = append(where, "archived_at IS NOT NULL")
	}
	if f.ArchivedReason != "" {
		*args = append(*args, f.ArchivedReason)
		where = append(where, fmt.Sprintf("archived_at IS NOT NULL AND %s = $%d", reasonGroupSQL, len(*args)))
	}
	if f.Session != "" {
		*args = append(*args, f.Session)
		where = append(where, fmt.Sprintf("session_id = $%d", len(*args)))
	}
	switch f.Origin {
	case store.OriginAgent:
		*args = append(*args, store.AgentSources)
		where = append(where, fmt.Sprintf("source = ANY($%d)", len(*args)))
	case store.OriginExtracted:
		*args = append(*args, store.SourceExtracted)
		where = append(where, fmt.Sprintf("source = $%d", len(*args)))
	case store.OriginImported:
		*args = append(*args, store.ImportSourcePrefix+"%", store.SourceInstructions)
		where = append(where, fmt.Sprintf("(source LIKE $%d OR source = $%d)", len(*args)-1, len(*args)))
	case store.OriginMerged:
		where = append(where, "jsonb_array_length(coalesce(metadata->'merged_from', '[]'::jsonb)) > 0")
	}
	if len(where) == 0 {
		return "true"
	}
	return strings.Join(where, " AND ")
}

// reasonGroupSQL is store.ReasonGroup of the row's archive reason.
const reasonGroupSQL = `regexp_replace(coalesce(archived_reason, ''), '` + store.ReasonGroupPattern + `', '\1')`
