package bench

import (
	"fmt"
	"hash/fnv"
)

// The fold set is split in two halves by the seed a pair was generated from: the fold rule is
// tuned on the dev half only, and the held-out test half says whether what was learnt there
// carries over to statements the rule's author never looked at. Splitting by seed rather than
// by pair keeps every rewording of one statement (and every near miss built from it) on one
// side, so the test half cannot be passed by remembering the dev half's sentences.

// FoldHalf is a half of the fold set.
type FoldHalf string

// The two halves.
const (
	FoldDev  FoldHalf = "dev"  // the rule may be tuned on these pairs
	FoldTest FoldHalf = "test" // held out: read the rates, never the pairs, when tuning
)

// foldHalfOf is the half a seed's pairs belong to: a fixed hash of the seed's name, so the
// split does not move when pairs are added or the generator draws differently.
func foldHalfOf(seed string) FoldHalf {
	h := fnv.New64a()
	_, _ = h.Write([]byte(seed)) // a hash.Hash never fails to write
	if h.Sum64()%2 == 0 {
		return FoldDev
	}
	return FoldTest
}

// Half is the half of the fold set the pair belongs to.
func (p FoldPair) Half() FoldHalf { return foldHalfOf(p.Seed) }

// Seed names. A template family's seed is its sibling group (foldSiblings joined transitively):
// siblings are filled with the same values to make near misses, so they stay on one side.
func familySeed(i int) string       { return fmt.Sprintf("family:%d", foldFamilyGroup[i]) }
func factSeed(i int) string         { return fmt.Sprintf("fact:%d", i) }
func negationSeed(i int) string     { return fmt.Sprintf("negation:%d", i) }
func conversationSeed(i int) string { return fmt.Sprintf("conversation:%d", i) }

// foldRepliesSeed is the seed of every short reply: two different replies make a near miss, so
// they cannot be split.
const foldRepliesSeed = "replies"

// foldFamilyGroup maps each family to the lowest family index of its sibling group.
var foldFamilyGroup = func() []int {
	group := make([]int, len(foldFamilies))
	for i := range group {
		group[i] = i
	}
	for changed := true; changed; {
		changed = false
		for _, siblings := range foldSiblings {
			low := group[siblings[0]]
			for _, f := range siblings {
				low = min(low, group[f])
			}
			for _, f := range siblings {
				if group[f] != low {
					group[f], changed = low, true
				}
			}
		}
	}
	return group
}()
