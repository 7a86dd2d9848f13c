package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memhost/memhost/host/internal/api/mcpserver"
)

// The peers round drives memhost and @ai-devkit/memory (SQLite + FTS5, an MCP server over
// stdio; host/bench/peers pins it) through their MCP servers with the same writes and the
// same questions, one call each in turn, so both meet the same machine at the same moment:
// on 2 shared cores a comparison of two runs minutes apart measures the neighbours' builds.
// memhost is reached twice: over streamable HTTP, as `memhost run` gives a CLI its tools, and
// through `memhost mcp`, the stdio forwarder `memhost connect` registers in each CLI. A second
// host, configured with memory.flush_writes = false (the durability an operator may trade
// away, which the peer's SQLite in WAL mode with synchronous=NORMAL matches), gets the same
// calls over HTTP, so the comparison is made both ways.

// Peers is what the peers round measured.
type Peers struct {
	Peer       string     // the peer's name and version
	Preloaded  int        // facts each side held before the timed calls
	Sides      []PeerSide // memhost's default (both surfaces, then each), its opt-in, the peer
	OptIn      int        // the index in Sides of the host with memory.flush_writes = false
	Rejected   int        // timed writes the peer refused: duplicates (it does not fold), texts it calls generic
	LoadAvg    [2]string  // /proc/loadavg before and after the timed calls
	StoreSvc   ServerTime
	SearchSvc  ServerTime
	Paraphrase int // restatements among the timed writes
	Folded     int // of which memhost folded
}

// PeerSide is one MCP server's timed calls.
type PeerSide struct {
	Name    string
	Store   Latency
	Search  Latency
	SelfHit int // searches whose source fact came back in the top 10
}

// peerSide is one MCP server the round calls.
type peerSide struct {
	name    string
	session *mcp.ClientSession
	// store and search call the side's tool; took is the call's own time at the client,
	// without the bench's reading of the answer.
	store   func(ctx context.Context, f Fact) (folded bool, took time.Duration, err error)
	search  func(ctx context.Context, f Fact) (hit bool, took time.Duration, err error)
	stores  []time.Duration
	queries []time.Duration
	selfHit int
}

// Tool names and limits of @ai-devkit/memory 0.20 (its server.js and validate.js).
const (
	peerStoreTool  = "memory_storeKnowledge"
	peerSearchTool = "memory_searchKnowledge"
	peerTitleMax   = 100
	peerContentMin = 50
	peerScope      = "project:bench-peers" // its scope names allow [a-z0-9_-]
	peersProject   = "github.com/bench-org/peers"
)

// measurePeers runs the peers round: preload both sides with the same facts, then time
// cfg.PeerOps stores and as many searches, alternating the side that goes first.
func measurePeers(ctx context.Context, cfg Config, p progress) (Peers, error) {
	res := Peers{Preloaded: cfg.PeerPreload}
	text, err := loadProse(cfg.ProseRoot)
	if err != nil {
		return res, err
	}
	// Every side stores the same texts; the peer wants 50 characters of content at least.
	pp := text.project(cfg.Seed + 0x9ee5)
	var facts []Fact
	for len(facts) < cfg.PeerPreload+cfg.PeerOps {
		f, ok := pp.fact()
		if !ok {
			return res, fmt.Errorf("peers: the prose holds fewer than %d facts of %d characters", cfg.PeerPreload+cfg.PeerOps, peerContentMin)
		}
		if len(f.Text) >= peerContentMin && len(f.Paraphrase) >= peerContentMin {
			facts = append(facts, f)
		}
	}
	preload, fresh := facts[:cfg.PeerPreload], facts[cfg.PeerPreload:]

	pool, drop, err := freshSchema(ctx, cfg.DatabaseURL, "bench_peers")
	if err != nil {
		return res, err
	}
	defer drop()
	home, cleanup, err := newHostHome(ctx, pool, "peers")
	if err != nil {
		return res, err
	}
	defer cleanup()
	dir, token := home.dir, home.agent
	host, err := startConnected(ctx, cfg, "bench_peers", dir, "", token)
	if err != nil {
		return res, err
	}
	defer host.stop()
	httpSession, err := host.open(ctx, token, nil)
	if err != nil {
		return res, err
	}
	defer httpSession.Close()
	httpSide := memhostSide("memhost (streamable HTTP, as memhost run)", httpSession)
	optIn, dropOptIn, err := startOptIn(ctx, cfg, dir)
	if err != nil {
		return res, err
	}
	defer dropOptIn()
	defer optIn.stop()
	optInSession, err := optIn.open(ctx, optIn.token, nil)
	if err != nil {
		return res, err
	}
	defer optInSession.Close()
	optInSide := memhostSide("memhost with memory.flush_writes = false (streamable HTTP)", optInSession)
	stdioSession, err := connectStdio(ctx, exec.Command(cfg.HostPath, "mcp", "--config", filepath.Join(dir, "memhost.toml"), "--project", peersProject), dir)
	if err != nil {
		return res, fmt.Errorf("memhost mcp: %w", err)
	}
	defer stdioSession.Close()
	stdioSide := memhostSide("memhost (memhost mcp over stdio, as memhost connect)", stdioSession)
	peer, err := startPeer(ctx, cfg.PeerCommand, dir)
	if err != nil {
		return res, err
	}
	defer peer.session.Close()
	res.Peer = peerName(cfg.PeerCommand)
	sides := []*peerSide{httpSide, stdioSide, optInSide, peer}

	// Both servers get the same preload through their tools (the peer has no bulk import);
	// memhost's two sides share one host and one project, so it is stored once.
	p.logf("peers: preloading %d facts into memhost and %s", len(preload), res.Peer)
	for _, f := range preload {
		if _, _, err := httpSide.store(ctx, f); err != nil {
			return res, err
		}
		if _, _, err := optInSide.store(ctx, f); err != nil {
			return res, err
		}
		if _, _, err := peer.store(ctx, f); err != nil && !isPeerRefusal(err) {
			return res, err
		}
	}
	// Warm-up searches on every side: first plans, connections and code paths.
	for i := range 20 {
		for _, s := range sides {
			if _, _, err := s.search(ctx, preload[i]); err != nil {
				return res, err
			}
		}
	}

	r := rand.New(rand.NewPCG(cfg.Seed, 0x9ee5))
	before, err := host.scrape(ctx, scraped)
	if err != nil {
		return res, err
	}
	res.LoadAvg[0] = loadAvg()
	p.logf("peers: timing %d stores and %d searches on each of %d servers", cfg.PeerOps, cfg.PeerOps, len(sides))
	// Each write goes to memhost over one of its two surfaces (in turn: one host holds one
	// copy), to the opt-in host and to the peer, in an order that rotates (inTurn), so none
	// always runs last.
	for i, f := range fresh {
		restatement := r.IntN(7) == 0
		if restatement {
			f = preload[r.IntN(len(preload))]
			f.Text = f.Paraphrase
			res.Paraphrase++
		}
		for _, s := range inTurn(i, sides[i%2], optInSide, peer) {
			folded, took, err := s.store(ctx, f)
			s.stores = append(s.stores, took)
			switch {
			case s == peer && isPeerRefusal(err):
				res.Rejected++
			case err != nil:
				return res, err
			case folded && restatement && s != optInSide:
				res.Folded++
			}
		}
	}
	mid, err := host.scrape(ctx, scraped)
	if err != nil {
		return res, err
	}
	all := append(append([]Fact(nil), preload...), fresh...)
	for i := range cfg.PeerOps {
		f := all[r.IntN(len(all))]
		for _, s := range inTurn(i, sides[i%2], optInSide, peer) {
			hit, took, err := s.search(ctx, f)
			s.queries = append(s.queries, took)
			if err != nil {
				return res, err
			}
			if hit {
				s.selfHit++
			}
		}
	}
	after, err := host.scrape(ctx, scraped)
	if err != nil {
		return res, err
	}
	res.LoadAvg[1] = loadAvg()
	res.StoreSvc = mid[metricStore].since(before[metricStore]).summary()
	res.SearchSvc = after[metricSearch].since(mid[metricSearch]).summary()
	// The two memhost surfaces reach one host; together they are memhost's row.
	both := &peerSide{name: "memhost, both surfaces", stores: append(append([]time.Duration(nil), httpSide.stores...), stdioSide.stores...),
		queries: append(append([]time.Duration(nil), httpSide.queries...), stdioSide.queries...), selfHit: httpSide.selfHit + stdioSide.selfHit}
	res.OptIn = 3
	for _, s := range []*peerSide{both, httpSide, stdioSide, optInSide, peer} {
		res.Sides = append(res.Sides, PeerSide{Name: s.name, Store: summarize(s.stores), Search: summarize(s.queries), SelfHit: s.selfHit})
	}
	m, o, pe := res.Sides[0], res.Sides[res.OptIn], res.Sides[len(res.Sides)-1]
	p.logf("peers: store p50 %s (flush_writes = false: %s) vs %s (%.2fx, %.2fx), p99 %s vs %s; search p50 %s vs %s (%.2fx)", m.Store.P50, o.Store.P50, pe.Store.P50,
		ratio(m.Store.P50, pe.Store.P50), ratio(o.Store.P50, pe.Store.P50), m.Store.P99, pe.Store.P99, m.Search.P50, pe.Search.P50, ratio(m.Search.P50, pe.Search.P50))
	return res, nil
}

// startOptIn starts the round's second memhost host, on a schema of its own, configured with
// memory.flush_writes = false, and connects to it over streamable HTTP. drop removes the
// schema once the host has stopped.
func startOptIn(ctx context.Context, cfg Config, dir string) (host *benchHost, drop func(), err error) {
	const schema = "bench_peers_unflushed"
	pool, drop, err := freshSchema(ctx, cfg.DatabaseURL, schema)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if err != nil {
			drop()
		}
	}()
	token, err := agentToken(ctx, pool)
	if err != nil {
		return nil, nil, err
	}
	hdir := filepath.Join(dir, "flush-writes-false")
	if err = os.MkdirAll(hdir, 0o700); err != nil {
		return nil, nil, err
	}
	if host, err = startConnected(ctx, cfg, schema, hdir, "[memory]\nflush_writes = false\n", token); err != nil {
		return nil, nil, fmt.Errorf("memhost with flush_writes = false: %w", err)
	}
	return host, drop, nil
}

// inTurn is the order of call i's sides: the first side of one call is the last of the next,
// so each goes first, in the middle and last equally often.
func inTurn(i int, sides ...*peerSide) []*peerSide {
	out := make([]*peerSide, len(sides))
	for j := range sides {
		out[j] = sides[(i+j)%len(sides)]
	}
	return out
}

// memhostSide calls memhost's tools on session, a session like a coding CLI's (no structured
// output asked for), and reads the answers' text as the model would.
func memhostSide(name string, session *mcp.ClientSession) *peerSide {
	s := &peerSide{name: name, session: session}
	s.store = func(ctx context.Context, f Fact) (bool, time.Duration, error) {
		text, took, err := callTool(ctx, session, mcpserver.ToolStore, map[string]any{"text": f.Text, "kind": string(f.Kind), "project": peersProject, "agent": "bench"})
		return strings.HasPrefix(text, "Folded into") || strings.HasPrefix(text, "Already known"), took, err
	}
	s.search = func(ctx context.Context, f Fact) (bool, time.Duration, error) {
		text, took, err := callTool(ctx, session, mcpserver.ToolSearch, map[string]any{"query": f.Query, "project": peersProject, "top_k": 10})
		// Each hit is a line "N. [kind] text (id ..., score ...)".
		return strings.Contains(text, "] "+f.Text+" (id ") || strings.Contains(text, "] "+f.Paraphrase+" (id "), took, err
	}
	return s
}

// startPeer starts the peer's MCP server (command, split on spaces: e.g. "node
// .../dist/index.js") with a home of its own under dir, so it opens a fresh SQLite database.
func startPeer(ctx context.Context, command, dir string) (*peerSide, error) {
	args := strings.Fields(command)
	if len(args) == 0 {
		return nil, fmt.Errorf("peers: no peer command")
	}
	home := filepath.Join(dir, "peer-home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, err
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = home // its semantic option is read from .ai-devkit.json here: none, so FTS5 alone
	cmd.Env = append(os.Environ(), "HOME="+home)
	session, err := connectStdio(ctx, cmd, dir)
	if err != nil {
		return nil, fmt.Errorf("peer %s: %w", command, err)
	}
	scope := peerScope
	s := &peerSide{name: "@ai-devkit/memory (stdio)", session: session}
	s.store = func(ctx context.Context, f Fact) (bool, time.Duration, error) {
		_, took, err := callTool(ctx, session, peerStoreTool, map[string]any{"title": peerTitle(f.Text), "content": f.Text, "scope": scope})
		return false, took, err
	}
	s.search = func(ctx context.Context, f Fact) (bool, time.Duration, error) {
		text, took, err := callTool(ctx, session, peerSearchTool, map[string]any{"query": f.Query, "scope": scope, "limit": 10})
		if err != nil {
			return false, took, err
		}
		var out struct {
			Results []struct {
				Content string `json:"content"`
			} `json:"results"`
		}
		if err := json.Unmarshal([]byte(text), &out); err != nil {
			return false, took, fmt.Errorf("%s: decode the answer: %w", peerSearchTool, err)
		}
		for _, h := range out.Results {
			if h.Content == f.Text || h.Content == f.Paraphrase {
				return true, took, nil
			}
		}
		return false, took, nil
	}
	return s, nil
}

// connectStdio starts cmd as an MCP server over stdio, its stderr in dir's log, and connects
// as a coding CLI does (no structured output asked for).
func connectStdio(ctx context.Context, cmd *exec.Cmd, dir string) (*mcp.ClientSession, error) {
	logs, err := os.OpenFile(filepath.Join(dir, filepath.Base(cmd.Path)+".stderr.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	cmd.Stderr = logs
	if cmd.Env == nil {
		// memhost mcp keeps its minted token in the user's cache: the run's own.
		cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"))
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "memhost-bench", Version: "1"}, nil)
	return c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
}

// callTool calls a tool and returns its first text content and how long the call took at the
// client (the answer received and parsed by the MCP client; reading it is the caller's). A
// tool error is an error carrying the server's text.
func callTool(ctx context.Context, s *mcp.ClientSession, tool string, args map[string]any) (string, time.Duration, error) {
	start := time.Now()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	took := time.Since(start)
	if err != nil {
		return "", took, fmt.Errorf("%s: %w", tool, err)
	}
	var text string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			text = t.Text
			break
		}
	}
	if res.IsError {
		return "", took, fmt.Errorf("%s: tool error: %s", tool, text)
	}
	return text, took, nil
}

// peerName is the peer's package name and version, from the package.json beside the dist
// folder its command runs (its MCP server reports a version of its own, 0.1.0).
func peerName(command string) string {
	name := "@ai-devkit/memory"
	for _, arg := range strings.Fields(command) {
		raw, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(arg)), "package.json"))
		if err != nil {
			continue
		}
		var pkg struct{ Name, Version string }
		if json.Unmarshal(raw, &pkg) == nil && pkg.Name != "" {
			return pkg.Name + " " + pkg.Version
		}
	}
	return name
}

// isPeerRefusal is the peer's refusal of a write: a title or content it holds
// (DUPLICATE_ERROR), or a text its rules call generic (VALIDATION_ERROR, e.g. one that starts
// with "todo"). It answers at once, and the call is timed like any other.
func isPeerRefusal(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "DUPLICATE") || strings.Contains(err.Error(), "VALIDATION_ERROR"))
}

// peerTitle is the peer's required title (10-100 characters): the text, cut at a word
// before the limit.
func peerTitle(text string) string {
	if len(text) <= peerTitleMax {
		return text
	}
	cut := text[:peerTitleMax]
	if i := strings.LastIndexByte(cut, ' '); i >= 10 {
		cut = cut[:i]
	}
	return cut
}

// ratio is a / b, 0 when b is 0.
func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
