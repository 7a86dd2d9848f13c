package store

import (
	"time"

	"github.com/google/uuid"
)

// The figures the operator console plots (pgstore computes them; see docs/console.md). Days are
// UTC days.

// DayActivity is what happened to one project's facts on one day, from the history ledger.
type DayActivity struct {
	Day      time.Time `json:"day"`
	Added    int64     `json:"added"`  // stored or imported as new rows
	Folded   int64     `json:"folded"` // writes folded into an existing fact
	Merged   int64     `json:"merged"` // consolidation merges (counted on the survivor)
	Archived int64     `json:"archived"`
	Restored int64     `json:"restored"`
}

// UseBucket counts a project's live facts whose use count (hit_count: reads with memory_get)
// lies in [Min, Max]; Max < 0 means no upper bound.
type UseBucket struct {
	Min   int64 `json:"min"`
	Max   int64 `json:"max"`
	Facts int64 `json:"facts"`
}

// UseSpread is how a project's live facts are used: by use count, and how many no search or
// get ever returned (the staleness job's "never retrieved").
type UseSpread struct {
	Live           int64       `json:"live"`
	NeverRetrieved int64       `json:"never_retrieved"`
	Buckets        []UseBucket `json:"buckets"`
}

// UseBounds are UseSpread's buckets: 0, 1, 2-4, 5-9, 10-49, 50 and more uses.
var UseBounds = [][2]int64{{0, 0}, {1, 1}, {2, 4}, {5, 9}, {10, 49}, {50, -1}}

// DayCalls is one day of LLM worker calls, every project's (worker_calls keeps no project).
type DayCalls struct {
	Day    time.Time `json:"day"`
	Calls  int64     `json:"calls"`
	Failed int64     `json:"failed"` // any outcome but ok
	Tokens int64     `json:"tokens"` // input and output
	P50Ms  float64   `json:"p50_ms"`
	P95Ms  float64   `json:"p95_ms"`
}

// LatestEvent is the newest entry of one memory's history ledger: what last happened to it.
type LatestEvent struct {
	MemoryID uuid.UUID `json:"memory_id"`
	Event    Event     `json:"event"`
	Actor    string    `json:"actor,omitempty"`
	At       time.Time `json:"at"`
}
