package lexical

import (
	"bytes"
	"cmp"
	"container/heap"
	"math"
	"slices"
	"sort"
	"sync"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/sdk/tokenize"
)

// BM25 parameters (Robertson & Zaragoza's usual defaults).
const (
	k1 = 1.2
	b  = 0.75
)

// Index is a BM25 inverted index partitioned by scope. It is safe for concurrent use.
type Index struct {
	mu    sync.RWMutex
	parts map[store.ScopeRef]*partition
	docs  map[uuid.UUID]docRef
}

type docRef struct {
	part *partition
	slot int32
	seq  int64
}

// doc is what a slot holds beyond the hot fields the scoring loop reads (partition.lengths and
// partition.flags, kept apart so a pass over a long posting list touches 8 bytes per document).
type doc struct {
	id    uuid.UUID
	kind  store.Kind
	terms []string // distinct terms, so removal touches only this document's df entries
}

// A slot's flags: its kind's bit (kindBit) and whether it is archived or dead (superseded by a
// newer version of the same memory). Eligibility is then two mask tests, not a map lookup per
// posting.
const (
	flagOtherKind uint32 = 1 << 28 // a kind without a bit of its own: compared by name
	flagArchived  uint32 = 1 << 29
	flagDead      uint32 = 1 << 30
	allKinds      uint32 = flagOtherKind - 1 | flagOtherKind
)

// kindBits gives every known kind a bit of its own.
var kindBits = func() map[store.Kind]uint32 {
	m := map[store.Kind]uint32{}
	for i, k := range append(append([]store.Kind(nil), store.Kinds...), store.LayerKinds...) {
		m[k] = 1 << i
	}
	return m
}()

func kindBit(k store.Kind) uint32 {
	if bit, ok := kindBits[k]; ok {
		return bit
	}
	return flagOtherKind
}

type posting struct {
	slot int32
	tf   uint16
}

type partition struct {
	docs     []doc
	lengths  []int32  // terms per slot
	flags    []uint32 // per slot, see flagDead
	postings map[string][]posting
	df       map[string]int32 // live (not dead) documents containing the term
	totalLen int64
	live     int32
	dead     int32
}

// New returns an empty index.
func New() *Index {
	return &Index{parts: map[store.ScopeRef]*partition{}, docs: map[uuid.UUID]docRef{}}
}

// Apply indexes one change. Changes older than what the index holds for that memory are
// ignored, so replaying the feed, or seeing a host's own write twice, is harmless.
func (ix *Index) Apply(c store.Change) {
	if c.Purged {
		ix.drop(c)
		return
	}
	terms := tokenize.Terms(c.Text)
	// Texts the memory absorbed by folding are part of it: a search for a folded-away
	// statement finds the memory that holds it, so even a wrong fold loses nothing.
	for _, m := range c.Merged {
		terms = tokenize.AppendTerms(terms, m)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if old, ok := ix.docs[c.ID]; ok {
		if old.seq >= c.Seq {
			return
		}
		old.part.remove(old.slot)
	}
	ref := store.ScopeRef{Scope: c.Scope, Key: c.ScopeKey}
	p := ix.parts[ref]
	if p == nil {
		p = &partition{postings: map[string][]posting{}, df: map[string]int32{}}
		ix.parts[ref] = p
	}
	if p.dead > 1024 && p.dead > p.live {
		p.compact(ix.docs)
	}
	slot := p.add(c.ID, c.Kind, c.Archived, terms)
	ix.docs[c.ID] = docRef{part: p, slot: slot, seq: c.Seq}
}

// drop removes a purged memory. A purged memory takes no later change, so nothing of it is
// kept.
func (ix *Index) drop(c store.Change) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if old, ok := ix.docs[c.ID]; ok && old.seq < c.Seq {
		old.part.remove(old.slot)
		delete(ix.docs, c.ID)
	}
}

// Len is the number of memories indexed (live and archived).
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.docs)
}

func (p *partition) add(id uuid.UUID, kind store.Kind, archived bool, terms []string) int32 {
	slot := int32(len(p.docs))
	tf := make(map[string]uint16, len(terms))
	for _, t := range terms {
		if tf[t] < math.MaxUint16 {
			tf[t]++
		}
	}
	distinct := make([]string, 0, len(tf))
	for t, n := range tf {
		p.postings[t] = append(p.postings[t], posting{slot: slot, tf: n})
		p.df[t]++
		distinct = append(distinct, t)
	}
	flags := kindBit(kind)
	if archived {
		flags |= flagArchived
	}
	p.docs = append(p.docs, doc{id: id, kind: kind, terms: distinct})
	p.lengths = append(p.lengths, int32(len(terms)))
	p.flags = append(p.flags, flags)
	p.totalLen += int64(len(terms))
	p.live++
	return slot
}

// remove marks a slot dead; its postings are skipped until the partition is compacted.
func (p *partition) remove(slot int32) {
	d := &p.docs[slot]
	if p.flags[slot]&flagDead != 0 {
		return
	}
	p.flags[slot] |= flagDead
	p.totalLen -= int64(p.lengths[slot])
	p.live--
	p.dead++
	for _, t := range d.terms {
		if p.df[t]--; p.df[t] <= 0 {
			delete(p.df, t)
		}
	}
	d.terms = nil
}

// compact drops dead slots and renumbers the rest.
func (p *partition) compact(refs map[uuid.UUID]docRef) {
	remap := make([]int32, len(p.docs))
	docs := make([]doc, 0, p.live)
	lengths, flags := make([]int32, 0, p.live), make([]uint32, 0, p.live)
	for i, d := range p.docs {
		if p.flags[i]&flagDead != 0 {
			remap[i] = -1
			continue
		}
		remap[i] = int32(len(docs))
		docs = append(docs, d)
		lengths, flags = append(lengths, p.lengths[i]), append(flags, p.flags[i])
		r := refs[d.id]
		r.slot = remap[i]
		refs[d.id] = r
	}
	for t, ps := range p.postings {
		kept := ps[:0]
		for _, x := range ps {
			if s := remap[x.slot]; s >= 0 {
				kept = append(kept, posting{slot: s, tf: x.tf})
			}
		}
		if len(kept) == 0 {
			delete(p.postings, t)
		} else {
			p.postings[t] = kept
		}
	}
	p.docs, p.lengths, p.flags, p.dead = docs, lengths, flags, 0
}

// Query is one lexical search.
type Query struct {
	Text            string
	Scopes          []store.ScopeRef
	Kinds           []store.Kind
	IncludeArchived bool
	Limit           int
	// Expand adds the thesaurus's synonyms and category members of the query's terms (see
	// thesaurusLines), each counting for half a literal match. Without it the score is plain
	// Okapi BM25.
	Expand bool
	// Rarest, when positive and without Expand, scores only the query's Rarest least frequent
	// terms in each partition (those it holds at all). It is for finding a text's near-duplicates, which
	// share nearly all its terms: the rare ones find them, and the common ones, whose long
	// posting lists are most of a long query's cost, only reorder what the rare ones found.
	Rarest int
}

// Hit is one lexical match.
type Hit struct {
	ID uuid.UUID
	// Score is the raw BM25 score (comparable within one query only).
	Score float64
	// Coverage is the share of the query's concepts the memory matches: its distinct terms,
	// where a thesaurus phrase and its expansions count as one.
	Coverage float64
}

// Search returns the best BM25 matches across the asked scopes, best first.
func (ix *Index) Search(q Query) []Hit {
	concepts := plan(q.Text, q.Expand)
	if len(concepts) == 0 || q.Limit <= 0 {
		return nil
	}
	f := filter{want: allKinds, reject: flagDead}
	if !q.IncludeArchived {
		f.reject |= flagArchived
	}
	if len(q.Kinds) > 0 {
		f.want, f.kinds = 0, make(map[store.Kind]bool, len(q.Kinds))
		for _, k := range q.Kinds {
			f.want |= kindBit(k)
			f.kinds[k] = true
		}
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	var hits []Hit
	for _, ref := range q.Scopes {
		p := ix.parts[ref]
		if p == nil || p.live == 0 {
			continue
		}
		cs := concepts
		if q.Rarest > 0 && !q.Expand {
			cs = p.rarest(concepts, q.Rarest)
		}
		hits = append(hits, p.search(cs, f, q.Limit)...)
	}
	sort.Slice(hits, func(i, j int) bool { return better(hits[i], hits[j]) })
	if len(hits) > q.Limit {
		hits = hits[:q.Limit]
	}
	return hits
}

// rarest keeps the n concepts (single terms: the query is not expanded) that the fewest of
// the partition's documents contain, among those it holds at all.
func (p *partition) rarest(concepts []concept, n int) []concept {
	if len(concepts) <= n {
		return concepts
	}
	held := make([]concept, 0, len(concepts))
	for _, c := range concepts {
		if p.df[c.terms[0]] > 0 {
			held = append(held, c)
		}
	}
	if len(held) <= n {
		return held
	}
	slices.SortStableFunc(held, func(a, b concept) int { return cmp.Compare(p.df[a.terms[0]], p.df[b.terms[0]]) })
	return held[:n]
}

// better orders hits by score, then id, so results are deterministic.
func better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return bytes.Compare(a.ID[:], b.ID[:]) < 0
}

// scratch is per-query accumulator space, pooled because a query over a large partition
// touches most of its documents and a map per query would dominate the search.
type scratch struct {
	score    []float64
	best     []float64 // best expansion match of the current concept
	matched  []uint16  // concepts matched
	credited []int32   // 1 + the last concept credited, so each counts once; 0 = untouched
	touched  []int32
	expanded []int32 // slots with a best value for the current concept
	// A phrase expansion's running sum and how many of its terms each memory has matched.
	phraseSum []float64
	phraseN   []uint16
	phrased   []int32
}

var scratchPool = sync.Pool{New: func() any { return &scratch{} }}

// fit sizes the per-slot accumulators to a partition of size slots. They grow with room to
// spare: every write adds a slot, and space sized to the partition exactly would be
// reallocated (megabytes in a large project) by the search after each write.
func (sc *scratch) fit(size int) {
	if cap(sc.score) < size {
		room := size + size/4 + 64
		sc.score = make([]float64, room)
		sc.best = make([]float64, room)
		sc.matched = make([]uint16, room)
		sc.credited = make([]int32, room)
		sc.phraseSum = make([]float64, room)
		sc.phraseN = make([]uint16, room)
	}
	sc.score, sc.best, sc.matched, sc.credited = sc.score[:size], sc.best[:size], sc.matched[:size], sc.credited[:size]
	sc.phraseSum, sc.phraseN = sc.phraseSum[:size], sc.phraseN[:size]
}

// filter is which slots a query may see.
type filter struct {
	want   uint32 // kind bits asked for (allKinds: any)
	reject uint32 // flags that hide a slot
	kinds  map[store.Kind]bool
}

// sees reports whether the query may see slot. It is the scoring loops' test for every
// posting, small enough to inline; only kinds without a bit of their own take the slow path.
func (f filter) sees(p *partition, slot int32) bool {
	flags := p.flags[slot]
	if flags&f.reject != 0 {
		return false
	}
	return flags&f.want&^flagOtherKind != 0 || f.seesOtherKind(p, slot, flags)
}

// seesOtherKind decides for a slot whose kind has no bit: by the kind's name.
func (f filter) seesOtherKind(p *partition, slot int32, flags uint32) bool {
	if flags&flagOtherKind == 0 || f.want&flagOtherKind == 0 {
		return false
	}
	return f.kinds == nil || f.kinds[p.docs[slot].kind]
}

func (p *partition) search(concepts []concept, f filter, limit int) []Hit {
	n := float64(p.live)
	avg := float64(p.totalLen) / n
	if avg == 0 {
		avg = 1
	}
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	sc.fit(len(p.docs))
	sc.touched, sc.expanded, sc.phrased = sc.touched[:0], sc.expanded[:0], sc.phrased[:0]

	idf := func(t string) float64 {
		df := float64(p.df[t])
		if df == 0 {
			return 0
		}
		return math.Log(1 + (n-df+0.5)/(df+0.5))
	}
	// BM25 term weight: idf · tf·(k1+1) / (tf + k1·(1 - b + b·len/avg)).
	lenNorm, base := k1*b/avg, k1*(1-b)
	for ci, c := range concepts {
		mark := int32(ci + 1)
		credit := func(slot int32) {
			if sc.credited[slot] == mark {
				return
			}
			if sc.credited[slot] == 0 {
				sc.touched = append(sc.touched, slot)
			}
			sc.credited[slot] = mark
			sc.matched[slot]++
		}
		// The query's own terms: the hot loop, kept free of calls but credit's.
		for _, t := range c.terms {
			w := idf(t)
			if w == 0 {
				continue
			}
			for _, ps := range p.postings[t] {
				if !f.sees(p, ps.slot) {
					continue
				}
				tf := float64(ps.tf)
				sc.score[ps.slot] += w * tf * (k1 + 1) / (tf + base + lenNorm*float64(p.lengths[ps.slot]))
				credit(ps.slot)
			}
		}
		// Thesaurus expansions: a memory scores the best one, weighted.
		for _, a := range c.adds {
			p.expansion(a, f, idf, lenNorm, base, sc)
		}
		for _, slot := range sc.expanded {
			sc.score[slot] += sc.best[slot]
			sc.best[slot] = 0
			credit(slot)
		}
		sc.expanded = sc.expanded[:0]
	}
	// Keep the best limit hits in a min-heap instead of sorting every touched document.
	h := make(hitHeap, 0, min(limit, len(sc.touched)))
	for _, slot := range sc.touched {
		hit := Hit{ID: p.docs[slot].id, Score: sc.score[slot], Coverage: float64(sc.matched[slot]) / float64(len(concepts))}
		sc.score[slot], sc.matched[slot], sc.credited[slot] = 0, 0, 0
		switch {
		case len(h) < limit:
			heap.Push(&h, hit)
		case better(hit, h[0]):
			h[0] = hit
			heap.Fix(&h, 0)
		}
	}
	return h
}

// expansion offers one thesaurus expansion's weighted BM25 score to sc.best for every eligible
// memory that contains all of its terms.
func (p *partition) expansion(a expansion, f filter, idf func(string) float64, lenNorm, base float64, sc *scratch) {
	offer := func(slot int32, v float64) {
		if v *= a.weight; v > sc.best[slot] {
			if sc.best[slot] == 0 {
				sc.expanded = append(sc.expanded, slot)
			}
			sc.best[slot] = v
		}
	}
	for i, t := range a.terms {
		w := idf(t)
		if w == 0 {
			break // a phrase with a term no memory has matches nothing
		}
		for _, ps := range p.postings[t] {
			if !f.sees(p, ps.slot) {
				continue
			}
			tf := float64(ps.tf)
			v := w * tf * (k1 + 1) / (tf + base + lenNorm*float64(p.lengths[ps.slot]))
			switch {
			case len(a.terms) == 1:
				offer(ps.slot, v)
			case sc.phraseN[ps.slot] == uint16(i): // has every earlier term of the phrase
				if i == 0 {
					sc.phrased = append(sc.phrased, ps.slot)
				}
				sc.phraseSum[ps.slot] += v
				sc.phraseN[ps.slot]++
			}
		}
	}
	for _, slot := range sc.phrased {
		if int(sc.phraseN[slot]) == len(a.terms) {
			offer(slot, sc.phraseSum[slot])
		}
		sc.phraseSum[slot], sc.phraseN[slot] = 0, 0
	}
	sc.phrased = sc.phrased[:0]
}

// hitHeap is a min-heap by rank: the root is the worst hit kept.
type hitHeap []Hit

func (h hitHeap) Len() int           { return len(h) }
func (h hitHeap) Less(i, j int) bool { return better(h[j], h[i]) }
func (h hitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)        { *h = append(*h, x.(Hit)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func distinct(terms []string) []string {
	seen := make(map[string]bool, len(terms))
	out := terms[:0]
	for _, t := range terms {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// IDF is the BM25 inverse document frequency of term among the live memories of one scope,
// the weight the supersession rule (rank.DemoteSuperseded) gives a term two memories share.
// A term the scope does not hold weighs as much as one held by a single memory.
func (ix *Index) IDF(scope store.ScopeRef, term string) float64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	n, df := 1.0, 1.0
	if p := ix.parts[scope]; p != nil && p.live > 0 {
		n, df = float64(p.live), float64(max(p.df[term], 1))
	}
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}
