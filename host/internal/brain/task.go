package brain

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/brain/banner"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/rules"
	"github.com/memhost/memhost/host/internal/core/store"
)

// Task-scoped context (docs/banner.md, "Relevant to this task"): when a session's task is known
// (a prompt argument at spawn, or a prompt the user submits to a connected CLI), the facts most
// relevant to it are found by memory.Service's search, the one ranker, with the task as the
// query, and only those whose score clears Config.TaskFloor are given: a weak match costs
// tokens and, as the evidence on coding agents says, can make the work worse. A project whose
// live facts the query-less banner shows whole is given whole.

// What a task did to a banner (BannerView.TaskMode) or a prompt's context.
const (
	// TaskScoped: facts relevant to the task lead the banner (or make the prompt's context).
	TaskScoped = "scoped"
	// TaskWhole: every live fact fits the banner, so it is given whole and nothing is chosen.
	TaskWhole = "whole"
	// TaskNone: no fact is relevant enough to the task; nothing was added.
	TaskNone = "none"
	// TaskOff: task-scoped context is off (brain.prompt_context = false).
	TaskOff = "off"
)

// Task limits. A task or prompt may be long (a pasted log); its first MaxTaskQueryBytes are the
// query, which is what a search reads usefully.
const (
	MaxTaskBytes      = 64 << 10
	MaxTaskQueryBytes = 1000
	// taskHits is how many hits a task's search asks for: more than a banner's task section
	// or a prompt's context shows.
	taskHits = 12
)

// DefaultTaskFloor is the score (memory.SearchHit.Score: the ranker's relevance to the task,
// weighed by the fact's quality) a fact must reach to be given for a task. Calibrated on the
// banner-selection benchmark (docs/value.md): the lowest floor at which no task about nothing
// in the project got a fact; below it such tasks start bringing one, and above it tasks lose
// the facts they need.
const DefaultTaskFloor = 0.40

// checkTask refuses a task or prompt past MaxTaskBytes.
func checkTask(field, text string) error {
	if len(text) > MaxTaskBytes {
		return rules.Errf(field, "is %d bytes; at most %d", len(text), MaxTaskBytes)
	}
	return nil
}

// withTask adds the facts relevant to task to the banner v rendered from in, unless the banner
// already holds every fact (whole) or none clears the floor.
func (s *Service) withTask(ctx context.Context, a memory.Access, task string, in banner.Input, opts banner.Options, v BannerView) (BannerView, error) {
	switch {
	case !s.cfg.TaskContext:
		v.TaskMode = TaskOff
		return v, nil
	case whole(v.Result):
		v.TaskMode = TaskWhole
		return v, nil
	}
	hits, err := s.taskFacts(ctx, a, task, nil)
	if err != nil {
		return BannerView{}, err
	}
	if len(hits) == 0 {
		v.TaskMode = TaskNone
		return v, nil
	}
	in.Task = hits
	scoped, err := render(a.Project, in, opts)
	if err != nil {
		return BannerView{}, err
	}
	scoped.TaskMode = TaskScoped
	return scoped, nil
}

// whole reports whether a banner shows every fact it was given, none shortened.
func whole(r banner.Result) bool {
	for _, sec := range r.Sections {
		switch sec.Section {
		case banner.SectionNewest, banner.SectionTask, banner.SectionTop:
			if sec.Cut > 0 || sec.Truncated {
				return false
			}
		}
	}
	return true
}

// taskFacts returns the project's facts relevant to task, best first by the ranker, those whose
// score clears the floor and that are not in skip.
func (s *Service) taskFacts(ctx context.Context, a memory.Access, task string, skip []uuid.UUID) ([]banner.Fact, error) {
	q := taskQuery(task)
	if q == "" {
		return nil, nil
	}
	res, err := s.mem.Search(ctx, a, memory.SearchRequest{Query: q, TopK: taskHits + len(skip), ExcludeGlobal: true, Unrecorded: true})
	if err != nil {
		return nil, err
	}
	var out []banner.Fact
	for _, h := range res.Hits {
		if h.Score < s.cfg.TaskFloor || slices.Contains(skip, h.ID) {
			continue
		}
		out = append(out, banner.Fact{ID: h.ID, Kind: string(h.Kind), Text: h.Text, Pinned: h.Pinned, UpdatedAt: h.UpdatedAt})
		if len(out) == taskHits {
			break
		}
	}
	return out, nil
}

// ansiEscape matches a terminal's control sequences (colours, cursor moves), which pasted
// output carries and which are no words of the task.
var ansiEscape = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]`)

// taskQuery is the search query of a task: its words on one line, without terminal escapes and
// what the query rules refuse (control and bidi characters), cut at a word boundary within
// MaxTaskQueryBytes.
func taskQuery(task string) string {
	words := strings.FieldsFunc(ansiEscape.ReplaceAllString(task, " "), func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == utf8.RuneError
	})
	var b strings.Builder
	for _, w := range words {
		if b.Len()+1+len(w) > MaxTaskQueryBytes {
			break
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	return b.String()
}

// PromptRequest asks for the context of a prompt a user submitted to a session.
type PromptRequest struct {
	// Session is the session the prompt was typed in: its record says what it has seen
	// already, and keeps what this context gives.
	Session SessionRef
	// Prompt is what the user typed; used for the search and not kept.
	Prompt string
	// Budget is the most tokens the context may take (banner.MinPromptBudget..MaxPromptBudget);
	// 0 means banner.DefaultPromptBudget.
	Budget int
}

// PromptContext is what a prompt hook adds to a prompt.
type PromptContext struct {
	Project string `json:"project"`
	// Text is the context, empty when nothing is added.
	Text   string `json:"text"`
	Tokens int    `json:"tokens"`
	// Memories are the ids given, in order.
	Memories []uuid.UUID `json:"memories"`
	// Mode is TaskScoped when memories were given, TaskNone when nothing relevant was left
	// to give, TaskOff when task-scoped context is off.
	Mode string `json:"mode"`
}

// PromptContext returns the facts relevant to a prompt the user just submitted, rendered for the
// CLI's prompt hook (banner.RenderPrompt): never a memory the session was already given or
// retrieved (its record tells), only hits over the floor, within the budget and under the
// length Claude Code shows whole. The session's record keeps what is given.
func (s *Service) PromptContext(ctx context.Context, a memory.Access, req PromptRequest) (PromptContext, error) {
	if err := check(a); err != nil {
		return PromptContext{}, err
	}
	k, recorded, err := sessionKey(req.Session, a.Project)
	if err != nil {
		return PromptContext{}, err
	}
	if err := checkTask("prompt", req.Prompt); err != nil {
		return PromptContext{}, err
	}
	budget := req.Budget
	if budget == 0 {
		budget = banner.DefaultPromptBudget
	}
	if budget < banner.MinPromptBudget || budget > banner.MaxPromptBudget {
		return PromptContext{}, rules.Errf("budget", "%d is out of range %d..%d tokens", req.Budget, banner.MinPromptBudget, banner.MaxPromptBudget)
	}
	out := PromptContext{Project: a.Project, Memories: []uuid.UUID{}, Mode: TaskNone}
	if !s.cfg.TaskContext {
		out.Mode = TaskOff
		return out, nil
	}
	var seen []uuid.UUID
	if recorded {
		if seen, err = s.st.SessionSeen(ctx, a.Project, k.Key); err != nil {
			return PromptContext{}, err
		}
	}
	facts, err := s.taskFacts(ctx, a, req.Prompt, seen)
	if err != nil || len(facts) == 0 {
		return out, err
	}
	r := banner.RenderPrompt(facts, banner.CLI(k.CLI), budget, s.now())
	if len(r.Facts) == 0 {
		return out, nil
	}
	out.Text, out.Tokens, out.Memories, out.Mode = r.Text, r.Tokens, r.Facts, TaskScoped
	if recorded {
		uses := make([]Use, len(r.Facts))
		for i, id := range r.Facts {
			uses[i] = Use{ID: id, Event: store.EventGiven, Channel: "prompt", Tokens: r.FactTokens[i]}
		}
		if err := s.record(ctx, k, true, uses); err != nil {
			return PromptContext{}, err
		}
	}
	return out, nil
}
