package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/memhost/memhost/host/internal/api/mcpserver"
	"github.com/memhost/memhost/host/internal/core/memory"
)

// The slow-model round puts a real CPU model on the write path (host/bench/use-lite: Universal
// Sentence Encoder lite served as /v1/embeddings, 50-250 ms a text on two cores) and times
// memory_store at the MCP client against the BM25 floor in the same run: two hosts, one with
// the model as its dense embedder and one on the floor, get the same writes, one call each in
// turn. Right after each write to the model's host a search by the fact's words asks whether it
// is found before its vector exists; then the round waits for every vector to follow.

// SlowModel is what the slow-model round measured.
type SlowModel struct {
	Model      string  // the dense embedder's name
	Floor      Latency // memory_store at the client, BM25 floor
	Slow       Latency // memory_store at the client, the CPU model configured
	Pending    int     // writes answered vector_pending
	Folded     int     // restatements folded on the model's host (decided without a vector when pending)
	Restated   int     // restatements written
	Lexical    int     // searches right after a write that found it
	Lag        ServerTime
	Burst      time.Duration // from the preload's last write (a burst) until every memory had its vector
	Converged  time.Duration // from the last timed write until every memory had its vector
	Left       int           // memories without a vector when the round gave up waiting
	ModelStart time.Duration // the model server's start until it answered
	LoadAvg    [2]string
}

// metricLag is the vector follower's lag histogram.
const metricLag = "memhost_memory_vector_lag_seconds"

// slowModelWait bounds the wait for the vectors after the timed writes.
const slowModelWait = 5 * time.Minute

// measureSlowModel runs the slow-model round with the model server cfg.SlowModel starts.
func measureSlowModel(ctx context.Context, cfg Config, p progress) (SlowModel, error) {
	var res SlowModel
	text, err := loadProse(cfg.ProseRoot)
	if err != nil {
		return res, err
	}
	pp := text.project(cfg.Seed + 0x510)
	facts := make([]Fact, 0, cfg.SlowOps+slowPreload)
	for len(facts) < cap(facts) {
		f, ok := pp.fact()
		if !ok {
			break
		}
		facts = append(facts, f)
	}
	if len(facts) <= slowPreload {
		return res, fmt.Errorf("slow model: the prose holds only %d facts", len(facts))
	}
	dir, err := os.MkdirTemp("", "memhost-bench-slow-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)

	url, stop, took, err := startModel(ctx, cfg.SlowModel, dir)
	if err != nil {
		return res, err
	}
	defer stop()
	res.ModelStart = took
	res.Model = "use-lite-512"
	p.logf("slow model: %s answers after %s", cfg.SlowModel, took.Round(time.Millisecond))

	// The model's host takes the fold threshold docs/plugins.md calibrated for it.
	dense := fmt.Sprintf("[embedders.use]\nplugin = \"openaicompat\"\nbase_url = %q\nmodel = \"use-lite\"\ndimensions = 512\n"+
		"[embedder.fold_thresholds]\n%q = 0.50\n", url+"/v1", res.Model)
	var hosts [2]*benchHost
	var pools [2]*pgxpool.Pool
	for i, extra := range []string{"", dense} {
		schema := fmt.Sprintf("bench_slow_%d", i)
		pool, drop, err := freshSchema(ctx, cfg.DatabaseURL, schema)
		if err != nil {
			return res, err
		}
		defer drop()
		pools[i] = pool
		token, err := agentToken(ctx, pool)
		if err != nil {
			return res, err
		}
		hdir := filepath.Join(dir, schema)
		if err := os.MkdirAll(hdir, 0o700); err != nil {
			return res, err
		}
		h, err := startConnected(ctx, cfg, schema, hdir, extra, token)
		if err != nil {
			return res, err
		}
		defer h.stop()
		hosts[i] = h
	}
	floor, slow := hosts[0], hosts[1]
	const project = "github.com/bench-org/slow-model"
	storeOn := func(h *benchHost, f Fact) (memory.StoreResult, time.Duration, error) {
		var out memory.StoreResult
		t := time.Now()
		err := h.call(ctx, mcpserver.ToolStore, map[string]any{"text": f.Text, "kind": string(f.Kind), "project": project, "agent": "bench"}, &out)
		return out, time.Since(t), err
	}
	p.logf("slow model: preloading %d facts into each host", slowPreload)
	for _, f := range facts[:slowPreload] {
		for _, h := range hosts {
			if _, _, err := storeOn(h, f); err != nil {
				return res, err
			}
		}
	}
	burst := time.Now()
	if res.Left, err = awaitVectors(ctx, pools[1], res.Model, burst); err != nil {
		return res, err
	}
	res.Burst = time.Since(burst)
	p.logf("slow model: the preload's vectors followed in %s (%d left)", res.Burst.Round(time.Millisecond), res.Left)
	before, err := slow.scrape(ctx, map[string]string{metricLag: ""})
	if err != nil {
		return res, err
	}
	res.LoadAvg[0] = loadAvg()
	r := rand.New(rand.NewPCG(cfg.Seed, 0x510))
	var floorTimes, slowTimes []time.Duration
	p.logf("slow model: timing %d stores on each host", len(facts)-slowPreload)
	for i, f := range facts[slowPreload:] {
		restated := r.IntN(7) == 0
		held := f.Text // what the memory found by the search holds
		if restated {
			f = facts[r.IntN(slowPreload)]
			held = f.Text // a restatement folds into the fact, which keeps its text
			f.Text = f.Paraphrase
			res.Restated++
		}
		order := []*benchHost{floor, slow}
		if i%2 == 1 {
			order[0], order[1] = slow, floor
		}
		for _, h := range order {
			out, took, err := storeOn(h, f)
			if err != nil {
				return res, err
			}
			if h == floor {
				floorTimes = append(floorTimes, took)
				continue
			}
			slowTimes = append(slowTimes, took)
			if out.VectorPending {
				res.Pending++
			}
			if restated && out.Folded {
				res.Folded++
			}
		}
		// Found at once by its words, vector or not (the search waits for the model to embed
		// the question, as every search on this host does).
		var hits mcpserver.SearchOutput
		if err := slow.call(ctx, mcpserver.ToolSearch, map[string]any{"query": f.Query, "project": project, "top_k": 10}, &hits); err != nil {
			return res, err
		}
		for _, h := range hits.Hits {
			if h.Text == held || h.Text == f.Text {
				res.Lexical++
				break
			}
		}
	}
	last := time.Now()
	res.LoadAvg[1] = loadAvg()
	res.Floor, res.Slow = summarize(floorTimes), summarize(slowTimes)
	p.logf("slow model: store p50 %s (floor %s), %d of %d pending; waiting for the vectors", res.Slow.P50, res.Floor.P50, res.Pending, res.Slow.N)
	if res.Left, err = awaitVectors(ctx, pools[1], res.Model, last); err != nil {
		return res, err
	}
	res.Converged = time.Since(last)
	after, err := slow.scrape(ctx, map[string]string{metricLag: ""})
	if err != nil {
		return res, err
	}
	res.Lag = after[metricLag].since(before[metricLag]).summary()
	p.logf("slow model: every vector stored %s after the last write (%d left); lag p50 %s", res.Converged.Round(time.Millisecond), res.Left, res.Lag.P50)
	return res, nil
}

// awaitVectors waits until every live memory holds a vector of embedder, or slowModelWait has
// passed since since, and returns how many do not.
func awaitVectors(ctx context.Context, pool *pgxpool.Pool, embedder string, since time.Time) (int, error) {
	for {
		var left int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM memories m WHERE archived_at IS NULL
			AND NOT EXISTS (SELECT 1 FROM memory_vectors v WHERE v.memory_id = m.id AND v.embedder = $1)`, embedder).Scan(&left); err != nil {
			return 0, fmt.Errorf("slow model: count memories without a vector: %w", err)
		}
		if left == 0 || time.Since(since) > slowModelWait {
			return left, nil
		}
		select {
		case <-ctx.Done():
			return left, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// slowPreload is how many facts each host holds before the timed writes.
const slowPreload = 100

// startModel starts the model server (command, split on spaces, given a free port as its last
// argument) and waits until it answers GET /v1/models; stop ends it.
func startModel(ctx context.Context, command, dir string) (url string, stop func(), took time.Duration, err error) {
	args := strings.Fields(command)
	if len(args) == 0 {
		return "", nil, 0, fmt.Errorf("slow model: no command")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, 0, err
	}
	port := fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
	_ = ln.Close()
	logs, err := os.Create(filepath.Join(dir, "model.log"))
	if err != nil {
		return "", nil, 0, err
	}
	cmd := exec.Command(args[0], append(args[1:], port)...)
	cmd.Stdout, cmd.Stderr = logs, logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		_ = logs.Close()
		return "", nil, 0, fmt.Errorf("slow model: start %s: %w", command, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); _ = logs.Close(); close(done) }()
	stop = func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}
	url = "http://127.0.0.1:" + port
	for {
		if resp, err := http.Get(url + "/v1/models"); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url, stop, time.Since(start), nil
			}
		}
		select {
		case <-done:
			log, _ := os.ReadFile(filepath.Join(dir, "model.log"))
			return "", nil, 0, fmt.Errorf("slow model: %s exited while starting:\n%s", command, log)
		case <-ctx.Done():
			stop()
			return "", nil, 0, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// slowModelMethod says how the slow-model round runs.
const slowModelMethod = `Two real hosts, one with the BM25 floor and one with a real CPU model as its dense embedder
(host/bench/use-lite: Universal Sentence Encoder lite served as an OpenAI-compatible
/v1/embeddings by Node, 50-250 ms a text on two cores; fold threshold 0.50 as docs/plugins.md
calibrates it), get the same writes through MCP, one call each in turn (the shared round's
prose; one write in seven restates a preloaded fact). Right after each write the model's host is
searched by the fact's words (a search still embeds its question, so it takes the model's time);
then the round waits until every memory holds its vector. The preload's vectors are awaited
before the timed writes begin. The lag is the host's memhost_memory_vector_lag_seconds
histogram over the timed writes: from a write stored without its vector to the vector stored.
`

// renderSlowModel writes the slow-model round.
func renderSlowModel(b *strings.Builder, s SlowModel, note func(string, ...any)) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("\n## A slow CPU model on the write path (%s)\n\n", s.Model)
	w(slowModelMethod)
	r := ratio(s.Slow.P50, s.Floor.P50)
	w("\n| at the MCP client | target | measured | |\n| --- | --- | --- | --- |\n")
	w("| memory_store p50 / p99, BM25 floor (%d writes) | | %s / %s | |\n", s.Floor.N, ms(s.Floor.P50), ms(s.Floor.P99))
	w("| memory_store p50 / p99, %s configured | | %s / %s | |\n", s.Model, ms(s.Slow.P50), ms(s.Slow.P99))
	w("| store p50 with the model / on the floor | <= 2.0x | %.2fx | %s |\n", r, verdict(r <= 2))
	w("| writes answered before their vector (vector_pending) | | %d of %d | |\n", s.Pending, s.Slow.N)
	w("| restatements folded on the model's host | | %d of %d | |\n", s.Folded, s.Restated)
	w("| a search by the fact's words right after its write found it | | %d of %d | |\n", s.Lexical, s.Slow.N)
	w("| vector lag (write to vector stored): mean / p50 / p99 | within seconds | %s / %s / %s | %s |\n", ms(s.Lag.Mean), ms(s.Lag.P50), ms(s.Lag.P99), verdict(s.Left == 0 && s.Lag.P99 <= targetVectorLag))
	w("| every memory held its vector after the last timed write | | %s (%d left) | |\n", s.Converged.Round(time.Millisecond), s.Left)
	w("| - after the preload's %d writes in a burst (before the timed writes) | | %s | |\n", slowPreload, s.Burst.Round(time.Millisecond))
	w("| the model server's start until it answered | | %s | |\n", s.ModelStart.Round(time.Millisecond))
	w("| machine load (1/5/15-min load average) before / after the timed calls | | %s / %s | |\n", s.LoadAvg[0], s.LoadAvg[1])
	if r > 2 {
		note("Slow model on the write path: memory_store p50 %.2fx the floor's (target <= 2x).", r)
	}
	if s.Left > 0 || s.Lag.P99 > targetVectorLag {
		note("Slow model: %d memories still lacked their vector %s after the last write; lag p99 %s.", s.Left, s.Converged.Round(time.Second), ms(s.Lag.P99))
	}
}
