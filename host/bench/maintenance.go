package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/memhost/memhost/host/internal/api/mcpserver"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/sdk/embedder"
)

// maintenanceJobs is one full maintenance pass, in the order an operator would run it by
// hand: merge duplicates first, so the conflict scan reads one statement of each fact.
var maintenanceJobs = []string{"consolidate", "conflicts", "stale", "dormancy", "journal", "purge"}

// maintenanceDupShare is the share of each project's sampled facts stored a second time,
// reworded, as if the write-time fold had missed them: the work consolidation exists for.
const maintenanceDupShare = 0.05

// MaintenanceBench is one full maintenance pass over a database shared by many projects,
// run by a real host with a worker chain (memhost-worker-openaicompat in front of a stand-in
// chat model that answers at once), and what agents' calls cost while it runs.
type MaintenanceBench struct {
	Memories, Projects, Duplicates int
	Jobs                           []MaintenanceJobRun
	Wall                           time.Duration // the whole pass
	// ModelCalls is what the stand-in model answered (the worker's retries included).
	ModelCalls int64
	Merges     MergeCounts
	// Idle and Busy are memory_store and memory_search at the MCP client with no job running
	// and while the pass runs.
	IdleStore, IdleSearch, BusyStore, BusySearch Latency
}

// MaintenanceJobRun is one job's run in the pass, as POST /api/v1/maintenance/{job}/run
// reported it.
type MaintenanceJobRun struct {
	Job               string
	Wall              time.Duration
	Outcome           string
	Examined, Changed int64
	LLMCalls, Tokens  int64
}

// MergeCounts is how many memories the pass merged away, without a model and by the merge
// chain, read from the merge history it wrote.
type MergeCounts struct {
	Deterministic, Model int
}

// measureMaintenance loads cfg.MaintenanceTotal memories over the shared layout's projects
// into a schema of its own, stores a reworded second copy of some facts, starts a host whose
// periodic jobs are off, times agents' calls idle, then runs every job once across all
// projects while timing the same calls.
func measureMaintenance(ctx context.Context, cfg Config, emb embedder.Embedder, info embedder.Info, p progress) (MaintenanceBench, error) {
	var res MaintenanceBench
	text, err := loadProse(cfg.ProseRoot)
	if err != nil {
		return res, err
	}
	plan := sharedLayout(cfg.MaintenanceTotal, cfg.Seed+7)
	projects := make([]*sharedProject, len(plan))
	for i := range plan {
		plan[i].prose = text.project(cfg.Seed + 7 + uint64(i))
		plan[i].fresh = plan[i].prose.hold(sharedHeld)
		projects[i] = &plan[i]
		res.Memories += plan[i].size
	}
	res.Projects = len(projects)
	lcfg := cfg
	lcfg.ReuseShared, lcfg.KeepShared = false, false
	var loaded Shared
	loaded.Layout.ByClass, loaded.Layout.Total = map[string]int{}, res.Memories
	pool, st, release, err := loadSharedLayout(ctx, lcfg, "bench_maintenance", emb, info, projects, &loaded, p)
	if err != nil {
		return res, err
	}
	defer release()
	if res.Duplicates, err = storeRewordings(ctx, st, emb, info, projects); err != nil {
		return res, err
	}
	res.Memories += res.Duplicates
	p.logf("maintenance: %d memories in %d projects, %d of them reworded copies the fold missed", res.Memories, res.Projects, res.Duplicates)

	chat := newChatFake()
	defer chat.close()
	home, cleanup, err := newHostHome(ctx, pool, "maint")
	if err != nil {
		return res, err
	}
	defer cleanup()
	dir, agent, admin := home.dir, home.agent, home.admin
	extra := fmt.Sprintf("[workers.bench]\nplugin = \"openaicompat\"\nbase_url = %q\nmodel = \"bench-fake\"\n"+
		"[workers.chains]\nmerge = [\"bench\"]\nconflicts = [\"bench\"]\n", chat.url())
	for _, job := range maintenanceJobs {
		// Runs by hand only: a periodic run at boot would land in the idle timings.
		extra += fmt.Sprintf("[maintenance.%s]\nenabled = false\n", job)
	}
	host, err := startConnected(ctx, cfg, "bench_maintenance", dir, extra, agent)
	if err != nil {
		return res, err
	}
	defer host.stop()
	r := rand.New(rand.NewPCG(cfg.Seed, 0x3a1a))
	idle := agentLoad{host: host, projects: projects, r: r}
	for range cfg.SharedOps {
		if err := idle.step(ctx); err != nil {
			return res, err
		}
	}
	res.IdleStore, res.IdleSearch = summarize(idle.stores), summarize(idle.searches)
	p.logf("maintenance: idle store p99 %s, search p99 %s; running the pass", res.IdleStore.P99, res.IdleSearch.P99)

	done := make(chan error, 1)
	start := time.Now()
	go func() {
		for _, job := range maintenanceJobs {
			run, err := runJob(ctx, host.url, admin, job)
			if err != nil {
				done <- err
				return
			}
			res.Jobs = append(res.Jobs, run)
			p.logf("maintenance: %s %s in %s: examined %d, changed %d, %d LLM calls, %d tokens", job, run.Outcome,
				run.Wall.Round(time.Millisecond), run.Examined, run.Changed, run.LLMCalls, run.Tokens)
		}
		done <- nil
	}()
	busy := agentLoad{host: host, projects: projects, r: r}
	for running := true; running; {
		select {
		case err := <-done:
			if err != nil {
				return res, fmt.Errorf("maintenance pass: %w\n%s", err, host.tail())
			}
			running = false
		default:
			if err := busy.step(ctx); err != nil {
				return res, err
			}
		}
	}
	res.Wall = time.Since(start)
	res.BusyStore, res.BusySearch = summarize(busy.stores), summarize(busy.searches)
	res.ModelCalls = chat.calls.Load()
	if res.Merges, err = mergeCounts(ctx, pool); err != nil {
		return res, err
	}
	return res, nil
}

// mergeCounts reads how the pass merged from the history rows it wrote: each merge row names
// its method and the memories it absorbed.
func mergeCounts(ctx context.Context, pool *pgxpool.Pool) (MergeCounts, error) {
	var c MergeCounts
	rows, err := pool.Query(ctx, `SELECT detail->>'method' = 'deterministic', coalesce(sum(jsonb_array_length(detail->'absorbed')), 0)
		FROM memory_history WHERE event = 'merge' GROUP BY 1`)
	if err != nil {
		return c, fmt.Errorf("count merges: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var deterministic *bool
		var n int
		if err := rows.Scan(&deterministic, &n); err != nil {
			return c, fmt.Errorf("count merges: %w", err)
		}
		if deterministic != nil && *deterministic {
			c.Deterministic += n
		} else {
			c.Model += n
		}
	}
	return c, rows.Err()
}

// storeRewordings stores a reworded copy of maintenanceDupShare of each project's sampled
// facts straight into the store, as a separate memory: what the write-time fold let through.
func storeRewordings(ctx context.Context, st store.Store, emb embedder.Embedder, info embedder.Info, projects []*sharedProject) (int, error) {
	var recs []store.ExportRecord
	var texts []string
	now := time.Now().UTC()
	for _, pr := range projects {
		n := int(float64(len(pr.facts)) * maintenanceDupShare)
		for _, f := range pr.facts[:n] {
			if f.Paraphrase == "" || f.Paraphrase == f.Text {
				continue
			}
			texts = append(texts, f.Paraphrase)
			recs = append(recs, store.ExportRecord{Memory: store.Memory{ID: uuid.Must(uuid.NewV7()), Scope: store.ScopeProject, ScopeKey: pr.key,
				Kind: f.Kind, Text: f.Paraphrase, Importance: 0.5, Confidence: 0.8, Embedder: info.Name, CreatedAt: now, UpdatedAt: now,
				Provenance: store.Provenance{Agent: "bench", Source: "import"}}})
		}
	}
	vecs, err := embedAll(ctx, emb, info, embedder.PurposeDocument, texts)
	if err != nil {
		return 0, err
	}
	for i := range recs {
		recs[i].Vector = store.Vector{Embedder: info.Name, Dimensions: info.Dimensions, Values: vecs[i]}
	}
	if _, err := st.Import(ctx, recs); err != nil {
		return 0, fmt.Errorf("store rewordings: %w", err)
	}
	return len(recs), nil
}

// agentLoad is an agent's calls at the MCP client: a store of a new fact, then a search for
// a fact the project holds, against a random project each.
type agentLoad struct {
	host             *benchHost
	projects         []*sharedProject
	r                *rand.Rand
	stores, searches []time.Duration
	// large is, for each call pair, whether it went to the large project (classLarge).
	large []bool
}

func (a *agentLoad) step(ctx context.Context) error {
	m := a.projects[a.r.IntN(len(a.projects))]
	if len(m.fresh) == 0 {
		return fmt.Errorf("project %s: no new facts left for timed writes", m.key)
	}
	f := m.fresh[0]
	m.fresh = m.fresh[1:]
	t := time.Now()
	if err := a.host.call(ctx, mcpserver.ToolStore, map[string]any{"text": f.Text, "kind": string(f.Kind), "project": m.key, "agent": "bench"}, &memory.StoreResult{}); err != nil {
		return err
	}
	a.stores = append(a.stores, time.Since(t))
	q := m.facts[a.r.IntN(len(m.facts))]
	t = time.Now()
	if err := a.host.call(ctx, mcpserver.ToolSearch, map[string]any{"query": q.Query, "project": m.key, "top_k": 10}, &mcpserver.SearchOutput{}); err != nil {
		return err
	}
	a.searches = append(a.searches, time.Since(t))
	a.large = append(a.large, m.class == classLarge)
	return nil
}

// runJob runs one job across every project through the admin API, as `memhost maintenance
// run JOB` does, and reads what it did.
func runJob(ctx context.Context, base, token, job string) (MaintenanceJobRun, error) {
	out := MaintenanceJobRun{Job: job}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/v1/maintenance/"+job+"/run", nil)
	if err != nil {
		return out, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return out, fmt.Errorf("run %s: %w", job, err)
	}
	defer resp.Body.Close()
	out.Wall = time.Since(start)
	var rep struct {
		Run struct {
			Outcome  string `json:"outcome"`
			Error    string `json:"error"`
			Examined int64  `json:"examined"`
			Changed  int64  `json:"changed"`
			LLMCalls int64  `json:"llm_calls"`
			Tokens   int64  `json:"tokens"`
		} `json:"run"`
		Items []struct {
			Action string `json:"action"`
			Reason string `json:"reason"`
		} `json:"items"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&rep); err != nil {
		return out, fmt.Errorf("run %s: HTTP %d: %w", job, resp.StatusCode, err)
	}
	if resp.StatusCode != http.StatusOK {
		msg := ""
		if rep.Error != nil {
			msg = rep.Error.Message
		}
		return out, fmt.Errorf("run %s: HTTP %d: %s", job, resp.StatusCode, msg)
	}
	out.Outcome, out.Examined, out.Changed, out.LLMCalls, out.Tokens = rep.Run.Outcome, rep.Run.Examined, rep.Run.Changed, rep.Run.LLMCalls, rep.Run.Tokens
	if rep.Run.Error != "" {
		out.Outcome += ": " + rep.Run.Error
	}
	return out, nil
}
