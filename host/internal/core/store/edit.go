package store

import "github.com/google/uuid"

// EditParams is an operator's correction of a live memory, decided by the memory domain: row ID
// afterwards holds exactly these fields, and history records an update. The store writes the
// row and its entry; it decides nothing.
type EditParams struct {
	ID         uuid.UUID
	Kind       Kind
	Importance float64
	// Text and Vector replace the row's text and its vector when Text is not ""; the row's
	// provenance stays (the edit's author is in history).
	Text   string
	Vector Vector
	// The update's history entry: the text before and after, who and what changed.
	Before, After string
	Actor         string
	Detail        map[string]any
}
