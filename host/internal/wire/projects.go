package wire

import "time"

// The projects' answers: GET /api/v1/projects (ProjectsPage, the operator's overview of a shared
// database) and POST /api/v1/projects/{key}/archive and /unarchive (ProjectLifecycle).

// ProjectsPage is GET /api/v1/projects's answer, most recently active first.
type ProjectsPage struct {
	Projects   []ProjectRow `json:"projects"`
	NextCursor string       `json:"next_cursor,omitempty"`
}

// ProjectRow is one project of the listing.
type ProjectRow struct {
	Key              string    `json:"key"`
	Memories         int64     `json:"memories"` // live facts; goal, plan and journal are counted apart
	Archived         int64     `json:"archived"`
	PendingProposals int64     `json:"pending_proposals"`
	JournalEntries   int64     `json:"journal_entries"`
	LastActivity     time.Time `json:"last_activity"`
}

// ProjectLifecycle answers POST /api/v1/projects/{key}/archive and /unarchive.
type ProjectLifecycle struct {
	Project  string `json:"project"`
	Archived bool   `json:"archived"`
	// Restored counts the facts unarchiving brought back (dormancy had archived them).
	Restored int `json:"restored"`
}
