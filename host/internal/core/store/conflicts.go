package store

import (
	"errors"
	"time"

	"github.com/google/uuid"
)

// ErrConflictDecided means a conflict was already accepted or dismissed.
var ErrConflictDecided = errors.New("conflict already decided")

// ConflictStatus is where a conflict stands in a project's conflicts inbox.
type ConflictStatus string

// Conflict statuses. A decided pair (accepted or dismissed) is never flagged again.
const (
	ConflictOpen      ConflictStatus = "open"
	ConflictAccepted  ConflictStatus = "accepted"
	ConflictDismissed ConflictStatus = "dismissed"
)

// Severities a conflict may have, as the conflicts chain rates it.
var Severities = []string{"low", "medium", "high"}

// Conflict is two of a project's memories the conflicts job found contradicting, as they read
// when it was flagged.
type Conflict struct {
	ID               uuid.UUID
	ScopeKey         string
	MemoryA, MemoryB uuid.UUID
	TextA, TextB     string
	Evidence         string
	Severity         string
	Status           ConflictStatus
	CreatedAt        time.Time
	DecidedAt        *time.Time
	DecidedBy        string
	// Archived is the memory archived on acceptance, if one was.
	Archived *uuid.UUID
}

// PairKey names an unordered pair of memories: the two ids sorted.
func PairKey(a, b uuid.UUID) string {
	x, y := a.String(), b.String()
	if y < x {
		x, y = y, x
	}
	return x + "+" + y
}

// ConflictQuery lists one project's conflicts, newest first.
type ConflictQuery struct {
	ScopeKey string
	Statuses []ConflictStatus // empty: every status
	Limit    int
}

// ConflictDecision accepts or dismisses the open conflict ID of project ScopeKey, recording
// Actor and, on acceptance, the memory Archived (if one was).
type ConflictDecision struct {
	ScopeKey string
	ID       uuid.UUID
	Status   ConflictStatus
	Actor    string
	Archived *uuid.UUID
}

// SupersedeParams marks Older as superseded by Newer; Detail joins the update's history row.
type SupersedeParams struct {
	Older, Newer uuid.UUID
	Actor        string
	Detail       map[string]any
}

// StatementsQuery asks what the conflicts job shows the chain of project ScopeKey: its
// documents, up to Facts top facts and up to Journal latest journal entries.
type StatementsQuery struct {
	ScopeKey string
	Facts    int
	Journal  int
}
