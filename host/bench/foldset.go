package bench

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/embedder/calibration"
)

// The fold set: several thousand labelled pairs of notes (FoldPair: a calibration.Pair and the
// seed it came from, one JSON object per line in testdata/foldpairs.jsonl) on which `make bench`
// measures how often a write folds into a different statement and how often a restatement stays
// apart, on the whole set and on its two halves (foldsplit.go). It is generated from the
// hand-written seeds in foldseeds.go by GenerateFoldPairs(FoldSetSeed); TestFoldSetIsGenerated
// keeps the committed file and the generator in step (regenerate with
// `go test ./internal/bench -run TestFoldSetIsGenerated -update-foldset`).
//
// Pair.A is the stored note, Pair.B the incoming write; Pair.Kind names the family:
//
//	same: true  (must fold)
//	  exact               the same text up to case and whitespace
//	  near-exact          formatting, punctuation, spelling, a foldTypo, a contraction
//	  paraphrase          the same fact reworded, specifics kept
//	  negated-paraphrase  the same prohibition reworded
//	  prefixed-paraphrase a paraphrase under the same tag ("Decision: ", "[2024-03-02] ")
//	  turn-duplicate      a conversation turn logged again, near-exact, same time and speaker
//	  turn-paraphrase     a turn reworded, same time and speaker
//	same: false (must not fold)
//	  number              one port, count, duration, version, percentage or ticket differs
//	  identifier          one env var, function, flag, branch, route or command differs
//	  path                one file path differs
//	  template            one plain word differs (a service, a tool, an environment, a day)
//	  negation            a statement and its negation or opposite
//	  contrast            a word swapped for its opposite, or an order reversed (hand-written)
//	  topic               two facts about one subject sharing most words
//	  relation            the same things related differently, one note reworded (hand-written)
//	  prefix              two different notes under the same tag
//	  speaker             two turns at the same time by different speakers (even the same words)
//	  turn                two different turns by one speaker at the same time

// FoldSetSeed is the seed the committed fold set was generated with.
const FoldSetSeed = 9

//go:embed testdata/foldpairs.jsonl
var foldPairsJSONL []byte

// FoldPair is one labelled pair of the fold set and the hand-written seed it was generated
// from ("family:12", "fact:3", "conversation:4"), which decides its half (foldHalfOf).
type FoldPair struct {
	calibration.Pair
	Seed string `json:"seed"`
}

// FoldPairs returns the committed fold set.
func FoldPairs() ([]FoldPair, error) {
	var pairs []FoldPair
	dec := json.NewDecoder(bytes.NewReader(foldPairsJSONL))
	for dec.More() {
		var p FoldPair
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("fold set pair %d: %w", len(pairs)+1, err)
		}
		if p.A == "" || p.B == "" || p.Seed == "" {
			return nil, fmt.Errorf("fold set pair %d: a, b and seed are required", len(pairs)+1)
		}
		pairs = append(pairs, p)
	}
	return pairs, nil
}

// foldQuota is how many pairs of each generated kind the set holds; hand-written pairs
// (foldFacts, foldNegations, foldTopicPairs, foldHardPairs, foldRelationPairs) come on top, all
// of them.
var foldQuota = map[string]int{
	"exact": 120, "near-exact": 450, "paraphrase": 900, "negated-paraphrase": 160, "prefixed-paraphrase": 250,
	"turn-duplicate": 300, "turn-paraphrase": 400,
	"number": 600, "identifier": 400, "path": 250, "template": 600, "negation": 300, "topic": 400,
	"prefix": 350, "speaker": 800, "turn": 400,
}

// GenerateFoldPairs expands the seeds into the labelled fold set. The same seed gives the same
// pairs in the same order.
func GenerateFoldPairs(seed uint64) []FoldPair {
	g := &foldGen{rng: rand.New(rand.NewPCG(seed, 0x5eed)), seen: map[[2]string]bool{}}
	g.handWritten()
	kinds := make([]string, 0, len(foldQuota))
	for k := range foldQuota {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, kind := range kinds {
		for tries := 0; g.count[kind] < foldQuota[kind] && tries < 50*foldQuota[kind]; tries++ {
			if a, b, from, ok := g.make(kind); ok {
				g.add(a, b, kind, from)
			}
		}
	}
	// Added after the generated kinds so that the pairs drawn before stay as they were.
	for k, p := range foldRelationPairs {
		g.add(p[0], p[1], "relation", fmt.Sprintf("relation:%d", k))
	}
	return g.pairs
}

type foldGen struct {
	rng   *rand.Rand
	seen  map[[2]string]bool
	count map[string]int
	pairs []FoldPair
}

// foldSameKinds are the kinds labelled same: true.
var foldSameKinds = map[string]bool{"exact": true, "near-exact": true, "paraphrase": true, "negated-paraphrase": true,
	"prefixed-paraphrase": true, "turn-duplicate": true, "turn-paraphrase": true}

// add records a pair generated from seed once (in either order), A and B in random order.
func (g *foldGen) add(a, b, kind, seed string) {
	if a == b || (!foldSameKinds[kind] && store.NormalizeText(a) == store.NormalizeText(b)) {
		return
	}
	key := [2]string{a, b}
	if b < a {
		key = [2]string{b, a}
	}
	if g.seen[key] {
		return
	}
	g.seen[key] = true
	if g.rng.IntN(2) == 0 {
		a, b = b, a
	}
	if g.count == nil {
		g.count = map[string]int{}
	}
	g.count[kind]++
	g.pairs = append(g.pairs, FoldPair{Pair: calibration.Pair{A: a, B: b, Same: foldSameKinds[kind], Kind: kind}, Seed: seed})
}

// handWritten adds every pair the hand-written seeds state directly.
func (g *foldGen) handWritten() {
	for k, forms := range foldFacts {
		for i := range forms {
			for j := i + 1; j < len(forms); j++ {
				g.add(forms[i], forms[j], "paraphrase", factSeed(k))
			}
		}
	}
	for k, n := range foldNegations {
		g.add(n.pos[0], n.pos[1], "paraphrase", negationSeed(k))
		g.add(n.neg[0], n.neg[1], "negated-paraphrase", negationSeed(k))
		for _, p := range n.pos {
			for _, q := range n.neg {
				g.add(p, q, "negation", negationSeed(k))
			}
		}
	}
	for k, p := range foldTopicPairs {
		g.add(p[0], p[1], "topic", fmt.Sprintf("topic:%d", k))
	}
	for k, p := range foldHardPairs {
		g.add(p.a, p.b, p.kind, fmt.Sprintf("hard:%d", k))
	}
}

// make draws one pair of kind and names the seed it came from.
func (g *foldGen) make(kind string) (a, b, seed string, ok bool) {
	switch kind {
	case "exact":
		a, seed := g.anyFact()
		if g.rng.IntN(5) == 0 {
			pre := g.turnPrefix(foldPick(g.rng, foldSpeakers))
			t, from := g.anyTurn()
			a, seed = pre+t.text, from
		}
		return a, g.reformat(a), seed, true
	case "near-exact":
		if g.rng.IntN(5) == 0 { // a turn: the words change, never who said them or when
			pre := g.turnPrefix(foldPick(g.rng, foldSpeakers))
			t, from := g.anyTurn()
			b, ok := g.perturb(t.text)
			return pre + t.text, pre + b, from, ok
		}
		a, seed := g.anyFact()
		b, ok := g.perturbNote(a)
		return a, b, seed, ok
	case "paraphrase":
		f, slots, seed := g.family()
		i, j := g.twoOf(len(f.forms))
		return foldFill(f.forms[i], slots), foldFill(f.forms[j], slots), seed, true
	case "negated-paraphrase":
		f, slots, seed := g.familyWith(func(f foldFamily) bool { return len(f.neg) > 1 })
		i, j := g.twoOf(len(f.neg))
		return foldFill(f.neg[i], slots), foldFill(f.neg[j], slots), seed, true
	case "prefixed-paraphrase":
		p := foldPick(g.rng, foldPrefixes)
		a, b, seed := g.paraphrasePair()
		return p + a, p + b, seed, true
	case "number", "identifier", "path", "template":
		return g.slotMiss(kind)
	case "negation":
		f, slots, seed := g.familyWith(func(f foldFamily) bool { return len(f.neg) > 0 })
		return foldFill(foldPick(g.rng, f.forms), slots), foldFill(foldPick(g.rng, f.neg), slots), seed, true
	case "topic":
		return g.siblings()
	case "prefix":
		p := foldPick(g.rng, foldPrefixes)
		a, b, seed, ok := g.nearMiss()
		return p + a, p + b, seed, ok
	case "speaker":
		return g.speakerPair()
	case "turn":
		return g.turnPair()
	case "turn-duplicate":
		pre := g.turnPrefix(foldPick(g.rng, foldSpeakers))
		t, seed := g.anyTurn()
		b, ok := g.perturb(t.text)
		return pre + t.text, pre + b, seed, ok
	case "turn-paraphrase":
		pre := g.turnPrefix(foldPick(g.rng, foldSpeakers))
		t, seed := g.anyTurn()
		return pre + t.text, pre + t.para, seed, true
	}
	panic("foldset: unknown kind " + kind)
}

// family draws a template family and fills every slot it uses.
func (g *foldGen) family() (foldFamily, map[string]string, string) {
	return g.familyWith(func(foldFamily) bool { return true })
}

func (g *foldGen) familyWith(ok func(foldFamily) bool) (foldFamily, map[string]string, string) {
	for {
		i := g.rng.IntN(len(foldFamilies))
		if f := foldFamilies[i]; ok(f) {
			return f, g.fillSlots(f, map[string]string{}), familySeed(i)
		}
	}
}

var foldSlotRE = regexp.MustCompile(`\{([a-z]+)\}`)

// foldSlotsOf lists the slots a family's texts use, in order of first use.
func foldSlotsOf(f foldFamily) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range append(append([]string(nil), f.forms...), f.neg...) {
		for _, m := range foldSlotRE.FindAllStringSubmatch(t, -1) {
			if !seen[m[1]] {
				seen[m[1]] = true
				out = append(out, m[1])
			}
		}
	}
	return out
}

// fillSlots gives every slot of f not yet in slots a random value.
func (g *foldGen) fillSlots(f foldFamily, slots map[string]string) map[string]string {
	for _, s := range foldSlotsOf(f) {
		if _, ok := slots[s]; !ok {
			v, known := foldSlots[s]
			if !known {
				panic("foldset: unknown slot " + s)
			}
			slots[s] = foldPick(g.rng, v.values)
		}
	}
	return slots
}

// foldFill replaces the slots of t. A plain word that starts the sentence is capitalised, as a note
// would start; an identifier keeps its case ("pnpm", "api-gateway").
func foldFill(t string, slots map[string]string) string {
	out := foldSlotRE.ReplaceAllStringFunc(t, func(m string) string { return slots[m[1:len(m)-1]] })
	if m := foldSlotRE.FindStringSubmatchIndex(t); m != nil && m[0] == 0 && foldSlots[t[m[2]:m[3]]].kind == "template" {
		return foldUpperFirst(out)
	}
	return out
}

// slotMiss is one family filled twice, the two fillings differing in one slot of kind; the
// forms are the same template or two rewordings of it.
func (g *foldGen) slotMiss(kind string) (a, b, seed string, ok bool) {
	k := g.rng.IntN(len(foldFamilies))
	f := foldFamilies[k]
	var candidates []string
	for _, s := range foldSlotsOf(f) {
		if foldSlots[s].kind == kind {
			candidates = append(candidates, s)
		}
	}
	if len(candidates) == 0 {
		return "", "", "", false
	}
	slots := g.fillSlots(f, map[string]string{})
	s := foldPick(g.rng, candidates)
	other := map[string]string{}
	for k, v := range slots {
		other[k] = v
	}
	for other[s] == slots[s] {
		other[s] = foldPick(g.rng, foldSlots[s].values)
	}
	texts := f.forms
	if len(f.neg) > 0 && g.rng.IntN(4) == 0 {
		texts = f.neg
	}
	i := g.rng.IntN(len(texts))
	j := i
	if g.rng.IntN(2) == 0 {
		j = g.rng.IntN(len(texts))
	}
	return foldFill(texts[i], slots), foldFill(texts[j], other), familySeed(k), true
}

// siblings fills two sibling families with the same values: two facts sharing their specifics.
func (g *foldGen) siblings() (a, b, seed string, ok bool) {
	group := foldPick(g.rng, foldSiblings)
	i, j := g.twoOf(len(group))
	fa, fb := foldFamilies[group[i]], foldFamilies[group[j]]
	slots := g.fillSlots(fb, g.fillSlots(fa, map[string]string{}))
	return foldFill(foldPick(g.rng, fa.forms), slots), foldFill(foldPick(g.rng, fb.forms), slots), familySeed(group[i]), true
}

// nearMiss is any distinct pair of notes that share most words.
func (g *foldGen) nearMiss() (a, b, seed string, ok bool) {
	switch g.rng.IntN(4) {
	case 0:
		k := g.rng.IntN(len(foldTopicPairs))
		p := foldTopicPairs[k]
		return p[0], p[1], fmt.Sprintf("topic:%d", k), true
	case 1:
		k := g.rng.IntN(len(foldNegations))
		n := foldNegations[k]
		return foldPick(g.rng, n.pos), foldPick(g.rng, n.neg), negationSeed(k), true
	case 2:
		return g.siblings()
	default:
		return g.slotMiss(foldPick(g.rng, []string{"number", "identifier", "path", "template"}))
	}
}

// paraphrasePair is two rewordings of one fact, templated or hand-written.
func (g *foldGen) paraphrasePair() (a, b, seed string) {
	if g.rng.IntN(3) == 0 {
		k := g.rng.IntN(len(foldFacts))
		forms := foldFacts[k]
		i, j := g.twoOf(len(forms))
		return forms[i], forms[j], factSeed(k)
	}
	f, slots, seed := g.family()
	i, j := g.twoOf(len(f.forms))
	return foldFill(f.forms[i], slots), foldFill(f.forms[j], slots), seed
}

// anyFact is a project fact of any kind the seeds produce.
func (g *foldGen) anyFact() (text, seed string) {
	switch g.rng.IntN(4) {
	case 0:
		k := g.rng.IntN(len(foldFacts))
		return foldPick(g.rng, foldFacts[k]), factSeed(k)
	case 1:
		k := g.rng.IntN(len(foldNegations))
		n := foldNegations[k]
		return foldPick(g.rng, append(append([]string(nil), n.pos...), n.neg...)), negationSeed(k)
	default:
		f, slots, seed := g.family()
		return foldFill(foldPick(g.rng, f.forms), slots), seed
	}
}

// speakerPair is two turns at one moment by two people: different turns of one conversation
// topic, or the very same words said by both.
func (g *foldGen) speakerPair() (a, b, seed string, ok bool) {
	sa, sb := g.twoSpeakers()
	at := g.moment()
	var ta, tb string
	switch g.rng.IntN(4) {
	case 0:
		r := foldPick(g.rng, foldReplies)
		ta, tb, seed = r.text, r.text, foldRepliesSeed
		if g.rng.IntN(2) == 0 {
			tb = r.para
		}
	case 1:
		var t foldTurn
		t, seed = g.anyTurn()
		ta, tb = t.text, t.text
	default:
		k := g.rng.IntN(len(foldTopics))
		topic := foldTopics[k]
		i, j := g.twoOf(len(topic))
		ta, tb, seed = topic[i].text, topic[j].text, conversationSeed(k)
		if g.rng.IntN(3) == 0 {
			tb = topic[j].para
		}
	}
	return at(sa) + ta, at(sb) + tb, seed, true
}

// turnPair is two different turns by one speaker at one moment.
func (g *foldGen) turnPair() (a, b, seed string, ok bool) {
	at := g.moment()
	who := foldPick(g.rng, foldSpeakers)
	if g.rng.IntN(5) == 0 {
		i, j := g.twoOf(len(foldReplies))
		return at(who) + foldReplies[i].text, at(who) + foldReplies[j].text, foldRepliesSeed, true
	}
	k := g.rng.IntN(len(foldTopics))
	topic := foldTopics[k]
	i, j := g.twoOf(len(topic))
	return at(who) + topic[i].text, at(who) + topic[j].para, conversationSeed(k), true
}

// anyTurn draws a turn of any conversation and names its seed.
func (g *foldGen) anyTurn() (foldTurn, string) {
	if g.rng.IntN(6) == 0 {
		return foldPick(g.rng, foldReplies), foldRepliesSeed
	}
	k := g.rng.IntN(len(foldTopics))
	return foldPick(g.rng, foldTopics[k]), conversationSeed(k)
}

func (g *foldGen) twoSpeakers() (string, string) {
	i, j := g.twoOf(len(foldSpeakers))
	return foldSpeakers[i], foldSpeakers[j]
}

func (g *foldGen) turnPrefix(who string) string { return g.moment()(who) }

var foldMonths = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September",
	"October", "November", "December"}

// moment draws a time and a log format and returns the prefix it gives a speaker's turn.
func (g *foldGen) moment() func(who string) string {
	year, month, day := 2022+g.rng.IntN(3), g.rng.IntN(12), 1+g.rng.IntN(28)
	hour, minute, session := g.rng.IntN(24), g.rng.IntN(60), 1+g.rng.IntN(30)
	h12, ampm := hour%12, "am"
	if h12 == 0 {
		h12 = 12
	}
	if hour >= 12 {
		ampm = "pm"
	}
	switch g.rng.IntN(5) {
	case 0, 1:
		return func(who string) string {
			return fmt.Sprintf("[%d:%02d %s on %d %s, %d] %s: ", h12, minute, ampm, day, foldMonths[month], year, who)
		}
	case 2:
		return func(who string) string {
			return fmt.Sprintf("[%d-%02d-%02d %02d:%02d] %s: ", year, month+1, day, hour, minute, who)
		}
	case 3:
		return func(who string) string {
			return fmt.Sprintf("%s (%d %s %d, %d:%02d %s): ", who, day, foldMonths[month][:3], year, h12, minute, ampm)
		}
	default:
		if g.rng.IntN(2) == 0 {
			return func(who string) string { return who + ": " }
		}
		return func(who string) string { return fmt.Sprintf("[session %d] %s: ", session, who) }
	}
}

// reformat changes only case and whitespace: the write path's exact-duplicate check sees one text.
func (g *foldGen) reformat(t string) string {
	for {
		out := t
		switch g.rng.IntN(4) {
		case 0:
			out = strings.ToLower(t)
		case 1:
			out = "  " + strings.ReplaceAll(t, " ", "  ")
		case 2:
			out = t + "\n"
		default:
			out = strings.Replace(foldLowerFirst(t), " ", "\t", 1)
		}
		if out != t {
			return out
		}
	}
}

// foldPerturbations are edits that leave the statement as it was.
var foldPerturbations = []func(g *foldGen, t string) string{
	func(_ *foldGen, t string) string { // the full stop
		switch {
		case strings.HasSuffix(t, "."):
			return strings.TrimSuffix(t, ".")
		case strings.HasSuffix(t, "?") || strings.HasSuffix(t, "!"):
			return t
		}
		return t + "."
	},
	func(_ *foldGen, t string) string { return foldLowerFirst(t) },
	func(_ *foldGen, t string) string { return foldBacktick(t) },
	func(_ *foldGen, t string) string { return foldSwapContraction(t) },
	func(_ *foldGen, t string) string { return foldRespell(t) },
	func(g *foldGen, t string) string { return foldTypo(g, t) },
	func(g *foldGen, t string) string { // how chat turns end
		base := strings.TrimRight(t, ".!?")
		return base + foldPick(g.rng, []string{"!", "!!", " :)", " 🙂", "...", " 😊"})
	},
}

// foldFillers are what an agent puts before a fact it writes down again.
var foldFillers = []string{"FYI, ", "Heads up: ", "Just so you know, ", "Reminder: "}

// perturb applies one or two edits that keep the statement; it fails when none changed t.
func (g *foldGen) perturb(t string) (string, bool) {
	out := t
	for n := 1 + g.rng.IntN(2); n > 0; n-- {
		out = foldPick(g.rng, foldPerturbations)(g, out)
	}
	return out, store.NormalizeText(out) != store.NormalizeText(t)
}

// perturbNote is perturb for a note, which may also gain a filler in front; a conversation turn
// never does, since the words are what was said.
func (g *foldGen) perturbNote(t string) (string, bool) {
	if g.rng.IntN(6) == 0 {
		return foldPick(g.rng, foldFillers) + foldLowerFirst(t), true
	}
	return g.perturb(t)
}

var foldIdentRE = regexp.MustCompile(`[A-Za-z0-9_.\-/]*[_./\-0-9][A-Za-z0-9_.\-/]*[A-Za-z0-9]`)

func foldBacktick(t string) string {
	if strings.Contains(t, "`") {
		return strings.ReplaceAll(t, "`", "")
	}
	loc := foldIdentRE.FindStringIndex(t)
	if loc == nil {
		return t
	}
	return t[:loc[0]] + "`" + t[loc[0]:loc[1]] + "`" + t[loc[1]:]
}

var foldContractions = [][2]string{{"do not", "don't"}, {"Do not", "Don't"}, {"does not", "doesn't"}, {"is not", "isn't"},
	{"are not", "aren't"}, {"cannot", "can't"}, {"I am", "I'm"}, {"I have", "I've"}, {"we are", "we're"},
	{"must not", "mustn't"}, {"could not", "couldn't"}, {"It is", "It's"}}

func foldSwapContraction(t string) string {
	for _, c := range foldContractions {
		if strings.Contains(t, c[0]) {
			return strings.Replace(t, c[0], c[1], 1)
		}
		if strings.Contains(t, c[1]) {
			return strings.Replace(t, c[1], c[0], 1)
		}
	}
	return t
}

var foldRespellings = [][2]string{{"favourite", "favorite"}, {"practise", "practice"}, {"colour", "color"},
	{"organising", "organizing"}, {"personalised", "personalized"}, {"behaviour", "behavior"},
	{"kilometres", "kilometers"}, {"centre", "center"}, {"licence", "license"}}

func foldRespell(t string) string {
	for _, r := range foldRespellings {
		if strings.Contains(t, r[0]) {
			return strings.Replace(t, r[0], r[1], 1)
		}
	}
	return t
}

// foldTypo swaps two inner letters of the longest plain word, as a hurried agent would.
func foldTypo(_ *foldGen, t string) string {
	words := strings.Fields(t)
	best := -1
	for i, w := range words {
		if foldPlainWord(w) && len(w) >= 6 && (best < 0 || len(w) > len(words[best])) {
			best = i
		}
	}
	if best < 0 {
		return t
	}
	w := []byte(words[best])
	mid := len(w) / 2
	w[mid], w[mid+1] = w[mid+1], w[mid]
	words[best] = string(w)
	return strings.Join(words, " ")
}

func foldPlainWord(w string) bool {
	for _, r := range w {
		if r > unicode.MaxASCII || !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

func foldUpperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if !unicode.IsLower(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

func foldLowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if !unicode.IsUpper(r) {
		return s
	}
	// An acronym or identifier keeps its case ("JWTs", "CI", "PAY-1482").
	if r2, _ := utf8.DecodeRuneInString(s[n:]); unicode.IsUpper(r2) || unicode.IsDigit(r2) {
		return s
	}
	return string(unicode.ToLower(r)) + s[n:]
}

// twoOf draws two different indexes below n.
func (g *foldGen) twoOf(n int) (int, int) {
	i := g.rng.IntN(n)
	j := g.rng.IntN(n - 1)
	if j >= i {
		j++
	}
	return i, j
}

func foldPick[T any](rng *rand.Rand, xs []T) T { return xs[rng.IntN(len(xs))] }

// scoreFoldSet scores every pair of the fold set with e: the set, and the scores in its order.
func scoreFoldSet(ctx context.Context, e embedder.Embedder) ([]FoldPair, []calibration.Scored, error) {
	set, err := FoldPairs()
	if err != nil {
		return nil, nil, fmt.Errorf("fold set: %w", err)
	}
	pairs := make([]calibration.Pair, len(set))
	for i, p := range set {
		pairs[i] = p.Pair
	}
	scored, err := calibration.Score(ctx, e, pairs)
	return set, scored, err
}
