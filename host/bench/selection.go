package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/brain/banner"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/sdk/embedder"
)

// The banner-selection benchmark (issue 28): does the fact a task needs reach the CLI? Each
// evaluated project of the retrieval set holds its written facts and SelectionOptions.Filler
// synthetic ones (hundreds in all, more than a banner holds), and each of its questions is a
// task whose needed facts are the question's labels. A task succeeds when every needed fact
// is in the banner the CLI would get at the budget: the query-less banner (what every session
// got before) against the task-scoped one (brain.BannerRequest.Task), for each score floor
// of a sweep. Tasks about nothing in any project (testdata/selection/irrelevant.json) must get
// the query-less banner unchanged: a task section added for them is noise.

// SelectionOptions tune a selection run.
type SelectionOptions struct {
	Filler      int       // synthetic memories per evaluated project besides its facts
	Budget      int       // the banner's budget; 0 means banner.DefaultBudget
	Floors      []float64 // score floors swept; empty means DefaultSelectionFloors
	Seed        uint64
	ImportBatch int
	// Irrelevant are tasks about nothing in the projects.
	Irrelevant []string
}

// DefaultSelectionFloors is the sweep the report shows.
var DefaultSelectionFloors = []float64{0.2, 0.25, 0.3, 0.35, 0.38, 0.4, 0.45, 0.5}

// SelectionResult is one selection run.
type SelectionResult struct {
	// Projects are the evaluated projects; Facts averages their written facts.
	Projects, Facts, Filler, Budget int
	// Tasks counts the labelled tasks per split (SplitDev, SplitTest, SplitBlind) and in all.
	Tasks map[string]int
	// QueryLess counts, per split, the tasks whose needed facts all reach the query-less banner.
	QueryLess map[string]int
	// Whole counts the tasks whose project's facts all fit the budget.
	Whole      int
	Irrelevant int
	Points     []FloorPoint
	// Configured is the point at brain.DefaultTaskFloor.
	Configured FloorPoint
	Elapsed    time.Duration
}

// FloorPoint is the task-scoped banner at one score floor.
type FloorPoint struct {
	Floor float64
	// Scoped counts, per split, the tasks whose needed facts all reach the banner.
	Scoped map[string]int
	// Lost counts tasks whose needed facts the query-less banner held and the scoped one lost
	// (the task section took the room of a fact shown otherwise).
	Lost int
	// Added counts irrelevant tasks that got a task section; NoneAdded is the rest.
	Added int
	// Facts averages the facts the task section held when there was one.
	Facts float64
}

// splitAll keys the totals over every split.
const splitAll = "all"

// LoadIrrelevantTasks reads the tasks about nothing in the projects.
func LoadIrrelevantTasks(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f struct {
		Tasks []string `json:"tasks"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(f.Tasks) == 0 {
		return nil, fmt.Errorf("%s: no tasks", path)
	}
	return f.Tasks, nil
}

// Selection loads set into the migrated database behind pool and measures the banners.
func Selection(ctx context.Context, pool *pgxpool.Pool, e embedder.Embedder, redact memory.RedactFunc, set RetrievalSet, opt SelectionOptions) (SelectionResult, error) {
	start := time.Now()
	if opt.Budget == 0 {
		opt.Budget = banner.DefaultBudget
	}
	if len(opt.Floors) == 0 {
		opt.Floors = DefaultSelectionFloors
	}
	if !slices.Contains(opt.Floors, brain.DefaultTaskFloor) {
		opt.Floors = append(slices.Clone(opt.Floors), brain.DefaultTaskFloor)
		slices.Sort(opt.Floors)
	}
	res := SelectionResult{Filler: opt.Filler, Budget: opt.Budget, Tasks: map[string]int{}, QueryLess: map[string]int{}, Irrelevant: len(opt.Irrelevant)}
	var counted RetrievalResult
	l, err := loadRetrieval(ctx, pool, e, redact, set, RetrievalOptions{Filler: opt.Filler, Seed: opt.Seed, ImportBatch: opt.ImportBatch}, &counted)
	if err != nil {
		return res, err
	}
	defer l.stop()
	st, svc, memOf := l.st, l.svc, l.memOf
	for _, p := range set.Projects {
		if p.Role == RoleEvaluated {
			res.Projects++
			res.Facts += len(p.Facts)
		}
	}
	res.Facts /= max(res.Projects, 1)
	brains := make([]*brain.Service, len(opt.Floors))
	for i, f := range opt.Floors {
		cfg := brain.DefaultConfig()
		cfg.TaskFloor = f
		brains[i] = brain.New(st, svc, cfg)
		res.Points = append(res.Points, FloorPoint{Floor: f, Scoped: map[string]int{}})
	}
	plain := brain.New(st, svc, brain.DefaultConfig())
	for _, p := range set.Projects {
		if p.Role != RoleEvaluated {
			continue
		}
		a := memory.Access{Project: p.Project, Actor: "bench"}
		query, err := plain.Banner(ctx, a, brain.BannerRequest{Budget: opt.Budget})
		if err != nil {
			return res, err
		}
		for _, q := range p.Questions {
			want, _ := q.labels(memOf)
			split := q.Split()
			res.Tasks[split]++
			res.Tasks[splitAll]++
			had := reaches(query, want)
			if had {
				res.QueryLess[split]++
				res.QueryLess[splitAll]++
			}
			for i, b := range brains {
				v, err := b.Banner(ctx, a, brain.BannerRequest{Budget: opt.Budget, Task: q.Query})
				if err != nil {
					return res, fmt.Errorf("banner for %s: %w", q.ID, err)
				}
				pt := &res.Points[i]
				if v.TaskMode == brain.TaskWhole && i == 0 {
					res.Whole++
				}
				switch ok := reaches(v, want); {
				case ok:
					pt.Scoped[split]++
					pt.Scoped[splitAll]++
				case had:
					pt.Lost++
				}
			}
		}
		for _, task := range opt.Irrelevant {
			for i, b := range brains {
				v, err := b.Banner(ctx, a, brain.BannerRequest{Budget: opt.Budget, Task: task})
				if err != nil {
					return res, err
				}
				if v.TaskMode == brain.TaskScoped {
					res.Points[i].Added++
					res.Points[i].Facts += float64(shownIn(v, banner.SectionTask))
				}
			}
		}
	}
	for i := range res.Points {
		pt := &res.Points[i]
		if pt.Added > 0 {
			pt.Facts /= float64(pt.Added)
		}
		if pt.Floor == brain.DefaultTaskFloor {
			res.Configured = *pt
		}
	}
	if l.bg.n > 0 {
		return res, errors.New("selection: background recording failed")
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// reaches reports whether every memory in want is among the facts the banner shows.
func reaches(v brain.BannerView, want map[string]bool) bool {
	shown := make(map[string]bool, len(v.Given))
	for _, g := range v.Given {
		shown[g.ID.String()] = true
	}
	for id := range want {
		if !shown[id] {
			return false
		}
	}
	return len(want) > 0
}

// shownIn counts the facts a section shows.
func shownIn(v brain.BannerView, s banner.Section) int {
	n := 0
	for _, g := range v.Given {
		if g.Section == s {
			n++
		}
	}
	return n
}

// measureSelection runs the selection benchmark of cfg in a fresh schema.
func measureSelection(ctx context.Context, cfg Config, emb embedder.Embedder, p progress) (*SelectionResult, error) {
	if cfg.RetrievalDir == "" || cfg.SelectionFiller < 0 {
		return nil, nil
	}
	set, err := LoadRetrievalSet(cfg.RetrievalDir)
	if err != nil {
		return nil, err
	}
	irrelevant, err := LoadIrrelevantTasks(filepath.Join(filepath.Dir(filepath.Clean(cfg.RetrievalDir)), "selection", "irrelevant.json"))
	if err != nil {
		return nil, err
	}
	pool, drop, err := freshSchema(ctx, cfg.DatabaseURL, "bench_selection")
	if err != nil {
		return nil, err
	}
	defer drop()
	res, err := Selection(ctx, pool, emb, cfg.Redact, set, SelectionOptions{Filler: cfg.SelectionFiller, Seed: cfg.Seed + 3, ImportBatch: cfg.ImportBatch, Irrelevant: irrelevant})
	if err != nil {
		return nil, fmt.Errorf("banner selection: %w", err)
	}
	c := res.Configured
	p.logf("banner selection (%d tasks, %d facts per project): needed fact reaches the CLI in %.1f%% query-less, %.1f%% task-scoped (floor %.2f); %d of %d unrelated tasks got a task section",
		res.Tasks[splitAll], res.Facts+res.Filler, 100*share(res.QueryLess[splitAll], res.Tasks[splitAll]),
		100*share(c.Scoped[splitAll], res.Tasks[splitAll]), c.Floor, c.Added, res.Irrelevant*res.Projects)
	return &res, nil
}

func share(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}
