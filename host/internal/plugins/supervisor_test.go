package plugins_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/host/internal/plugins/embedders"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/plugin"
)

const bm25Name = "bm25-v1-384"

// logBuffer collects a Supervisor's log for tests that read it.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type bundle struct {
	dir string
	reg *prometheus.Registry
	log *logBuffer // the Supervisor's log at Info and above
}

// setup returns a Supervisor for embedders whose Shutdown runs at the end of
// the test, and a plugin directory holding the BM25 plugin.
func setup(t *testing.T, cfg plugins.Config) (*plugins.Supervisor, *bundle) {
	t.Helper()
	b := &bundle{dir: t.TempDir(), reg: prometheus.NewPedanticRegistry(), log: &logBuffer{}}
	testplugins.Install(t, b.dir, "memhost-embedder-bm25", bm25Binary)
	if cfg.Logger == nil {
		cfg.Logger = hclog.New(&hclog.LoggerOptions{Name: "test", Output: b.log, Level: hclog.Info})
	}
	if cfg.Adapters == nil {
		cfg.Adapters = []plugins.Adapter{embedders.Adapter{}}
	}
	cfg.Registerer = b.reg
	s := plugins.New(cfg)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, s.Shutdown(ctx))
	})
	return s, b
}

// run runs the health loop until the test ends.
func run(t *testing.T, s *plugins.Supervisor) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
}

func startAll(t *testing.T, s *plugins.Supervisor, dir string) error {
	t.Helper()
	cands, errs := plugins.Discover([]string{dir}, nil)
	require.Empty(t, errs)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return s.Start(ctx, cands)
}

// alive reports whether pid is a running process; a zombie (killed but not
// yet reaped by whoever inherited it) counts as gone.
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	rest := stat[strings.LastIndexByte(string(stat), ')')+1:]
	fields := strings.Fields(string(rest))
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}

func status(t *testing.T, s *plugins.Supervisor, name string) plugins.Status {
	t.Helper()
	for _, st := range s.List() {
		if st.Name == name {
			return st
		}
	}
	t.Fatalf("no plugin %q in %+v", name, s.List())
	return plugins.Status{}
}

// metric returns the value of the counter name with the given label values,
// 0 when the series does not exist.
func metric(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	t.Helper()
	families, err := reg.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			for _, lp := range m.GetLabel() {
				if want, ok := labels[lp.GetName()]; ok && want != lp.GetValue() {
					continue series
				}
			}
			return m.GetCounter().GetValue()
		}
	}
	return 0
}

func calls(t *testing.T, b *bundle, name, method, result string) float64 {
	return metric(t, b.reg, "memhost_plugin_calls_total", map[string]string{"kind": "embedder", "name": name, "method": method, "result": result})
}

// requireSafeForCallers checks that an error a caller may see is one short
// line that names no path and carries no go-plugin diagnosis.
func requireSafeForCallers(t *testing.T, err error, dir string) {
	t.Helper()
	msg := err.Error()
	require.NotContains(t, msg, "\n")
	require.NotContains(t, msg, dir)
	require.NotContains(t, msg, "memhost-embedder-")
	require.Less(t, len(msg), 200, "%q", msg)
}

func TestStartIdentifyCall(t *testing.T) {
	t.Parallel()
	s, b := setup(t, plugins.Config{})
	require.NoError(t, startAll(t, s, b.dir))

	h, err := embedders.Find(s, bm25Name)
	require.NoError(t, err)
	require.Len(t, embedders.List(s), 1)

	ctx := context.Background()
	info, err := h.Describe(ctx)
	require.NoError(t, err)
	require.Equal(t, bm25Name, info.Name)
	require.Equal(t, 384, info.Dimensions)
	require.Equal(t, info, h.Info())
	require.Equal(t, filepath.Join(b.dir, "memhost-embedder-bm25"), h.Path())
	require.Equal(t, plugins.StateReady, h.State())

	vecs, err := h.Embed(ctx, embedder.PurposeDocument, []string{"postgres is the source of truth", "plugins restart"})
	require.NoError(t, err)
	require.Len(t, vecs, 2)
	require.Len(t, vecs[0], 384)
	require.NoError(t, h.Health(ctx))

	// Plugin errors keep their sentinel through the handle.
	_, err = h.Embed(ctx, embedder.PurposeDocument, make([]string, info.MaxBatch+1))
	require.ErrorIs(t, err, embedder.ErrInvalidInput)
	require.NotErrorIs(t, err, embedder.ErrUnavailable)

	st := s.List()
	require.Len(t, st, 1)
	got := st[0]
	require.Equal(t, "embedder", got.Kind)
	require.Equal(t, bm25Name, got.Name)
	require.Equal(t, "memhost-embedder-bm25", got.Binary)
	require.NotEmpty(t, got.Version)
	require.Equal(t, "384 dimensions", got.Shape)
	require.Equal(t, h.Path(), got.Path)
	require.Equal(t, plugins.StateReady, got.State, "a rejected input says nothing about the plugin")
	require.True(t, alive(got.PID), "pid %d", got.PID)
	require.Zero(t, got.Restarts)
	require.Empty(t, got.LastError)

	_, err = s.Find(plugin.KindEmbedder, "nope")
	require.ErrorIs(t, err, plugins.ErrNotFound)

	require.Equal(t, 1.0, calls(t, b, bm25Name, "Embed", "invalid_input"))
	require.Equal(t, 1.0, calls(t, b, bm25Name, "Embed", "ok"))
	require.Equal(t, 1.0, calls(t, b, bm25Name, "Identify", "ok"))
	families, err := b.reg.Gather()
	require.NoError(t, err)
	var durations int
	for _, f := range families {
		if f.GetName() == "memhost_plugin_call_duration_seconds" {
			durations = len(f.GetMetric())
		}
	}
	require.Positive(t, durations)
}

// TestFindAcceptsWhatOperatorsSee: a plugin answers to its reported name, its
// binary's file name and the name part of that.
func TestFindAcceptsWhatOperatorsSee(t *testing.T) {
	t.Parallel()
	s, b := setup(t, plugins.Config{})
	require.NoError(t, startAll(t, s, b.dir))
	want, err := s.Find(plugin.KindEmbedder, bm25Name)
	require.NoError(t, err)
	for _, name := range []string{"bm25", "memhost-embedder-bm25"} {
		got, err := s.Find(plugin.KindEmbedder, name)
		require.NoError(t, err, name)
		require.Same(t, want, got, name)
	}
	_, err = s.Find("provider", bm25Name)
	require.ErrorIs(t, err, plugins.ErrNotFound, "names are per kind")
}

func TestChecksumAllowList(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := testplugins.Install(t, dir, "memhost-embedder-bm25", bm25Binary)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	sum := sha256.Sum256(data)
	right := hex.EncodeToString(sum[:])
	wrong := strings.Repeat("0", 64)

	t.Run("wrong checksum is not loaded", func(t *testing.T) {
		cands, errs := plugins.Discover([]string{dir}, map[string]string{"memhost-embedder-bm25": wrong})
		require.Empty(t, cands)
		require.Len(t, errs, 1)
		require.ErrorIs(t, errs[0], plugins.ErrChecksumMismatch)
		require.Contains(t, errs[0].Error(), right, "the error names the actual digest")
	})
	t.Run("unlisted binary is not loaded", func(t *testing.T) {
		cands, errs := plugins.Discover([]string{dir}, map[string]string{"memhost-embedder-other": right})
		require.Empty(t, cands)
		require.Len(t, errs, 2)
		require.Contains(t, errs[0].Error(), "not in the plugin checksum allow-list")
		require.Contains(t, errs[1].Error(), "memhost-embedder-other")
		require.Contains(t, errs[1].Error(), "not found")
	})
	t.Run("launch re-checks the checksum", func(t *testing.T) {
		// A candidate whose binary changed after discovery: go-plugin's
		// SecureConfig refuses to run it.
		s, _ := setup(t, plugins.Config{})
		err := s.Start(context.Background(), []plugins.Candidate{{Kind: "embedder", Name: "bm25", Path: path, Checksum: wrong}})
		require.ErrorIs(t, err, plugins.ErrChecksumMismatch)
		st := s.List()[0]
		require.Equal(t, plugins.StateFailed, st.State)
		require.Contains(t, st.LastError, "changed since it was allow-listed")
		_, err = embedders.Find(s, "bm25")
		require.ErrorIs(t, err, embedder.ErrUnavailable)
		requireSafeForCallers(t, err, dir)
	})
	t.Run("right checksum loads", func(t *testing.T) {
		cands, errs := plugins.Discover([]string{dir}, map[string]string{"memhost-embedder-bm25": strings.ToUpper(right)})
		require.Empty(t, errs)
		require.Len(t, cands, 1)
		require.Equal(t, right, cands[0].Checksum)
		s, _ := setup(t, plugins.Config{})
		require.NoError(t, s.Start(context.Background(), cands))
		h, err := embedders.Find(s, bm25Name)
		require.NoError(t, err)
		_, err = h.Embed(context.Background(), embedder.PurposeQuery, []string{"hello"})
		require.NoError(t, err)
	})
}

func TestCrashRecovery(t *testing.T) {
	t.Parallel()
	// No health loop: the calls themselves must notice the crash.
	s, b := setup(t, plugins.Config{HealthInterval: -1, RestartBackoffInitial: 400 * time.Millisecond, RestartBackoffMax: time.Second})
	require.NoError(t, startAll(t, s, b.dir))
	h, err := embedders.Find(s, bm25Name)
	require.NoError(t, err)
	ctx := context.Background()
	texts := []string{"a memory that must survive a crash"}
	want, err := h.Embed(ctx, embedder.PurposeDocument, texts)
	require.NoError(t, err)

	before := status(t, s, bm25Name)
	require.NoError(t, syscall.Kill(before.PID, syscall.SIGKILL))

	start := time.Now()
	var failures int
	var sawRestarting bool
	for {
		callStart := time.Now()
		got, err := h.Embed(ctx, embedder.PurposeDocument, texts)
		require.Less(t, time.Since(callStart), time.Second, "a call to a crashed plugin must fail fast")
		if err == nil {
			require.Equal(t, want, got, "the restarted plugin gives the same vectors")
			break
		}
		failures++
		require.ErrorIs(t, err, embedder.ErrUnavailable)
		requireSafeForCallers(t, err, b.dir)
		var ue *plugins.UnavailableError
		if errors.As(err, &ue) && ue.State == plugins.StateRestarting {
			sawRestarting = true
			require.Equal(t, "embedder plugin "+bm25Name+" is restarting (attempt 1)", err.Error())
		}
		require.Less(t, time.Since(start), 15*time.Second, "plugin was not restarted: %v", err)
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("recovered after %s, %d failed calls", time.Since(start), failures)
	require.Positive(t, failures)
	require.True(t, sawRestarting)

	after := status(t, s, bm25Name)
	require.Equal(t, plugins.StateReady, after.State)
	require.Equal(t, 1, after.Restarts)
	require.NotEqual(t, before.PID, after.PID)
	require.True(t, alive(after.PID))
	require.False(t, alive(before.PID))
	// Whichever noticed first (the call seeing the exit, or the probe seeing
	// the dead socket) is recorded as the cause.
	require.Regexp(t, `exited|unavailable`, after.LastError)
	require.Equal(t, 1.0, metric(t, b.reg, "memhost_plugin_restarts_total", map[string]string{"kind": "embedder", "name": bm25Name}))
	require.Positive(t, calls(t, b, bm25Name, "Embed", "unavailable"))
}

func TestHealthLoopRestartsDeadPlugin(t *testing.T) {
	t.Parallel()
	s, b := setup(t, plugins.Config{HealthInterval: 50 * time.Millisecond, RestartBackoffInitial: 10 * time.Millisecond})
	require.NoError(t, startAll(t, s, b.dir))
	run(t, s)
	before := status(t, s, bm25Name)
	require.NoError(t, syscall.Kill(before.PID, syscall.SIGKILL))
	start := time.Now()
	require.Eventually(t, func() bool {
		st := status(t, s, bm25Name)
		return st.State == plugins.StateReady && st.Restarts == 1
	}, 10*time.Second, 10*time.Millisecond)
	t.Logf("health loop restarted the plugin within %s", time.Since(start))
	h, err := embedders.Find(s, bm25Name)
	require.NoError(t, err)
	_, err = h.Embed(context.Background(), embedder.PurposeQuery, []string{"back"})
	require.NoError(t, err)
}

// TestRunEndsWithItsContext: the health loop the host's lifecycle runs
// returns nil when its context ends, whether or not the loop is enabled.
func TestRunEndsWithItsContext(t *testing.T) {
	t.Parallel()
	for _, interval := range []time.Duration{-1, 20 * time.Millisecond} {
		s, b := setup(t, plugins.Config{HealthInterval: interval})
		require.NoError(t, startAll(t, s, b.dir))
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- s.Run(ctx) }()
		time.Sleep(60 * time.Millisecond)
		cancel()
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-time.After(5 * time.Second):
			t.Fatalf("Run (interval %s) did not return after its context ended", interval)
		}
	}
}

func TestRestartRefusesChangedIdentity(t *testing.T) {
	t.Parallel()
	s, b := setup(t, plugins.Config{HealthInterval: -1, RestartBackoffInitial: 10 * time.Millisecond})
	require.NoError(t, startAll(t, s, b.dir))
	h, err := embedders.Find(s, bm25Name)
	require.NoError(t, err)

	// Replace the binary by another embedder (rename: the running file is
	// busy), then crash the process so the restart picks it up.
	tmp := testplugins.Install(t, b.dir, "swap.tmp", hashBinary)
	require.NoError(t, os.Rename(tmp, h.Path()))
	require.NoError(t, syscall.Kill(status(t, s, bm25Name).PID, syscall.SIGKILL))

	require.Eventually(t, func() bool {
		_, _ = h.Embed(context.Background(), embedder.PurposeQuery, []string{"x"})
		return h.State() == plugins.StateFailed
	}, 10*time.Second, 20*time.Millisecond)
	st := h.Status()
	require.Contains(t, st.LastError, "now reports hash-example-v1-64 with 64 dimensions, was bm25-v1-384 with 384")
	require.Zero(t, st.PID)
	require.Equal(t, 384, h.Info().Dimensions, "the handle keeps its identity")
	_, err = h.Embed(context.Background(), embedder.PurposeQuery, []string{"x"})
	require.ErrorIs(t, err, embedder.ErrUnavailable)
	require.ErrorIs(t, err, plugins.ErrIdentityChanged)
	require.Equal(t, "embedder plugin bm25-v1-384 has failed and will not be restarted", err.Error())
}

func TestShutdownKillsEveryPlugin(t *testing.T) {
	t.Parallel()
	s, b := setup(t, plugins.Config{})
	testplugins.Install(t, b.dir, "memhost-embedder-hash", hashBinary)
	require.NoError(t, startAll(t, s, b.dir))
	var pids []int
	for _, st := range s.List() {
		require.Equal(t, plugins.StateReady, st.State, st.Name)
		require.True(t, alive(st.PID))
		pids = append(pids, st.PID)
	}
	require.Len(t, pids, 2)

	start := time.Now()
	require.NoError(t, s.Shutdown(context.Background()))
	t.Logf("shutdown took %s", time.Since(start))
	for _, pid := range pids {
		require.False(t, alive(pid), "plugin pid %d survived Shutdown", pid)
	}
	for _, st := range s.List() {
		require.Equal(t, plugins.StateStopped, st.State)
	}
	h, err := embedders.Find(s, bm25Name)
	require.NoError(t, err)
	_, err = h.Embed(context.Background(), embedder.PurposeQuery, []string{"x"})
	require.ErrorIs(t, err, embedder.ErrUnavailable)
	require.Error(t, s.Start(context.Background(), nil), "a shut down supervisor does not start again")
	require.NoError(t, s.Shutdown(context.Background()), "Shutdown is idempotent")
}

// TestKillAll is not parallel: KillAll stops every Supervisor in the
// process, including those of other tests; sequential tests run while
// parallel ones wait.
func TestKillAll(t *testing.T) {
	s, b := setup(t, plugins.Config{})
	require.NoError(t, startAll(t, s, b.dir))
	pid := status(t, s, bm25Name).PID
	plugins.KillAll()
	require.False(t, alive(pid))
	require.Equal(t, plugins.StateStopped, status(t, s, bm25Name).State)
}

// TestHostSIGKILLLeavesNoOrphans runs this test binary as a host (see
// runHelperHost), kills it with SIGKILL and checks that its plugin dies too.
func TestHostSIGKILLLeavesNoOrphans(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testplugins.Install(t, dir, "memhost-embedder-bm25", bm25Binary)

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+dir)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })

	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "PID ")))
	require.NoError(t, err, "helper said %q", line)
	require.True(t, alive(pid))

	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
	_, _ = io.Copy(io.Discard, stdout)
	start := time.Now()
	require.Eventually(t, func() bool { return !alive(pid) }, 5*time.Second, 10*time.Millisecond,
		"plugin pid %d outlived its SIGKILLed host", pid)
	t.Logf("plugin died %s after its host", time.Since(start))
}

func TestBogusPluginDoesNotBlockOthers(t *testing.T) {
	t.Parallel()
	s, b := setup(t, plugins.Config{})
	// Its complaint comes first: go-plugin kills the process as soon as it reads the line
	// that is no handshake.
	script := "#!/bin/sh\necho 'bogus: OPENAI_API_KEY is not set' >&2\necho 'this is not a plugin handshake'\nexit 3\n"
	testplugins.WriteScript(t, filepath.Join(b.dir, "memhost-embedder-bogus"), script)

	err := startAll(t, s, b.dir)
	require.Error(t, err)
	require.Contains(t, err.Error(), "memhost-embedder-bogus")
	t.Logf("bogus plugin error: %v", err)

	var bogus plugins.Status
	for _, st := range s.List() {
		if st.Binary == "memhost-embedder-bogus" {
			bogus = st
		}
	}
	require.Equal(t, plugins.StateFailed, bogus.State)
	require.Equal(t, "bogus", bogus.Name)
	require.Contains(t, bogus.LastError, "last output: bogus: OPENAI_API_KEY is not set",
		"a plugin's last words explain why it did not start")

	h, err := embedders.Find(s, bm25Name)
	require.NoError(t, err)
	require.Equal(t, plugins.StateReady, h.State())
	_, err = h.Embed(context.Background(), embedder.PurposeQuery, []string{"fine"})
	require.NoError(t, err)
	require.Len(t, embedders.List(s), 1)

	_, err = embedders.Find(s, "bogus")
	require.ErrorIs(t, err, embedder.ErrUnavailable)
	require.Equal(t, "embedder plugin bogus has failed and will not be restarted", err.Error(),
		"go-plugin's diagnosis (path, mode, owner) stays in the log and Status")
}

func TestDuplicateNameIsRejected(t *testing.T) {
	t.Parallel()
	s, b := setup(t, plugins.Config{})
	testplugins.Install(t, b.dir, "memhost-embedder-bm25copy", bm25Binary)
	err := startAll(t, s, b.dir)
	require.ErrorContains(t, err, `reports name "bm25-v1-384", already served by`)
	require.Len(t, embedders.List(s), 1)
}

// TestKindWithoutAdapter: a Supervisor runs only the kinds it has adapters
// for; it knows nothing of kinds itself.
func TestKindWithoutAdapter(t *testing.T) {
	t.Parallel()
	s, b := setup(t, plugins.Config{Adapters: []plugins.Adapter{}})
	err := startAll(t, s, b.dir)
	require.ErrorContains(t, err, `plugin kind "embedder" is not supported by this host`)
	require.Equal(t, plugins.StateFailed, s.List()[0].State)
	require.Empty(t, s.Plugins(plugin.KindEmbedder))
}

func TestDiscoverSkips(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testplugins.Install(t, dir, "memhost-embedder-bm25", bm25Binary)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "memhost-embedder-noexec"), []byte("x"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "memhost-embedder-dir"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "memhost-frobber-x"), []byte("x"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "memhost-embedder"), []byte("x"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("x"), 0o644))
	shadow := t.TempDir()
	testplugins.Install(t, shadow, "memhost-embedder-bm25", bm25Binary)

	cands, errs := plugins.Discover([]string{dir, shadow, filepath.Join(dir, "missing")}, nil)
	require.Equal(t, []plugins.Candidate{{Kind: "embedder", Name: "bm25", Path: filepath.Join(dir, "memhost-embedder-bm25")}}, cands)
	var reasons []string
	for _, err := range errs {
		var de *plugins.DiscoveryError
		require.ErrorAs(t, err, &de)
		reasons = append(reasons, filepath.Base(de.Path)+": "+de.Reason)
	}
	require.ElementsMatch(t, []string{
		"memhost-embedder-noexec: not executable",
		"memhost-embedder-dir: not a regular file",
		`memhost-frobber-x: unknown plugin kind "frobber" (this host knows embedder, provider, worker)`,
		"memhost-embedder: file name is not memhost-<kind>-<name>",
		"memhost-embedder-bm25: shadowed by " + filepath.Join(dir, "memhost-embedder-bm25"),
		"missing: cannot read plugin directory",
	}, reasons)
}

// TestPluginsDoNotInheritHostSecrets: a plugin process sees PATH and MEMHOST_PLUGIN_* settings
// but not the rest of the host's environment, which holds the database URL.
func TestPluginsDoNotInheritHostSecrets(t *testing.T) {
	t.Setenv("MEMHOST_DATABASE_URL", "postgres://memhost:not-a-real-password@db.invalid/memhost")
	t.Setenv("MEMHOST_PLUGIN_EXAMPLE_SETTING", "passed-through")
	s, b := setup(t, plugins.Config{})
	require.NoError(t, startAll(t, s, b.dir))
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(status(t, s, bm25Name).PID) + "/environ")
	require.NoError(t, err)
	env := map[string]string{}
	for _, kv := range strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00") {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	require.NotContains(t, env, "MEMHOST_DATABASE_URL")
	require.Equal(t, "passed-through", env["MEMHOST_PLUGIN_EXAMPLE_SETTING"])
	require.Equal(t, os.Getenv("PATH"), env["PATH"])
	require.Contains(t, env, plugin.Handshake.MagicCookieKey, "go-plugin's handshake still reaches the plugin")
}

// TestUnwritableSocketFolderIsNamed: a plugin whose TMPDIR cannot take its socket fails to start
// with the variable, the folder and the fix named, not go-plugin's "Unrecognized remote plugin
// message".
func TestUnwritableSocketFolderIsNamed(t *testing.T) {
	t.Parallel()
	s, b := setup(t, plugins.Config{HealthInterval: -1})
	notDir := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(notDir, nil, 0o600))
	cands, errs := plugins.Discover([]string{b.dir}, nil)
	require.Empty(t, errs)
	cands[0].Env = []string{"TMPDIR=" + notDir}
	err := s.Start(t.Context(), cands)
	require.ErrorContains(t, err, "TMPDIR="+notDir+" is not writable by this user")
	require.ErrorContains(t, err, "set TMPDIR to a folder it can write")
	require.NotContains(t, err.Error(), "Unrecognized remote plugin message")
	st := s.List()[0]
	require.Equal(t, plugins.StateFailed, st.State)
	require.Contains(t, st.LastError, "is not writable by this user")
}
