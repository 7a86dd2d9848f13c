//go:build e2econsole

package e2econsole

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/bench"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
)

// benchMemories is the project's size for the console's timings (docs/benchmarks.md);
// MEMHOST_CONSOLE_BENCH_MEMORIES sets another.
func benchMemories() int {
	if n, err := strconv.Atoi(os.Getenv("MEMHOST_CONSOLE_BENCH_MEMORIES")); err == nil && n >= 200 {
		return n
	}
	return 100_000
}

// BenchmarkConsole times the console where a user meets it, at benchMemories memories in one
// project: the first page in a cold browser (a fresh profile: nothing cached, a fresh process),
// the search page in a warm one, and the live feed's delay from an MCP store's answer to the
// browser's list. Run it with `make e2e-console-bench` (-benchtime 1x: one round); it reports
// medians and 95th percentiles and logs every sample.
func BenchmarkConsole(b *testing.B) {
	for range b.N {
		measureConsole(b)
	}
}

func measureConsole(b *testing.B) {
	b.Helper()
	w := startHost(b)
	seed := time.Now()
	n := benchMemories()
	queries := loadMemories(b, w, n)
	b.Logf("loaded %d memories in %v", n, time.Since(seed).Round(time.Second))
	admin := w.token("--scopes", "admin", "--name", "operator")
	waitFollowed(b, w, admin, n)

	list := w.url + "/console/memories?project=" + url.QueryEscape(project)
	static := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		script := ""
		if r.URL.Query().Has("script") {
			script = `<script>document.title = "floor with a script"</script>`
		}
		_, _ = rw.Write([]byte(`<!doctype html><html lang="en"><title>floor</title><main>` + strings.Repeat("<p>a static paragraph</p>", 40) + `</main>` + script + `</html>`))
	}))
	defer static.Close()
	var cold, floor, floorScript []float64
	for range 9 {
		br := newBrowser(b)
		setSession(b, br, w, admin)
		cold = append(cold, pageTime(b, br, list))
		// The floor: a cold browser's first page of a static 1 KB document from a local server,
		// so the console's own share can be told from the browser's.
		empty := newBrowser(b)
		floor = append(floor, pageTime(b, empty, static.URL))
		// And with one line of inline script: a cold renderer starts its JavaScript engine.
		scripted := newBrowser(b)
		floorScript = append(floorScript, pageTime(b, scripted, static.URL+"?script"))
	}
	// The host's own share: the pages over a kept-alive connection, without a browser.
	session := signInHTTP(b, w, admin)
	var serverList, serverSearch []float64
	for i, q := range queries[:20] {
		serverList = append(serverList, fetchTime(b, session, list))
		serverSearch = append(serverSearch, fetchTime(b, session, list+"&q="+url.QueryEscape(queries[len(queries)-1-i]+" "+q)))
	}
	br := newBrowser(b)
	setSession(b, br, w, admin)
	pageTime(b, br, list) // warm the assets and the connection
	var search []float64
	for _, q := range queries[:20] {
		search = append(search, pageTime(b, br, list+"&q="+url.QueryEscape(q)))
	}
	agent := w.agent(w.token("--scopes", "memory:read,memory:write", "--name", "agent"))
	br.open(list)
	get(br, chromedp.Poll[bool](`document.querySelector("[data-feed-status]").textContent.startsWith("Live")`, chromedp.WithPollingTimeout(10*time.Second)))
	var feed []float64
	for i := range 10 {
		start := time.Now()
		res := call[storedMemory](br.t, agent, "memory_store", map[string]any{"text": fmt.Sprintf("Benchmark release %d ships the feed at %s.", i, start.Format(time.RFC3339Nano)), "project": project})
		get(br, chromedp.Poll[bool](`document.querySelector('ol.feed li[data-id="`+res.ID+`"]') !== null`, chromedp.WithPollingTimeout(5*time.Second), chromedp.WithPollingInterval(5*time.Millisecond)))
		feed = append(feed, float64(time.Since(start).Microseconds())/1000)
	}
	report := func(name string, ms []float64) {
		p50, p95 := percentile(ms, 0.5), percentile(ms, 0.95)
		b.ReportMetric(p50, name+"-p50-ms")
		b.ReportMetric(p95, name+"-p95-ms")
		b.Logf("%s: p50 %.1f ms, p95 %.1f ms, samples %v", name, p50, p95, ms)
	}
	report("server-list", serverList)
	report("server-search", serverSearch)
	report("cold-first-page", cold)
	report("cold-floor", floor)
	report("cold-floor-script", floorScript)
	report("search-page", search)
	report("feed-delay", feed)
}

func shortURL(u string) string {
	if i := strings.Index(u, "/console/"); i >= 0 {
		u = u[i:]
	}
	return clipped(u, 70)
}

func clipped(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func percentile(xs []float64, q float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// pageTime navigates and returns the page's load time from the navigation timing API: from the
// start of the navigation to the end of the load event (the document, its CSS, script and
// icons).
func pageTime(b *testing.B, br *browser, u string) float64 {
	b.Helper()
	br.open(u)
	raw := br.eval(`new Promise(r => { const f = () => { const n = performance.getEntriesByType("navigation")[0]; if (n && n.loadEventEnd > 0) r(JSON.stringify(n)); else setTimeout(f, 5) }; f() })`)
	var n struct {
		RequestStart, ResponseStart, ResponseEnd, DOMInteractive, DOMContentLoadedEventStart, DOMContentLoadedEventEnd, LoadEventEnd float64
	}
	require.NoError(b, json.Unmarshal([]byte(raw), &n))
	b.Logf("%s: request %.0f, first byte %.0f, response end %.0f, interactive %.0f, DOM ready %.0f-%.0f, loaded %.0f ms", shortURL(u), n.RequestStart, n.ResponseStart,
		n.ResponseEnd, n.DOMInteractive, n.DOMContentLoadedEventStart, n.DOMContentLoadedEventEnd, n.LoadEventEnd)
	return n.LoadEventEnd
}

// fetchTime is one page's time to its last byte with a session cookie.
func fetchTime(b *testing.B, session, u string) float64 {
	b.Helper()
	req, err := http.NewRequest("GET", u, nil)
	require.NoError(b, err)
	req.AddCookie(&http.Cookie{Name: "memhost_console", Value: session})
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	require.NoError(b, err)
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	require.NoError(b, err)
	require.Equal(b, 200, resp.StatusCode)
	return float64(time.Since(start).Microseconds()) / 1000
}

// setSession gives the browser a session cookie before its first page, so that page finds
// nothing cached.
func setSession(b *testing.B, br *browser, h *host, token string) {
	b.Helper()
	session := signInHTTP(b, h, token)
	_, err := chromedp.Call(br.ctx, network.SetCookie, network.SetCookieParams{Name: "memhost_console", Value: session, URL: h.url + "/console/",
		Path: "/console/", Secure: new(true), HTTPOnly: new(true), SameSite: network.CookieSameSiteStrict})
	require.NoError(b, err)
}

// signInHTTP signs in over HTTP, as the sign-in page's button does, and returns the session.
func signInHTTP(b *testing.B, h *host, token string) string {
	b.Helper()
	link := h.signinLink(token)
	code := regexp.MustCompile(`mhc_[A-Za-z0-9_-]+`).FindString(link)
	req, err := http.NewRequest("POST", h.url+"/console/signin", strings.NewReader(url.Values{"code": {code}}.Encode()))
	require.NoError(b, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", h.url)
	resp, err := http.DefaultTransport.RoundTrip(req)
	require.NoError(b, err)
	resp.Body.Close()
	var session string
	for _, c := range resp.Cookies() {
		if c.Name == "memhost_console" {
			session = c.Value
		}
	}
	require.NotEmpty(b, session)
	return session
}

// loadMemories loads n generated facts into the project the way a bulk import does (embedded by
// the BM25 plugin, store.Import) and returns some of their questions.
func loadMemories(b *testing.B, h *host, n int) []string {
	b.Helper()
	ctx := context.Background()
	st := pgstore.New(h.pool())
	e := embeddertest.Launch(b, testplugins.BM25(b))
	info, err := e.Describe(ctx)
	require.NoError(b, err)
	facts := bench.NewCorpus(27).Take(n)
	base := time.Now().UTC().Add(-time.Duration(n) * time.Minute)
	const batch = 2000
	for lo := 0; lo < n; lo += batch {
		hi := min(lo+batch, n)
		texts := make([]string, hi-lo)
		for i := range texts {
			texts[i] = facts[lo+i].Text
		}
		var vecs [][]float32
		for c := 0; c < len(texts); c += info.MaxBatch {
			v, err := e.Embed(ctx, embedder.PurposeDocument, texts[c:min(c+info.MaxBatch, len(texts))])
			require.NoError(b, err)
			vecs = append(vecs, v...)
		}
		recs := make([]store.ExportRecord, len(texts))
		for i, v := range vecs {
			at := base.Add(time.Duration(lo+i) * time.Minute)
			recs[i] = store.ExportRecord{Memory: store.Memory{ID: uuid.Must(uuid.NewV7()), Scope: store.ScopeProject, ScopeKey: project,
				Kind: facts[lo+i].Kind, Text: texts[i], Importance: 0.5, Confidence: 0.8, Embedder: info.Name, CreatedAt: at, UpdatedAt: at,
				Provenance: store.Provenance{Agent: "bench", Source: "import"}},
				Vector: store.Vector{Embedder: info.Name, Dimensions: info.Dimensions, Values: v}}
		}
		_, err := st.Import(ctx, recs)
		require.NoError(b, err)
	}
	var qs []string
	for _, f := range facts[len(facts)-200:] {
		qs = append(qs, f.Query)
	}
	return qs
}

// waitFollowed waits until the host has taken in the import: its lexical index followed it and
// its background indexed it.
func waitFollowed(b *testing.B, h *host, admin string, n int) {
	b.Helper()
	deadline := time.Now().Add(15 * time.Minute)
	for time.Now().Before(deadline) {
		var s struct {
			Memories struct {
				Live        int64 `json:"live"`
				ANNDeferred int64 `json:"ann_deferred"`
				Graphs      int64 `json:"graphs"`
			} `json:"memories"`
		}
		// Measured once the host is done with the import, as a host's background does it: the
		// rows are in the vector index and the project has its own graph (over 1,000 rows).
		if h.rest(admin, "GET", "/api/v1/status", "", &s) == 200 && s.Memories.Live >= int64(n) && s.Memories.ANNDeferred == 0 &&
			(n < 1000 || s.Memories.Graphs > 0) {
			var page struct {
				Memories []any `json:"memories"`
			}
			if h.rest(admin, "GET", "/api/v1/memories?project="+url.QueryEscape(project)+"&limit=1", "", &page) == 200 {
				time.Sleep(2 * time.Second) // the follower's catch-up of 100K changes
				return
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	b.Fatal("the host never saw the import")
}
