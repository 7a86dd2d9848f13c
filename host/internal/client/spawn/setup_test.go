package spawn

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/testkit/testlog"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/host/internal/wire"
)

// record is what the fake CLI recorded.
type record struct {
	t   *testing.T
	dir string
}

func (r record) read(name string) string {
	r.t.Helper()
	b, err := os.ReadFile(filepath.Join(r.dir, name))
	require.NoError(r.t, err, "the fake CLI recorded no %s", name)
	return string(b)
}

func (r record) args() []string {
	r.t.Helper()
	s := strings.TrimSuffix(r.read("args"), "\x00")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}

func (r record) env() map[string]string {
	r.t.Helper()
	m := map[string]string{}
	for _, kv := range strings.Split(strings.TrimSuffix(r.read("env"), "\x00"), "\x00") {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

// fakeHost stands for a running memhost host: the banner and journal routes of its REST API,
// answering only the tokens fakeTokens granted.
type fakeHost struct {
	t      *testing.T
	srv    *httptest.Server
	tokens *fakeTokens
	banner string
	// byTask ends each banner asked for with its task, so a test sees which one the CLI got.
	byTask bool

	mu      sync.Mutex
	journal []journalCall
	// banners and ends are the banner requests (POST) and session ends the host received.
	banners []wire.BannerRequest
	ends    []wire.SessionEnd
}

type journalCall struct {
	Project string
	Entry   JournalEntry
}

func newFakeHost(t *testing.T, tokens *fakeTokens) *fakeHost {
	h := &fakeHost{t: t, tokens: tokens, banner: "# Project brain\nGoal: ship it. sentinel-" + random(6) + "\n"}
	h.srv = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *fakeHost) serve(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.EscapedPath(), "/api/v1/projects/")
	key, route, _ := strings.Cut(rest, "/")
	project, err := url.PathUnescape(key)
	if !ok || err != nil {
		http.NotFound(w, r)
		return
	}
	token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !h.tokens.valid(token, project) {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":{"code":"unauthenticated","message":"invalid, expired or revoked token"}}`))
		return
	}
	switch {
	case r.Method == http.MethodGet && route == "banner":
		if r.URL.Query().Get("format") != "text" {
			http.Error(w, "want format=text", http.StatusBadRequest)
			return
		}
		_, _ = w.Write([]byte(h.banner))
	case r.Method == http.MethodPost && route == "banner":
		var req wire.BannerRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.URL.Query().Get("format") != "text" {
			http.Error(w, "want a banner request and format=text", http.StatusBadRequest)
			return
		}
		h.mu.Lock()
		h.banners = append(h.banners, req)
		h.mu.Unlock()
		if h.byTask {
			_, _ = w.Write([]byte(h.banner + "task: " + req.Task + "\n"))
			return
		}
		_, _ = w.Write([]byte(h.banner))
	case r.Method == http.MethodPost && route == "sessions/end":
		var e wire.SessionEnd
		if err := json.NewDecoder(r.Body).Decode(&e); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		h.mu.Lock()
		h.ends = append(h.ends, e)
		h.mu.Unlock()
		_, _ = w.Write([]byte(`{"project":"` + project + `","recorded":{}}`))
	case r.Method == http.MethodPost && route == "journal":
		var e JournalEntry
		if err := json.NewDecoder(r.Body).Decode(&e); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		h.mu.Lock()
		h.journal = append(h.journal, journalCall{Project: project, Entry: e})
		h.mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{}`))
	default:
		http.NotFound(w, r)
	}
}

// sessions returns the banner requests and session ends the host received.
func (h *fakeHost) sessions() ([]wire.BannerRequest, []wire.SessionEnd) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.banners), slices.Clone(h.ends)
}

func (h *fakeHost) entries() []journalCall {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]journalCall(nil), h.journal...)
}

// fakeTokens grants fake tokens (the shape of memhost's, random) bound to a project and
// records their release.
type fakeTokens struct {
	mu       sync.Mutex
	granted  map[string]string // token -> project
	released map[string]bool
}

var _ Tokens = (*fakeTokens)(nil)

func (f *fakeTokens) Grant(_ context.Context, project, _ string) (string, func(context.Context) error, error) {
	token := "mh_" + random(32)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.granted == nil {
		f.granted, f.released = map[string]string{}, map[string]bool{}
	}
	f.granted[token] = project
	return token, func(context.Context) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.released[token] = true
		return nil
	}, nil
}

func (f *fakeTokens) valid(token, project string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.granted[token] == project && !f.released[token]
}

// only returns the one token granted, requiring that it was released.
func (f *fakeTokens) only(t *testing.T) string {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	require.Len(t, f.granted, 1)
	for token := range f.granted {
		require.True(t, f.released[token], "the session's token is released when it ends")
		return token
	}
	return ""
}

func random(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// bundle is one test's world: a fake host, a user's home and project, the fake CLIs on PATH.
type bundle struct {
	host        *fakeHost
	tokens      *fakeTokens
	home        string
	project     string
	out         string
	scratchRoot string
	stdout      *testlog.Buffer
	warn        *testlog.Buffer
	opts        Options
}

// setup returns the options of a run of cli in a fresh world.
func setup(t *testing.T, cli string, args ...string) *bundle {
	t.Helper()
	root := t.TempDir()
	b := &bundle{
		tokens: &fakeTokens{}, home: filepath.Join(root, "home"), project: filepath.Join(root, "project"),
		out: filepath.Join(root, "out"), scratchRoot: filepath.Join(shortDir(t), "run"),
		stdout: &testlog.Buffer{}, warn: &testlog.Buffer{},
	}
	b.host = newFakeHost(t, b.tokens)
	bin := filepath.Join(root, "bin")
	for _, d := range []string{b.home, b.project, bin} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	testplugins.FakeCLIs(t, bin)
	b.opts = Options{
		CLI:  cli,
		Args: args,
		Dir:  b.project,
		Env: []string{"HOME=" + b.home, "PATH=" + bin + ":/usr/bin:/bin", "LANG=C.UTF-8", "FAKE_OUT=" + b.out,
			"MEMHOST_TOKEN=mh_operator-secret-not-for-providers"},
		Stdin:       strings.NewReader(""),
		Stdout:      b.stdout,
		Stderr:      b.stdout,
		Warn:        b.warn,
		PluginDirs:  []string{testplugins.Providers(t)},
		Host:        &Host{URL: b.host.srv.URL},
		Tokens:      b.tokens,
		ScratchRoot: b.scratchRoot,
		// The fake CLIs end at once: these tests journal every session that ends.
		QuietUnder: time.Nanosecond,
	}
	return b
}

// run runs the options and requires that nothing is left in the scratch root.
func (b *bundle) run(t *testing.T) (Result, record) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Run(ctx, b.opts)
	require.NoError(t, err)
	requireEmpty(t, b.scratchRoot)
	return res, record{t: t, dir: b.out}
}

// shortDir is a temporary directory with a short path, as a real scratch root has one: the
// provider plugin's unix socket goes under it, and t.TempDir's paths are too long for that.
func shortDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "spawn")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// requireEmpty requires that dir holds nothing (or does not exist).
func requireEmpty(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if !os.IsNotExist(err) {
		require.NoError(t, err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	require.Empty(t, names, "left behind in %s", dir)
}

// snapshot describes every entry under root (type, mode, content or link target).
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		desc := fi.Mode().String()
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			desc += " -> " + target
		case fi.Mode().IsRegular():
			b, _ := os.ReadFile(p)
			desc += " " + string(bytes.TrimSpace(b))
		}
		out[p] = desc
		return nil
	}))
	return out
}
