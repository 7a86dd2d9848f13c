package bench

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/memhost/memhost/host/internal/core/store"
)

// prose is English technical text written by many people: the sentences of the doc comments
// of the Go standard library (GOROOT/src, present on every machine that builds memhost). Its
// vocabulary is real and large (about 100K distinct words against the synthetic corpus's few
// hundred), which is what the lexical index, the embedder's hashed vectors and the ANN
// graphs meet in a real project memory. Each sentence keeps the package it came from as its
// topic, so a project can be given topics of its own, as a real project has.
type prose struct {
	sentences []proseSentence
	topics    [][]int // sentence indexes by topic, in source order
	root      string
}

type proseSentence struct {
	text  string
	file  string // path under root, e.g. net/http/server.go
	topic int
}

// loadProse reads every non-test .go file under root (skipping testdata and vendor folders)
// in lexical order and keeps each distinct sentence of 40-300 bytes with at least six words
// that reads as prose (it starts with a capital letter, ends with a full stop and is mostly
// letters and spaces), and each pair of such sentences that follow each other in a comment.
// The same root gives the same texts in the same order.
func loadProse(root string) (*prose, error) {
	p := &prose{root: root}
	seen := map[string]bool{}
	topicOf := map[string]int{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "vendor") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.ParseComments)
		if err != nil {
			return nil // the tree holds files for other build tags and deliberately broken ones
		}
		rel, _ := filepath.Rel(root, path)
		add := func(s string) {
			key := store.NormalizeText(s)
			if seen[key] {
				return
			}
			seen[key] = true
			dir := filepath.Dir(rel)
			t, ok := topicOf[dir]
			if !ok {
				t = len(p.topics)
				topicOf[dir] = t
				p.topics = append(p.topics, nil)
			}
			p.topics[t] = append(p.topics[t], len(p.sentences))
			p.sentences = append(p.sentences, proseSentence{text: s, file: filepath.ToSlash(rel), topic: t})
		}
		for _, cg := range f.Comments {
			// Each sentence is a fact, and so is each pair of sentences that follow each
			// other: agents often store a statement with its reason or consequence.
			prev := ""
			for _, s := range splitSentences(cg.Text()) {
				if !isProse(s) {
					prev = ""
					continue
				}
				add(s)
				if prev != "" {
					add(prev + " " + s)
				}
				prev = s
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read prose under %s: %w", root, err)
	}
	if len(p.sentences) == 0 {
		return nil, fmt.Errorf("read prose under %s: no sentences; is it a Go source tree such as GOROOT/src?", root)
	}
	return p, nil
}

// splitSentences cuts a comment into sentences: paragraphs end at blank lines and at indented
// (code) lines, and sentences at a full stop followed by a capital letter or the paragraph's
// end.
func splitSentences(text string) []string {
	var out, para []string
	flush := func() {
		start := 0
		for i, w := range para {
			if strings.HasSuffix(w, ".") && (i == len(para)-1 || unicode.IsUpper([]rune(para[i+1])[0])) {
				out = append(out, strings.Join(para[start:i+1], " "))
				start = i + 1
			}
		}
		para = para[:0]
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "\t") || strings.HasPrefix(line, " ") {
			flush()
			continue
		}
		para = append(para, strings.Fields(line)...)
	}
	flush()
	return out
}

func isProse(s string) bool {
	if len(s) < 40 || len(s) > 300 || len(strings.Fields(s)) < 6 || !unicode.IsUpper([]rune(s)[0]) {
		return false
	}
	for _, banned := range []string{"Copyright", "license", "TODO", "go:", "+build", "DO NOT EDIT"} {
		if strings.Contains(s, banned) {
			return false
		}
	}
	plain := 0
	for _, r := range s {
		if unicode.IsLetter(r) || r == ' ' {
			plain++
		}
	}
	return float64(plain) >= 0.85*float64(len([]rune(s)))
}

// proseProject hands out one project's facts: sentences of its own topics first (a project
// talks about a few subjects), then of further topics as it grows. Projects share topics, as
// real projects share subjects, but a project never gets the same sentence twice.
type proseProject struct {
	p      *prose
	r      *rand.Rand
	topics []int  // this project's topic order
	next   int    // position in topics
	queue  []int  // texts of the current topic not yet handed out
	cited  []bool // by text: whether the first pass handed it out citing its file
	held   []bool // by text: held back for timed writes (hold), never handed out again
	second bool   // on the second pass over the topics
}

func (p *prose) project(seed uint64) *proseProject {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	return &proseProject{p: p, r: r, topics: r.Perm(len(p.topics)), cited: make([]bool, len(p.sentences)), held: make([]bool, len(p.sentences))}
}

// hold takes the project's next n facts out of its layout, for the timed writes to store
// later as new facts: the second pass skips their texts, so no timed write meets a sentence
// the layout holds and takes the fold path instead of an insert.
func (pp *proseProject) hold(n int) []Fact {
	facts := make([]Fact, 0, n)
	for range n {
		i, ok := pp.nextText()
		if !ok {
			break
		}
		pp.held[i] = true
		facts = append(facts, pp.render(i))
	}
	return facts
}

// fact returns the project's next fact, or false when the prose is exhausted for it. On the
// first pass over its topics a third of the facts cite the file they came from, as agents'
// memories often do. A project larger than the prose (the large project of the 1M layout)
// takes a second pass, handing each text out again in the other form.
func (pp *proseProject) fact() (Fact, bool) {
	i, ok := pp.nextText()
	if !ok {
		return Fact{}, false
	}
	return pp.render(i), true
}

// nextText is the index of the project's next sentence, skipping held ones on the second
// pass, or false when both passes are done.
func (pp *proseProject) nextText() (int, bool) {
	for {
		for len(pp.queue) == 0 {
			if pp.next == len(pp.topics) {
				if pp.second {
					return 0, false
				}
				pp.second, pp.next = true, 0
			}
			pp.queue = append(pp.queue, pp.p.topics[pp.topics[pp.next]]...)
			pp.next++
		}
		i := pp.queue[0]
		pp.queue = pp.queue[1:]
		if !pp.held[i] {
			return i, true
		}
	}
}

// render makes sentence i a fact, citing its file or not (see fact).
func (pp *proseProject) render(i int) Fact {
	s := pp.p.sentences[i]
	cite := pp.r.IntN(3) == 0
	if pp.second {
		cite = !pp.cited[i]
	}
	pp.cited[i] = cite
	text := s.text
	if cite {
		text = strings.TrimSuffix(text, ".") + " (see " + s.file + ")."
	}
	return Fact{Kind: proseKinds[pp.r.IntN(len(proseKinds))], Text: text, Paraphrase: paraphrase(pp.r, text), Query: question(pp.r, s.text)}
}

// proseKinds weights the kinds agents store: mostly facts, then conventions and gotchas.
var proseKinds = []store.Kind{store.KindFact, store.KindFact, store.KindFact, store.KindConvention, store.KindGotcha,
	store.KindDecision, store.KindReference, store.KindPreference, store.KindErrorPattern}

// paraphrase restates a fact the way an agent re-learns it in a later session: the same
// statement with a lead-in. The write path should fold it into the original.
func paraphrase(r *rand.Rand, text string) string {
	lead := []string{"Note: ", "Remember that ", "As we found, ", "Keep in mind: "}[r.IntN(4)]
	return lead + strings.ToLower(text[:1]) + text[1:]
}

// question is what an agent asks when it needs a fact: three to five of its content words,
// in another order.
func question(r *rand.Rand, text string) string {
	var words []string
	for _, w := range strings.Fields(strings.ToLower(text)) {
		w = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if len(w) >= 4 && !stopwords[w] {
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		return text
	}
	r.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
	return strings.Join(words[:min(len(words), 3+r.IntN(3))], " ")
}

var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`about above after again against also because been before being below between both
		cannot could does doing down during each from further have having here however into itself just more most must
		only other over same should since some such than that their them then there these they this those through under
		until very were what when where which while will with would your`) {
		stopwords[w] = true
	}
}
