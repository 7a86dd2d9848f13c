package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/memhost/memhost/host/internal/core/store"
)

// A retrieval set is the labelled benchmark of the ranker: the project memories of several
// real public repositories (facts restated in our own words from their contributing guides
// and docs, of the kinds agents store), questions an agent would ask, each labelled with the
// facts that answer it, plus distractor projects and global preferences that share the
// database. One JSON file per project in testdata/retrieval; the schema is documented in
// testdata/retrieval/README.md and checked by LoadRetrievalSet.

// Project roles in a retrieval set.
const (
	RoleEvaluated  = "evaluated"  // a project whose questions are asked
	RoleDistractor = "distractor" // facts stored in their own project, never asked about
	RoleGlobal     = "global"     // preferences stored in the global scope, seen by every search
)

// Question categories. Every question has exactly one.
const (
	CategoryDirect   = "direct"   // shares words with the answer
	CategoryVocab    = "vocab"    // asks in other words than the answer uses ("package manager" for pnpm)
	CategoryMulti    = "multi"    // needs several facts
	CategoryTemporal = "temporal" // an older, superseded fact competes with the current one
	CategoryExact    = "exact"    // names an identifier, path or command
)

// Categories lists the question categories in report order.
var Categories = []string{CategoryDirect, CategoryVocab, CategoryMulti, CategoryTemporal, CategoryExact}

// maxAgeDays bounds a fact's age: ten years is older than any memory worth keeping.
const maxAgeDays = 3650

// RetrievalSet is a loaded, validated retrieval benchmark.
type RetrievalSet struct {
	Projects []RetrievalProject
}

// RetrievalProject is one file of the set.
type RetrievalProject struct {
	// Project is the project key the facts are stored under (unused for RoleGlobal).
	Project   string              `json:"project"`
	Source    string              `json:"source"`
	Role      string              `json:"role"`
	Facts     []RetrievalFact     `json:"facts"`
	Questions []RetrievalQuestion `json:"questions"`
}

// RetrievalFact is one memory as an agent would have stored it.
type RetrievalFact struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	// AgeDays is how long ago the fact was written; the benchmark backdates it so recency
	// plays the part it plays in a project that has been used for a while.
	AgeDays int    `json:"age_days"`
	Text    string `json:"text"`
}

// RetrievalQuestion is one query and the facts that answer it.
type RetrievalQuestion struct {
	ID       string   `json:"id"`
	Category string   `json:"category"`
	Query    string   `json:"query"`
	Relevant []string `json:"relevant"`
	// Stale names superseded facts that still match the question (temporal questions): they
	// are not answers, and the report counts how often one outranks the current fact.
	Stale []string `json:"stale,omitempty"`
	// Blind is set for questions loaded from the blind folder (see LoadRetrievalSet).
	Blind bool `json:"-"`
}

// Splits of the question set.
const (
	SplitDev   = "dev"   // may be looked at while tuning the ranker
	SplitTest  = "test"  // the held-out half of the in-file questions: reported, never tuned on
	SplitBlind = "blind" // written by someone else, never opened by whoever tunes the ranker
)

// Split is the part of the set a question belongs to. Blind questions are SplitBlind; the
// others are SplitDev or SplitTest by a fixed hash of the question id, so adding questions
// never moves existing ones between halves.
func (q RetrievalQuestion) Split() string {
	if q.Blind {
		return SplitBlind
	}
	h := uint32(2166136261)
	for i := 0; i < len(q.ID); i++ {
		h ^= uint32(q.ID[i])
		h *= 16777619
	}
	if h%2 == 0 {
		return SplitDev
	}
	return SplitTest
}

// BlindDir is the folder of dir holding the blind questions.
const BlindDir = "blind"

// blindIDPrefix starts every blind question id, so a blind question is recognisable in any
// output and can never collide with an in-file one.
const blindIDPrefix = "b-"

// blindFile is one file of the blind folder: questions about one evaluated project, in the
// in-file question schema.
type blindFile struct {
	Project   string              `json:"project"`
	Questions []RetrievalQuestion `json:"questions"`
}

// LoadRetrievalSet reads every *.json file in dir, then the blind questions in dir/blind when
// that folder exists (see loadBlind), and checks the labels: fact and question ids unique
// across the set, every relevant and stale id naming a fact of the same project or a global
// one, known kinds and categories, and questions only in evaluated projects. A typo in a
// label fails loudly instead of silently lowering recall.
func LoadRetrievalSet(dir string) (RetrievalSet, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return RetrievalSet{}, fmt.Errorf("retrieval set: %w", err)
	}
	if len(paths) == 0 {
		return RetrievalSet{}, fmt.Errorf("retrieval set %s: no *.json files", dir)
	}
	sort.Strings(paths)
	var set RetrievalSet
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return RetrievalSet{}, fmt.Errorf("retrieval set: %w", err)
		}
		var proj RetrievalProject
		if err := json.Unmarshal(b, &proj); err != nil {
			return RetrievalSet{}, fmt.Errorf("retrieval set %s: %w", filepath.Base(p), err)
		}
		set.Projects = append(set.Projects, proj)
	}
	if err := set.loadBlind(filepath.Join(dir, BlindDir)); err != nil {
		return RetrievalSet{}, err
	}
	if err := set.validate(); err != nil {
		return RetrievalSet{}, fmt.Errorf("retrieval set %s: %w", dir, err)
	}
	return set, nil
}

// loadBlind adds the questions of every *.json file in dir (absent: none) to the evaluated
// project each file names, marked Blind. Their labels are then validated with the in-file
// questions'; their ids must start with "b-".
func (s *RetrievalSet) loadBlind(dir string) error {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return fmt.Errorf("retrieval set: %w", err)
	}
	sort.Strings(paths)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("retrieval set: %w", err)
		}
		var f blindFile
		if err := json.Unmarshal(b, &f); err != nil {
			return fmt.Errorf("retrieval set %s/%s: %w", BlindDir, filepath.Base(p), err)
		}
		i := slices.IndexFunc(s.Projects, func(x RetrievalProject) bool { return x.Role == RoleEvaluated && x.Project == f.Project })
		if i < 0 {
			return fmt.Errorf("retrieval set %s/%s: project %q is not an evaluated project of the set", BlindDir, filepath.Base(p), f.Project)
		}
		if len(f.Questions) == 0 {
			return fmt.Errorf("retrieval set %s/%s: no questions", BlindDir, filepath.Base(p))
		}
		for _, q := range f.Questions {
			if !strings.HasPrefix(q.ID, blindIDPrefix) {
				return fmt.Errorf("retrieval set %s/%s: question %q: blind question ids must start with %q", BlindDir, filepath.Base(p), q.ID, blindIDPrefix)
			}
			q.Blind = true
			s.Projects[i].Questions = append(s.Projects[i].Questions, q)
		}
	}
	return nil
}

func (s RetrievalSet) validate() error {
	owner := map[string]string{} // fact id -> project key ("" for global)
	projects := map[string]bool{}
	for _, p := range s.Projects {
		switch p.Role {
		case RoleEvaluated, RoleDistractor:
			if p.Project == "" || projects[p.Project] {
				return fmt.Errorf("project %q: a project key is required and must be unique", p.Project)
			}
			projects[p.Project] = true
		case RoleGlobal:
		default:
			return fmt.Errorf("project %q: role %q is not one of %s, %s, %s", p.Project, p.Role, RoleEvaluated, RoleDistractor, RoleGlobal)
		}
		if len(p.Facts) == 0 {
			return fmt.Errorf("project %q: no facts", p.Project)
		}
		if (p.Role == RoleEvaluated) != (len(p.Questions) > 0) {
			return fmt.Errorf("project %q: evaluated projects need questions and only they may have any", p.Project)
		}
		for _, f := range p.Facts {
			if f.ID == "" || f.Text == "" {
				return fmt.Errorf("project %q: fact %q: id and text are required", p.Project, f.ID)
			}
			if _, dup := owner[f.ID]; dup {
				return fmt.Errorf("fact id %q is used twice", f.ID)
			}
			if _, err := store.ParseKind(f.Kind); err != nil || f.Kind == "" {
				return fmt.Errorf("fact %q: kind %q is not a memory kind", f.ID, f.Kind)
			}
			if f.AgeDays < 0 || f.AgeDays > maxAgeDays {
				return fmt.Errorf("fact %q: age_days %d is out of range 0..%d", f.ID, f.AgeDays, maxAgeDays)
			}
			owner[f.ID] = p.keyOf()
		}
	}
	questions := map[string]bool{}
	for _, p := range s.Projects {
		for _, q := range p.Questions {
			if q.ID == "" || q.Query == "" || questions[q.ID] {
				return fmt.Errorf("project %q: question %q: a unique id and a query are required", p.Project, q.ID)
			}
			questions[q.ID] = true
			if !slices.Contains(Categories, q.Category) {
				return fmt.Errorf("question %q: category %q is not one of %v", q.ID, q.Category, Categories)
			}
			if len(q.Relevant) == 0 {
				return fmt.Errorf("question %q: needs at least one relevant fact", q.ID)
			}
			seen := map[string]bool{}
			for _, id := range append(slices.Clone(q.Relevant), q.Stale...) {
				key, ok := owner[id]
				if !ok {
					return fmt.Errorf("question %q names unknown fact %q", q.ID, id)
				}
				if key != p.Project && key != "" {
					return fmt.Errorf("question %q names fact %q of another project", q.ID, id)
				}
				if seen[id] {
					return fmt.Errorf("question %q names fact %q twice", q.ID, id)
				}
				seen[id] = true
			}
		}
	}
	return nil
}

// keyOf is the project key a fact of p is stored under, "" for the global scope.
func (p RetrievalProject) keyOf() string {
	if p.Role == RoleGlobal {
		return ""
	}
	return p.Project
}

// Only keeps the evaluated projects whose keys are listed (and every distractor and global
// file), for a quicker run on a subset.
func (s RetrievalSet) Only(projects ...string) RetrievalSet {
	var out RetrievalSet
	for _, p := range s.Projects {
		if p.Role != RoleEvaluated || slices.Contains(projects, p.Project) {
			out.Projects = append(out.Projects, p)
		}
	}
	return out
}

// Counts returns the number of evaluated projects, facts and in-file (not blind) questions
// in the set.
func (s RetrievalSet) Counts() (projects, facts, questions int) {
	for _, p := range s.Projects {
		if p.Role == RoleEvaluated {
			projects++
		}
		facts += len(p.Facts)
		questions += p.inFileQuestions()
	}
	return projects, facts, questions
}

func (p RetrievalProject) inFileQuestions() int {
	n := 0
	for _, q := range p.Questions {
		if !q.Blind {
			n++
		}
	}
	return n
}
