package rank

import (
	"strings"
	"time"
	"unicode"

	"github.com/memhost/memhost/sdk/tokenize"
)

// Statement is what the supersession rule looks at in one ranked memory.
type Statement struct {
	Text string
	// Written is when the statement was last written (created, updated or folded into); a
	// use does not make a statement newer.
	Written time.Time
	// ID names the statement, and SupersededBy the statement it was found replaced by (the
	// conflicts job's stored finding; "" when none): a stored supersession needs no cue.
	ID, SupersededBy string
}

// SupersedeWindow is how many of the best-ranked statements DemoteSuperseded compares. A
// statement only ever moves below a newer one inside the window, so it never leaves the
// window, recall@10 cannot drop, and any top_k up to the window sees the same order.
const SupersedeWindow = 10

// supersedeOverlap is the share of the older statement's terms, weighted by IDF, that the
// newer one must repeat for the two to be about the same subject. Measured on the retrieval
// benchmark's dev half (docs/ranking.md): 0.2 demotes more true answers, 0.3 fewer stale ones.
const supersedeOverlap = 0.25

// changeCues are the words with which a statement reports a change ("the frontend switched
// from npm to pnpm", "yorkie was replaced by simple-git-hooks", "now requires Go 1.24").
// They are matched on lower-cased words, unstemmed, so the noun "changes" does not count;
// "no longer" is matched as a phrase. "instead" is left out: in memories it mostly gives
// advice ("review instead"), not news.
var changeCues = map[string]bool{
	"now": true, "replaced": true, "replaces": true, "switched": true, "moved": true, "migrated": true,
	"changed": true, "gone": true, "removed": true, "renamed": true, "dropped": true, "since": true,
	"deprecated": true, "superseded": true,
}

// DemoteSuperseded reorders statements ranked best first so that the current statement of a
// subject ranks above the one it replaced: within the first SupersedeWindow, a statement
// that a newer one below it supersedes moves to directly below it (below the earliest, when
// several do, so a chain of changes reads newest first). The newer statement supersedes the older when it
// reports a change (changeCues) and repeats at least a quarter of the older one's terms by
// IDF weight (idf gives a term's weight in the memories' scope), or when the older one is
// stored as superseded by it (Statement.SupersededBy, which the conflicts job's worker chain
// found): that link wins over the lexical rule.
//
// It returns the new order as indices into ranked; statements past the window keep their
// places. The superseded statement stays in the results, right below what replaced it, so an
// agent asking about the past still finds it.
func DemoteSuperseded(ranked []Statement, idf func(term string) float64) []int {
	n := min(len(ranked), SupersedeWindow)
	order := make([]int, 0, len(ranked))
	below := make([]int, n) // below[i]: the statement i moves under, or -1
	terms := make([]map[string]bool, n)
	for i := range n {
		terms[i] = termSet(ranked[i].Text)
	}
	for i := range n {
		below[i] = -1
		if j := storedSuccessor(ranked, i, n); j >= 0 {
			below[i] = j
			continue
		}
		for j := i + 1; j < n; j++ {
			// The earliest successor: a chain of changes ranks newest first.
			earliest := below[i] < 0 || ranked[j].Written.Before(ranked[below[i]].Written)
			if earliest && ranked[j].Written.After(ranked[i].Written) && hasChangeCue(ranked[j].Text) &&
				overlap(terms[i], terms[j], idf) >= supersedeOverlap {
				below[i] = j
			}
		}
	}
	// below points strictly down the ranking, so every statement hangs under exactly one
	// that stays in place; placing those in order, each followed by its subtree, orders all.
	var place func(i int)
	place = func(i int) {
		order = append(order, i)
		for k := range n {
			if below[k] == i {
				place(k)
			}
		}
	}
	for i := range n {
		if below[i] < 0 {
			place(i)
		}
	}
	for i := n; i < len(ranked); i++ {
		order = append(order, i)
	}
	return order
}

// storedSuccessor is the statement below i within the first n that ranked[i] is stored as
// superseded by, or -1.
func storedSuccessor(ranked []Statement, i, n int) int {
	if ranked[i].SupersededBy == "" {
		return -1
	}
	for j := i + 1; j < n; j++ {
		if ranked[j].ID == ranked[i].SupersededBy {
			return j
		}
	}
	return -1
}

func termSet(text string) map[string]bool {
	ts := tokenize.Terms(text)
	set := make(map[string]bool, len(ts))
	for _, t := range ts {
		set[t] = true
	}
	return set
}

// overlap is the IDF-weighted share of older's terms that newer repeats.
func overlap(older, newer map[string]bool, idf func(string) float64) float64 {
	var shared, all float64
	for t := range older {
		w := idf(t)
		all += w
		if newer[t] {
			shared += w
		}
	}
	if all <= 0 {
		return 0
	}
	return shared / all
}

func hasChangeCue(text string) bool {
	prev := ""
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if changeCues[w] || (prev == "no" && w == "longer") {
			return true
		}
		prev = w
	}
	return false
}
