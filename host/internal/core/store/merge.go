package store

import "github.com/google/uuid"

// The consolidation job's merges (pgstore implements them; the memory domain validates,
// redacts and embeds the canonical text first).

// MergedIntoReason is the archive reason of a memory consolidation absorbed into survivor:
// unmerge finds what to restore by it.
func MergedIntoReason(survivor uuid.UUID) string { return "merged into " + survivor.String() }

// MergeParams is one consolidation merge: Survivor absorbs Absorbed. Texts are the members'
// texts as the job read them (the survivor's too): a member changed since is a conflict, and
// nothing is merged.
type MergeParams struct {
	Survivor uuid.UUID
	Absorbed []uuid.UUID
	Texts    map[uuid.UUID]string
	// Replacement, when set, is the survivor's new canonical text (validated, redacted and
	// embedded by the memory domain); nil keeps its text.
	Replacement   *Replacement
	MergedFromMax int
	Actor         string
	Detail        map[string]any // recorded in the merge's history row
}

// MergeUndo is what unmerging id would restore: the absorbed memories still archived with
// its MergedIntoReason, and the survivor's text before the first merge since the last unmerge
// when a merge rewrote it (PriorText "" when none did, or the text has changed since).
type MergeUndo struct {
	Absorbed  []uuid.UUID
	PriorText string
}

// UnmergeParams undoes a survivor's merges (PendingUnmerge): Restore are the absorbed
// memories to bring back; Prior, when set, is the survivor's text before them (embedded by
// the memory domain), put back only if the survivor's text is still Expect.
type UnmergeParams struct {
	Survivor uuid.UUID
	Expect   string
	Restore  []uuid.UUID
	Prior    *Replacement
	Actor    string
}
