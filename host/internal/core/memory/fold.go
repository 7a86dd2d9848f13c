package memory

import (
	"context"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/store"
)

// This file is the fold policy: whether a write folds into an existing memory, which one, and
// what the memory looks like afterwards. The store only offers the scope lock and the
// primitives it runs on (store.ScopeTx), so the rule can change here without touching storage.

// FoldRule tunes the fold policy.
type FoldRule struct {
	// Threshold is the cosine similarity at or above which a write folds into a neighbour.
	// Negative turns semantic folding off; identical texts still fold.
	Threshold float64
	// MergedFromMax bounds merged_from; the oldest absorbed texts drop out first.
	MergedFromMax int
}

// WriteResult says what a write did.
type WriteResult struct {
	Memory     store.Memory // the canonical row after the write
	Folded     bool         // the write folded into an existing row
	Exact      bool         // it folded because the text was identical
	Similarity float64      // cosine to the nearest neighbour (0 when there was none)
}

// foldCandidateCount is how many memories a write considers for its fold.
const foldCandidateCount = 5

// foldRareTerms is how many of a write's terms find its fold candidates: its rarest in the
// scope (lexical.Query.Rarest). A text that can absorb the write shares nearly all its terms,
// the rare ones included, up to a synonym, typo or lead-in word or two; the common terms'
// long posting lists cost milliseconds per write in a project of 100K memories and would only
// reorder what the rare ones find.
const foldRareTerms = 8

// FoldOrInsert writes w under its scope's lock: an identical live text absorbs it; else the
// most similar of candidates (memory ids, see Service.foldCandidates) at or above
// rule.Threshold that states the same thing (SameStatement) does; else it becomes a new
// memory. Writes to one scope serialise, so the same text written twice at once ends in one
// row. w arrives validated, redacted and embedded.
func FoldOrInsert(ctx context.Context, st store.Store, w store.Write, rule FoldRule, candidates []uuid.UUID) (WriteResult, error) {
	var res WriteResult
	err := st.WithScopeLock(ctx, w.Ref(), func(tx store.ScopeTx) error {
		var err error
		res, err = foldOrInsert(ctx, tx, w, rule, candidates)
		return err
	})
	return res, err
}

// foldCandidates picks the memories a write of text to scope may fold into: the
// foldCandidateCount best plain BM25 matches of its text among the live facts of its scope,
// from the lexical index, ranked by its foldRareTerms rarest terms. A fold needs SameStatement, which only holds between texts that share
// nearly all their words, so the texts that can absorb a write are among its best lexical
// matches; the embedder's cosine then decides among them as before. Finding them in the
// in-process index costs tens of microseconds in a small project and a millisecond or two at
// 100K memories, where a nearest-neighbour query on every write cost milliseconds (an exact
// scan of a small project's rows, a graph walk in a large one). The index holds this host's
// writes at once and other hosts' within the change feed's lag; the store's lookup adds the
// scope's newest rows under the lock, so what another host wrote a moment ago is a candidate
// too.
func (s *Service) foldCandidates(text string, scope store.ScopeRef) []uuid.UUID {
	hits := s.index.Search(lexical.Query{Text: text, Scopes: []store.ScopeRef{scope}, Kinds: store.Kinds, Limit: foldCandidateCount, Rarest: foldRareTerms})
	ids := make([]uuid.UUID, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}

func foldOrInsert(ctx context.Context, tx store.ScopeTx, w store.Write, rule FoldRule, candidates []uuid.UUID) (WriteResult, error) {
	// A negative threshold turns semantic folding off, so only the exact match is looked up
	// (the zero Vector); a zero vector (text the embedder has no tokens for) has no direction,
	// so nothing is semantically near it either (the store's contract).
	v := w.Vector
	if rule.Threshold < 0 {
		v = store.Vector{}
	}
	c, err := tx.Lookup(ctx, w.Text, v, candidates)
	if err != nil {
		return WriteResult{}, err
	}
	if c.Exact != nil {
		m, err := tx.Fold(ctx, foldParams(*c.Exact, w, 1, rule))
		return WriteResult{Memory: m, Folded: true, Exact: true, Similarity: 1}, err
	}
	if n, ok := foldTarget(c.Neighbours, w.Text, rule.Threshold, v.Pending()); ok {
		m, err := tx.Fold(ctx, foldParams(n.Memory, w, n.Similarity, rule))
		return WriteResult{Memory: m, Folded: true, Similarity: n.Similarity}, err
	}
	var nearest float64
	if len(c.Neighbours) > 0 {
		nearest = c.Neighbours[0].Similarity
	}
	m, err := tx.Insert(ctx, w)
	return WriteResult{Memory: m, Similarity: nearest}, err
}

// SameFact is the one rule for "a and b state the same fact" that the write-time fold and
// consolidation share: their texts are the same but for case, punctuation and spacing
// (Normalised) or their vectors are at least threshold alike (similarity), and the statement
// check finds the same speaker, polarity, numbers, names and paths (SameStatement): "/dist/app"
// and "./dist/app" normalise alike but are two places.
func SameFact(a, b string, similarity, threshold float64) bool {
	return (Normalised(a) == Normalised(b) || similarity >= threshold) && SameStatement(a, b)
}

// Normalised is a text's letters and digits, lower-cased, each run one word: "Use pnpm!" and
// "use pnpm." are the same. Specifics survive it as runs ("1.24" is "1 24", never "124").
func Normalised(text string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}

// foldTarget picks the neighbour (best first) a write of text folds into: the closest at or
// above threshold that states the same thing (SameStatement). The embedder's similarity finds
// the candidates; the statement check keeps near misses apart — another speaker, a negation,
// a different number or name — which any embedder can score as near-duplicates.
//
// A write stored before its vector exists (pending) has no similarity to go by: the statement
// check alone decides, over its best lexical matches first. It is what made the fold safe
// with a vector too: on the fold set (docs/benchmarks.md, "Fold calibration") it folds the
// same near misses with or without the embedder's threshold (0.02%), and as many
// restatements.
func foldTarget(neighbours []store.Neighbour, text string, threshold float64, pending bool) (store.Neighbour, bool) {
	for _, n := range neighbours {
		if !pending && n.Similarity < threshold {
			break
		}
		if SameFact(n.Text, text, n.Similarity, threshold) {
			return n, true
		}
	}
	return store.Neighbour{}, false
}

// foldParams decides what existing looks like after absorbing w. The canonical text is the one
// a rule can defend (canonicalText): a pinned or more confident row keeps its text, a more
// confident write takes over, and otherwise the more specific, then the well-formed, text
// wins, the first written on a tie. Later phrasing is not better phrasing: "we use npm to
// install dependencies in this repository" must not replace "We use npm to install
// dependencies." Either way the text that loses is kept in merged_from, so nothing is lost.
// A specific kind replaces fact whichever text wins: it says more about the memory.
func foldParams(existing store.Memory, w store.Write, similarity float64, rule FoldRule) store.FoldParams {
	same := store.NormalizeText(existing.Text) == store.NormalizeText(w.Text)
	incoming, why := canonicalText(existing, w)
	keepExisting := same || !incoming
	p := store.FoldParams{
		ID: existing.ID, Kind: existing.Kind, Pinned: existing.Pinned || w.Pinned,
		Importance: max(existing.Importance, w.Importance), Confidence: max(existing.Confidence, w.Confidence),
		DedupedCount: existing.DedupedCount + 1, MergedFrom: existing.MergedFrom,
		Before: existing.Text, After: existing.Text, Actor: w.Actor, Detail: provenanceDetail(w.Provenance),
	}
	if existing.Kind == store.KindFact && w.Kind != store.KindFact {
		p.Kind = w.Kind
	}
	loser := store.Merged{Text: w.Text, Agent: w.Provenance.Agent, At: time.Now().UTC()}
	if !keepExisting {
		p.Replacement = &store.Replacement{Text: w.Text, Vector: w.Vector, Provenance: w.Provenance}
		p.After = w.Text
		loser.Text, loser.Agent = existing.Text, existing.Provenance.Agent
	}
	if !same {
		p.MergedFrom = append(append([]store.Merged(nil), existing.MergedFrom...), loser)
		if rule.MergedFromMax >= 0 && len(p.MergedFrom) > rule.MergedFromMax {
			p.MergedFrom = p.MergedFrom[len(p.MergedFrom)-rule.MergedFromMax:]
		}
	}
	p.Detail["similarity"] = similarity
	if w.Vector.Pending() {
		p.Detail["vector"] = "pending: decided by the statement check alone"
	}
	p.Detail["canonical"] = "existing"
	if !keepExisting {
		p.Detail["canonical"] = "incoming"
	}
	if !same {
		p.Detail["canonical_because"] = why
	}
	if !same && keepExisting {
		// History keeps the text folded in: merged_from is bounded and drops the oldest.
		p.Detail["folded_text"] = w.Text
	}
	return p
}

// The reasons canonicalText gives, recorded in the fold's history entry.
const (
	becausePinned       = "pinned"
	becauseConfident    = "more confident"
	becauseSpecific     = "more specific"
	becauseWellFormed   = "well-formed"
	becauseFirstWritten = "first written"
)

// canonicalText decides which of two texts stating the same thing a fold keeps: the incoming
// one (incoming true) or the existing one, and why. In order: a pinned row keeps its text; the
// more confident side wins; the text carrying a specific (a number, version, path or
// identifier) the other lacks wins ("use pnpm 9" over "use pnpm"); a well-formed sentence wins
// over a fragment; else the existing text stays, the first written.
func canonicalText(existing store.Memory, w store.Write) (incoming bool, why string) {
	// Confidence is stored as real: compare at that precision so equal values stay equal.
	ce, cw := float32(existing.Confidence), float32(w.Confidence)
	switch se, sw := specifics(existing.Text), specifics(w.Text); {
	case existing.Pinned:
		return false, becausePinned
	case ce != cw:
		return cw > ce, becauseConfident
	case hasExtra(sw, se) != hasExtra(se, sw):
		return hasExtra(sw, se), becauseSpecific
	case wellFormed(existing.Text) != wellFormed(w.Text):
		return wellFormed(w.Text), becauseWellFormed
	}
	return false, becauseFirstWritten
}

// wellFormed reports whether text reads as a sentence: it starts with a capital letter, a
// digit or a symbol (an identifier such as `pnpm` written as code) rather than a lower-case
// word, and ends with a full stop, question or exclamation mark, or a closing quote, bracket or
// backtick after one.
func wellFormed(text string) bool {
	t := strings.TrimSpace(text)
	first, _ := utf8.DecodeRuneInString(t)
	if t == "" || unicode.IsLower(first) {
		return false
	}
	t = strings.TrimRight(t, "\"')]`”’")
	last, _ := utf8.DecodeLastRuneInString(t)
	return strings.ContainsRune(".!?", last)
}

// provenanceDetail is the who of a history entry.
func provenanceDetail(p store.Provenance) map[string]any {
	d := map[string]any{}
	for k, v := range map[string]string{"agent": p.Agent, "session": p.Session, "source": p.Source} {
		if v != "" {
			d[k] = v
		}
	}
	return d
}
