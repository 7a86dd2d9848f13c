//go:build e2econsole

package e2econsole

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// chromium finds the distribution's Chromium (scripts/ensure-chromium.sh installs it).
func chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatalf("no Chromium on PATH: run scripts/ensure-chromium.sh (make e2e-console does)")
	return ""
}

// browser is one headless Chromium with a fresh profile, and what its pages reported.
type browser struct {
	t   testing.TB
	ctx context.Context

	mu       sync.Mutex
	problems []string       // console errors, exceptions and failed requests since the last visit
	status   map[string]int // the last status of each document URL
	last     int            // the status of the last document
	allowed  map[int]bool   // statuses a page may answer (a refusal the test expects)
	dialogs  []string
}

// The flags that work here: headless without a sandbox (root in a container), no GPU, no
// network of its own (no QUIC, background fetches, component updates or sync).
func newBrowser(t testing.TB) *browser {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.Flag("headless", true), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	b := &browser{t: t, ctx: ctx, status: map[string]int{}, allowed: map[int]bool{}}
	t.Cleanup(func() { cancel(); cancelAlloc() })
	// The first call starts the browser for the life of ctx (never a context with a timeout).
	require.NoError(t, chromedp.Listen(ctx, b.listen))
	_, err := chromedp.Call(ctx, network.Enable, network.EnableParams{})
	require.NoError(t, err)
	_, err = chromedp.Call(ctx, log.Enable, cdp.Empty{})
	require.NoError(t, err)
	_, err = chromedp.Call(ctx, runtime.Enable, cdp.Empty{})
	require.NoError(t, err)
	_, err = chromedp.Call(ctx, page.Enable, page.EnableParams{})
	require.NoError(t, err)
	return b
}

// listen records what a page reports: console errors, uncaught exceptions, log entries at
// error level (a refused resource, a CSP violation), failed requests and error statuses; and
// accepts confirmation dialogs (a person clicking OK).
func (b *browser) listen(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch e := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
			var parts []string
			for _, a := range e.Args {
				parts = append(parts, fmt.Sprint(a.Value, a.Description))
			}
			b.problems = append(b.problems, fmt.Sprintf("console %s: %s", e.Type, strings.Join(parts, " ")))
		}
	case *runtime.EventExceptionThrown:
		b.problems = append(b.problems, "exception: "+e.ExceptionDetails.Text+" "+exceptionText(e.ExceptionDetails))
	case *log.EventEntryAdded:
		if e.Entry.Level == log.EntryLevelError && !b.expected(e.Entry.Text) {
			b.problems = append(b.problems, fmt.Sprintf("log %s: %s %s", e.Entry.Source, e.Entry.Text, e.Entry.URL))
		}
	case *network.EventLoadingFailed:
		if !e.Canceled {
			b.problems = append(b.problems, fmt.Sprintf("request failed: %s (%s)", e.ErrorText, e.Type))
		}
	case *network.EventResponseReceived:
		if e.Type == network.ResourceTypeDocument {
			b.status[e.Response.URL] = int(e.Response.Status)
			b.last = int(e.Response.Status)
		}
		if e.Response.Status >= 400 && !b.allowed[int(e.Response.Status)] {
			b.problems = append(b.problems, fmt.Sprintf("HTTP %d for %s", e.Response.Status, e.Response.URL))
		}
	case *page.EventJavascriptDialogOpening:
		b.dialogs = append(b.dialogs, e.Message)
		go func() {
			_, _ = chromedp.Call(b.ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}()
	}
}

// expected reports a log line the browser writes for a refusal the test asked for (Chromium
// logs an error for every 4xx document).
func (b *browser) expected(text string) bool {
	for s := range b.allowed {
		if strings.Contains(text, fmt.Sprintf("status of %d", s)) {
			return true
		}
	}
	return false
}

func exceptionText(d *runtime.ExceptionDetails) string {
	if d.Exception != nil {
		return d.Exception.Description
	}
	return ""
}

// do runs actions in the browser, failing the test on error.
func (b *browser) do(actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	require.NoError(b.t, chromedp.Do(ctx, actions...))
}

// get runs one action that returns a value.
func get[T any](b *browser, a chromedp.Action[T]) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	require.NoError(b.t, err)
	return v
}

// expect lets the next page answer with these statuses (a refusal the test checks for).
func (b *browser) expect(statuses ...int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.allowed = map[int]bool{}
	for _, s := range statuses {
		b.allowed[s] = true
	}
}

// takeProblems returns and clears what pages reported.
func (b *browser) takeProblems() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.problems
	b.problems = nil
	return p
}

// open navigates to url and waits for the page's main element.
func (b *browser) open(url string) {
	b.t.Helper()
	b.do(chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("main")))
}

// lastStatus is the HTTP status of the last page loaded.
func (b *browser) lastStatus() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.last
}

// landOn opens url, a page that sends the browser on to target by itself (a form it submits),
// and waits for target's page; it returns target's status.
func (b *browser) landOn(url, target string) int {
	b.t.Helper()
	b.do(chromedp.Navigate(url))
	deadline := time.Now().Add(20 * time.Second)
	for {
		b.mu.Lock()
		status, ok := b.status[target]
		b.mu.Unlock()
		if ok {
			b.do(chromedp.WaitReady(chromedp.CSS("main")))
			return status
		}
		require.True(b.t, time.Now().Before(deadline), "the browser never reached %s", target)
		time.Sleep(20 * time.Millisecond)
	}
}

// eval runs a script in the page and returns its value (a promise's, once it settles) as text.
func (b *browser) eval(js string) string {
	b.t.Helper()
	return get(b, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
}

// text returns the text of the first element matching sel.
func (b *browser) text(sel string) string {
	b.t.Helper()
	return get(b, chromedp.Text(chromedp.CSS(sel), chromedp.NodeVisible))
}

// location is the page's URL.
func (b *browser) location() string {
	b.t.Helper()
	return get(b, chromedp.Location())
}

// clickAndWait clicks the element sel, which loads another page (a form's answer and the
// page it redirects to), waits for that page and returns its HTTP status.
func (b *browser) clickAndWait(sel string) int {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	resp, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible))
	require.NoError(b.t, err)
	b.do(chromedp.WaitReady(chromedp.CSS("main")))
	return int(resp.Status)
}

// check is what every screen must pass: no console error or failed request since the last
// check, and no serious or critical accessibility violation (axe-core).
func (b *browser) check(name string) {
	b.t.Helper()
	require.Empty(b.t, b.takeProblems(), "screen %s reported problems", name)
	b.axe(name)
}

// shot writes the screen to $MEMHOST_CONSOLE_SCREENSHOTS/name.png when that is set (make
// e2e-console with it rewrites docs/console/*.png).
func (b *browser) shot(name string) {
	b.t.Helper()
	if dir := os.Getenv("MEMHOST_CONSOLE_SCREENSHOTS"); dir != "" {
		png := get(b, chromedp.FullScreenshot(100))
		require.NoError(b.t, os.MkdirAll(dir, 0o755))
		require.NoError(b.t, os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644))
	}
}

// violation is one failed axe-core rule.
type violation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []any  `json:"target"`
		HTML   string `json:"html"`
	} `json:"nodes"`
}

// axe runs axe-core in the page (WCAG 2.1 A and AA rules and best practices) and fails on any
// serious or critical violation.
func (b *browser) axe(name string) {
	b.t.Helper()
	src := axeSource(b.t)
	b.do(chromedp.Evaluate[chromedp.Void](src))
	raw := get(b, chromedp.Evaluate[string](`axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]}, resultTypes: ["violations"]})
			.then(r => JSON.stringify(r.violations))`, chromedp.EvalAwaitPromise))
	var vs []violation
	require.NoError(b.t, json.Unmarshal([]byte(raw), &vs))
	var bad []string
	for _, v := range vs {
		if v.Impact == "serious" || v.Impact == "critical" {
			where := ""
			for _, n := range v.Nodes {
				where += fmt.Sprintf("\n    %v %s", n.Target, n.HTML)
			}
			bad = append(bad, fmt.Sprintf("%s (%s): %s%s", v.ID, v.Impact, v.Help, where))
		}
	}
	require.Empty(b.t, bad, "screen %s: accessibility violations", name)
}

// cookies returns the browser's cookies for url.
func (b *browser) cookies(url string) []*network.Cookie {
	b.t.Helper()
	res, err := chromedp.Call(b.ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{url}})
	require.NoError(b.t, err)
	return res.Cookies
}
