package store

import (
	"time"

	"github.com/google/uuid"
)

// The rows the maintenance jobs read and write (package jobs/maintenance declares the store
// methods it needs; pgstore implements them).

// ConsolidationFact is a live fact as consolidation reads it: the row and its vector of the
// embedder asked for, nil while the memory holds none (the re-embed job has yet to reach it).
type ConsolidationFact struct {
	Memory
	Vector   []float32
	VectorOf string // the embedder whose vector Vector is
}

// SessionTranscript is a session's excerpt waiting for its summary (session_transcripts).
type SessionTranscript struct {
	JournalID uuid.UUID
	Project   string
	Agent     string
	Excerpt   string
	CreatedAt time.Time
	Attempts  int
	LastError string
}

// ProjectState is the operator's archive (Archived true) or unarchive of project Key.
type ProjectState struct {
	Key      string
	Archived bool
	Actor    string
}

// PurgeParams hard-deletes memory ID if it is still purgeable at Cutoff; Actor and Reason go
// into the purge's ledger row.
type PurgeParams struct {
	ID     uuid.UUID
	Cutoff time.Time
	Actor  string
	Reason string
}

// JournalSummary replaces the text of the live journal entry JournalID with its summary Text,
// whose vector is Vector.
type JournalSummary struct {
	JournalID uuid.UUID
	Text      string
	Vector    Vector
	Actor     string
}

// UnembeddedQuery pages, in id order after After (uuid.Nil: from the start), through up to
// Limit memories that hold no vector of Embedder; Project, when not "", keeps its own alone.
type UnembeddedQuery struct {
	Embedder string
	Project  string
	After    uuid.UUID
	Limit    int
}

// Embedded is the vector of an Unembedded text.
type Embedded struct {
	ID     uuid.UUID
	Hash   []byte
	Vector Vector
}

// Unembedded is a memory's text waiting for a vector.
type Unembedded struct {
	ID   uuid.UUID
	Text string
	Hash []byte // the text's hash, which PutVectors checks is still the memory's
}

// VectorCoverage is how many memories hold a vector of one embedder.
type VectorCoverage struct {
	Total   int64 // memories, archived included
	Missing int64 // of them, those without a vector of the embedder
}

// LiveRuns says which running runs still have a host working on them: those whose lease was
// renewed at or after Since (Heartbeat), and of Host's own runs only those it lists in Active
// (a run it lost the database under, and will never finish, is not).
type LiveRuns struct {
	Since  time.Time
	Host   string
	Active []int64
}

// MaintenanceRun is one row of maintenance_runs: a job's run, periodic, by hand or on an event.
type MaintenanceRun struct {
	ID          int64
	Job         string
	Trigger     string // periodic, manual or event
	WindowStart *time.Time
	Project     string
	DryRun      bool
	Host        string
	StartedAt   time.Time
	FinishedAt  *time.Time
	// Outcome is running, ok, partial (a budget stopped it), failed, or abandoned (its host
	// stopped renewing its lease: killed, or cut off from the database).
	Outcome  string
	Error    string
	Examined int64
	Changed  int64
	LLMCalls int64
	Tokens   int64
}
