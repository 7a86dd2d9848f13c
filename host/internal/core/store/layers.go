package store

import (
	"fmt"
	"strings"
)

// The layer kinds: rows of the memories table that are not facts. A project has at most one
// live goal and one live plan; its journal records what each session did. They are embedded,
// indexed, ranked, versioned and exported like facts, but facts never fold into them (nor
// they into facts), and memory search and listing return fact kinds (Kinds) only.
const (
	KindGoal    Kind = "goal"    // what the project is for and where it is going
	KindPlan    Kind = "plan"    // the current plan of work
	KindJournal Kind = "journal" // what one session did, with its agent and session id
)

// LayerKinds lists the layer kinds in documentation order.
var LayerKinds = []Kind{KindGoal, KindPlan, KindJournal}

// IsLayer reports whether k is a layer kind (goal, plan or journal).
func IsLayer(k Kind) bool { return k == KindGoal || k == KindPlan || k == KindJournal }

// IsDocument reports whether k is a project document: a goal or a plan.
func IsDocument(k Kind) bool { return k == KindGoal || k == KindPlan }

// layerHint is what a caller who names a layer kind where a fact kind is expected is told to
// use instead.
func layerHint(k Kind) (string, bool) {
	switch k {
	case KindGoal, KindPlan:
		return fmt.Sprintf("%q is a project document, not a memory kind: agents propose it with project_%s_set, operators set it with `memhost project %s set`", k, k, k), true
	case KindJournal:
		return fmt.Sprintf("%q is not a memory kind: record what a session did with session_log_append", k), true
	}
	return "", false
}

// ParseAnyKind accepts a fact kind or a layer kind, for paths that carry every row of a
// project (export and import); "" means fact.
func ParseAnyKind(s string) (Kind, error) {
	k := Kind(strings.ToLower(strings.TrimSpace(s)))
	if IsLayer(k) {
		return k, nil
	}
	k, err := ParseKind(s)
	if err != nil {
		return "", fmt.Errorf("kind: %q is not one of %s", s, kindNames(append(append([]Kind(nil), Kinds...), LayerKinds...)))
	}
	return k, nil
}

func kindNames(kinds []Kind) string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}
