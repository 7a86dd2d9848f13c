package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/wire"
)

// benchHost is one `memhost serve` process the benchmark started, and an MCP client session
// to it: what an agent's CLI holds.
type benchHost struct {
	url     string
	cmd     *exec.Cmd
	done    chan error
	logPath string
	session *mcp.ClientSession
	token   string // the session's bearer token
	stopped sync.Once
}

// startHost writes a config for dbURL (a schema of the bench database) and a free port, runs
// the host binary and waits until /readyz says ready: migrations checked, the plugin started,
// the lexical index rebuilt from the change feed.
func startHost(ctx context.Context, bin, dbURL, pluginDir, dir string) (*benchHost, error) {
	return startHostWith(ctx, bin, dbURL, pluginDir, dir, "")
}

// startConnected starts a host of cfg's binary and plugins on the bench database's schema (see
// startHostWith) with its MCP session open as token; the caller stops it.
func startConnected(ctx context.Context, cfg Config, schema, dir, extra, token string) (*benchHost, error) {
	h, err := startHostWith(ctx, cfg.HostPath, withSearchPath(cfg.DatabaseURL, schema), filepath.Dir(cfg.PluginPath), dir, extra)
	if err != nil {
		return nil, err
	}
	if err := h.connect(ctx, token); err != nil {
		h.stop()
		return nil, err
	}
	return h, nil
}

// agentToken mints the read and write token the bench's MCP client calls a host with, as an
// agent's would be.
func agentToken(ctx context.Context, pool *pgxpool.Pool) (string, error) {
	return mintToken(ctx, pool, "bench", auth.ScopeRead, auth.ScopeWrite)
}

// mintToken mints a token of scopes, named for what holds it.
func mintToken(ctx context.Context, pool *pgxpool.Pool, name string, scopes ...auth.Scope) (string, error) {
	token, _, err := auth.NewTokens(pool).Create(ctx, auth.CreateToken{Name: name, Scopes: scopes})
	if err != nil {
		return "", fmt.Errorf("create token: %w", err)
	}
	return token, nil
}

// hostHome is what a bench host runs with: its folder, the token its MCP client calls it with
// (an agent's: read, write) and an operator's (admin) for the admin API.
type hostHome struct {
	dir, agent, admin string
}

// newHostHome makes the folder of a host (named for the bench) and mints its tokens; cleanup
// removes the folder.
func newHostHome(ctx context.Context, pool *pgxpool.Pool, bench string) (hostHome, func(), error) {
	dir, err := os.MkdirTemp("", "memhost-bench-"+bench+"-")
	if err != nil {
		return hostHome{}, nil, err
	}
	h := hostHome{dir: dir}
	if h.agent, err = agentToken(ctx, pool); err == nil {
		h.admin, err = mintToken(ctx, pool, "bench-operator", auth.ScopeAdmin)
	}
	if err != nil {
		_ = os.RemoveAll(dir)
		return hostHome{}, nil, err
	}
	return h, func() { _ = os.RemoveAll(dir) }, nil
}

// startHostWith is startHost with more configuration (TOML tables after the bench's own).
func startHostWith(ctx context.Context, bin, dbURL, pluginDir, dir, extra string) (*benchHost, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("find a free port: %w", err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		return nil, err
	}
	cfg := filepath.Join(dir, "memhost.toml")
	// One token drives every call as fast as the host answers (hundreds a second): no
	// per-token rate limit may throttle what is measured.
	body := fmt.Sprintf("[server]\nlisten = %q\n[database]\nurl = %q\n[plugins]\ndirs = [%q]\n[auth]\nwrite_rate_per_minute = 0\nread_rate_per_minute = 0\n[log]\nlevel = \"warn\"\n",
		addr, dbURL, pluginDir) + extra
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		return nil, fmt.Errorf("write host config: %w", err)
	}
	h := &benchHost{url: "http://" + addr, logPath: filepath.Join(dir, "memhost.log"), done: make(chan error, 1)}
	logs, err := os.Create(h.logPath)
	if err != nil {
		return nil, err
	}
	h.cmd = exec.Command(bin, "serve", "--config", cfg)
	h.cmd.Stdout, h.cmd.Stderr = logs, logs
	if err := h.cmd.Start(); err != nil {
		_ = logs.Close()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	go func() {
		h.done <- h.cmd.Wait()
		_ = logs.Close()
	}()
	for {
		if resp, err := http.Get(h.url + "/readyz"); err == nil {
			var r struct{ Status string }
			_ = json.NewDecoder(resp.Body).Decode(&r)
			_ = resp.Body.Close()
			if r.Status == "ready" {
				return h, nil
			}
		}
		select {
		case err := <-h.done:
			return nil, fmt.Errorf("memhost exited while starting (%v):\n%s", err, h.tail())
		case <-ctx.Done():
			h.stop()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// connect opens the MCP session an agent would: streamable HTTP with a bearer token. The bench
// reads structured output, which a client gets only by asking for it.
func (h *benchHost) connect(ctx context.Context, token string) error {
	cs, err := h.open(ctx, token, wire.StructuredClient())
	if err != nil {
		return err
	}
	h.session, h.token = cs, token
	return nil
}

// open opens a session with caps over streamable HTTP: nil caps are a coding CLI's (Claude
// Code, Codex and Gemini CLI ask for no structured output, so they get the text alone).
func (h *benchHost) open(ctx context.Context, token string, caps *mcp.ClientCapabilities) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "memhost-bench", Version: "1"}, &mcp.ClientOptions{Capabilities: caps})
	tr := &mcp.StreamableClientTransport{Endpoint: h.url + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}}, MaxRetries: -1}
	cs, err := c.Connect(ctx, tr, nil)
	if err != nil {
		return nil, fmt.Errorf("connect MCP client: %w", err)
	}
	return cs, nil
}

// call calls a tool and decodes its structured output into out; a tool error is an error.
func (h *benchHost) call(ctx context.Context, tool string, args map[string]any, out any) error {
	res, err := h.session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return fmt.Errorf("%s: %w", tool, err)
	}
	if res.IsError {
		var msg []string
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				msg = append(msg, t.Text)
			}
		}
		return fmt.Errorf("%s: tool error: %s", tool, strings.Join(msg, " "))
	}
	if out == nil {
		return nil
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, out)
}

// stop ends the session and the host (SIGTERM, then SIGKILL after 30 s); later calls do
// nothing.
func (h *benchHost) stop() {
	h.stopped.Do(func() {
		if h.session != nil {
			_ = h.session.Close()
		}
		_ = h.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-h.done:
		case <-time.After(30 * time.Second):
			_ = h.cmd.Process.Kill()
			<-h.done
		}
	})
}

// tail is the end of the host's log, for errors.
func (h *benchHost) tail() string {
	b, _ := os.ReadFile(h.logPath)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// bearer adds the token to every request, as MCP clients configured with a header do.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// histogram is one Prometheus histogram read from /metrics, summed over the series whose
// labels contain every want pair.
type histogram struct {
	count   float64
	sum     float64
	buckets map[float64]float64 // upper bound -> cumulative count
}

// scrape reads the named histograms (and counters, as counts) from the host's /metrics.
func (h *benchHost) scrape(ctx context.Context, names map[string]string) (map[string]histogram, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.url+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("scrape metrics: %w", err)
	}
	defer resp.Body.Close()
	return parseHistograms(resp.Body, names)
}

// parseHistograms reads histograms from the Prometheus text format. names maps a metric name
// to a label filter (`method="Embed"`; empty for none).
func parseHistograms(r io.Reader, names map[string]string) (map[string]histogram, error) {
	out := map[string]histogram{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		series, value, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		name, labels, _ := strings.Cut(series, "{")
		for metric, filter := range names {
			suffix, found := strings.CutPrefix(name, metric)
			if !found || (filter != "" && !strings.Contains(labels, filter)) {
				continue
			}
			v, err := strconv.ParseFloat(value, 64)
			if err != nil {
				return nil, fmt.Errorf("metric %s: %w", series, err)
			}
			hist := out[metric]
			if hist.buckets == nil {
				hist.buckets = map[float64]float64{}
			}
			switch suffix {
			case "": // a counter: its value is the count
				hist.count += v
			case "_sum":
				hist.sum += v
			case "_count":
				hist.count += v
			case "_bucket":
				_, le, _ := strings.Cut(labels, `le="`)
				le, _, _ = strings.Cut(le, `"`)
				bound, err := strconv.ParseFloat(le, 64)
				if err != nil {
					return nil, fmt.Errorf("metric %s: bucket bound: %w", series, err)
				}
				hist.buckets[bound] += v
			}
			out[metric] = hist
		}
	}
	return out, sc.Err()
}

// since is the histogram of the observations made between two scrapes.
func (h histogram) since(before histogram) histogram {
	d := histogram{count: h.count - before.count, sum: h.sum - before.sum, buckets: map[float64]float64{}}
	for b, n := range h.buckets {
		d.buckets[b] = n - before.buckets[b]
	}
	return d
}

// plus adds the observations of two histograms.
func (h histogram) plus(o histogram) histogram {
	sum := histogram{count: h.count + o.count, sum: h.sum + o.sum, buckets: map[float64]float64{}}
	for b, n := range h.buckets {
		sum.buckets[b] += n
	}
	for b, n := range o.buckets {
		sum.buckets[b] += n
	}
	return sum
}

// ServerTime is what a host's histogram says about a phase: the mean (exact, from _sum and
// _count) and percentiles interpolated inside the buckets, as Prometheus's
// histogram_quantile does (so only as fine as the buckets).
type ServerTime struct {
	Count          int
	Mean, P50, P99 time.Duration
}

func (h histogram) summary() ServerTime {
	if h.count <= 0 {
		return ServerTime{}
	}
	return ServerTime{Count: int(h.count), Mean: seconds(h.sum / h.count), P50: seconds(h.quantile(0.50)), P99: seconds(h.quantile(0.99))}
}

func (h histogram) quantile(q float64) float64 {
	bounds := make([]float64, 0, len(h.buckets))
	for b := range h.buckets {
		bounds = append(bounds, b)
	}
	sort.Float64s(bounds)
	rank := q * h.count
	lower, below := 0.0, 0.0
	for _, b := range bounds {
		n := h.buckets[b]
		if n >= rank {
			if math.IsInf(b, 1) {
				return lower
			}
			if n == below {
				return b
			}
			return lower + (b-lower)*(rank-below)/(n-below)
		}
		lower, below = b, n
	}
	return lower
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
