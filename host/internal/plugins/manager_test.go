package plugins

import (
	"bufio"
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
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/plugin"
)

const bm25Name = "bm25-v1-384"

// installPlugin puts a copy of src into dir under file name name. A copy,
// not a link, so that a test may replace it without touching src.
func installPlugin(t *testing.T, dir, name, src string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	require.NoError(t, err)
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, data, 0o755))
	return path
}

func testLogger() hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: "test", Output: os.Stderr, Level: hclog.Warn})
}

type bundle struct {
	dir string
	reg *prometheus.Registry
}

// setup returns a Manager whose Shutdown runs at the end of the test, and a
// plugin directory holding the BM25 plugin.
func setup(t *testing.T, cfg Config) (*Manager, *bundle) {
	t.Helper()
	b := &bundle{dir: t.TempDir(), reg: prometheus.NewPedanticRegistry()}
	installPlugin(t, b.dir, "memhost-embedder-bm25", bm25Binary)
	if cfg.Logger == nil {
		cfg.Logger = testLogger()
	}
	cfg.Registerer = b.reg
	m := New(cfg)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, m.Shutdown(ctx))
	})
	return m, b
}

func startAll(t *testing.T, m *Manager, dir string) error {
	t.Helper()
	cands, errs := Discover([]string{dir}, nil)
	require.Empty(t, errs)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return m.Start(ctx, cands)
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

func status(t *testing.T, m *Manager, name string) Status {
	t.Helper()
	for _, s := range m.List() {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no plugin %q in %+v", name, m.List())
	return Status{}
}

func TestStartDescribeEmbed(t *testing.T) {
	t.Parallel()
	m, b := setup(t, Config{})
	require.NoError(t, startAll(t, m, b.dir))

	h, err := m.Embedder(bm25Name)
	require.NoError(t, err)
	byFile, err := m.Embedder("bm25")
	require.NoError(t, err)
	require.Same(t, h, byFile)
	require.Len(t, m.Embedders(), 1)

	ctx := context.Background()
	info, err := h.Describe(ctx)
	require.NoError(t, err)
	require.Equal(t, bm25Name, info.Name)
	require.Equal(t, 384, info.Dimensions)
	require.Equal(t, info, h.Info())
	require.Equal(t, filepath.Join(b.dir, "memhost-embedder-bm25"), h.Path())
	require.Equal(t, StateReady, h.State())

	vecs, err := h.Embed(ctx, embedder.PurposeDocument, []string{"postgres is the source of truth", "plugins restart"})
	require.NoError(t, err)
	require.Len(t, vecs, 2)
	require.Len(t, vecs[0], 384)
	require.NoError(t, h.Health(ctx))

	// Plugin errors keep their sentinel through the handle.
	_, err = h.Embed(ctx, embedder.PurposeDocument, make([]string, info.MaxBatch+1))
	require.ErrorIs(t, err, embedder.ErrInvalidInput)

	st := m.List()
	require.Len(t, st, 1)
	s := st[0]
	require.Equal(t, "embedder", s.Kind)
	require.Equal(t, bm25Name, s.Name)
	require.Equal(t, "memhost-embedder-bm25", s.Binary)
	require.NotEmpty(t, s.Version)
	require.Equal(t, h.Path(), s.Path)
	require.Equal(t, StateReady, s.State)
	require.Equal(t, 384, s.Dimensions)
	require.True(t, alive(s.PID), "pid %d", s.PID)
	require.Zero(t, s.Restarts)
	require.Empty(t, s.LastError)

	_, err = m.Embedder("nope")
	require.ErrorIs(t, err, ErrNotFound)

	require.Equal(t, 1.0, testutil.ToFloat64(m.metrics.calls.WithLabelValues("embedder", bm25Name, "Embed", "invalid_input")))
	require.Equal(t, 1.0, testutil.ToFloat64(m.metrics.calls.WithLabelValues("embedder", bm25Name, "Embed", "ok")))
	n, err := testutil.GatherAndCount(b.reg, "memhost_plugin_call_duration_seconds")
	require.NoError(t, err)
	require.Positive(t, n)
}

func TestChecksumAllowList(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := installPlugin(t, dir, "memhost-embedder-bm25", bm25Binary)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	sum := sha256.Sum256(data)
	right := hex.EncodeToString(sum[:])
	wrong := strings.Repeat("0", 64)

	t.Run("wrong checksum is not loaded", func(t *testing.T) {
		cands, errs := Discover([]string{dir}, map[string]string{"memhost-embedder-bm25": wrong})
		require.Empty(t, cands)
		require.Len(t, errs, 1)
		require.ErrorIs(t, errs[0], ErrChecksumMismatch)
		require.Contains(t, errs[0].Error(), right, "the error names the actual digest")
	})
	t.Run("unlisted binary is not loaded", func(t *testing.T) {
		cands, errs := Discover([]string{dir}, map[string]string{"memhost-embedder-other": right})
		require.Empty(t, cands)
		require.Len(t, errs, 2)
		require.Contains(t, errs[0].Error(), "not in the plugin checksum allow-list")
		require.Contains(t, errs[1].Error(), "memhost-embedder-other")
		require.Contains(t, errs[1].Error(), "not found")
	})
	t.Run("launch re-checks the checksum", func(t *testing.T) {
		// A candidate whose binary changed after discovery: go-plugin's
		// SecureConfig refuses to run it.
		m, _ := setup(t, Config{})
		err := m.Start(context.Background(), []Candidate{{Kind: "embedder", Name: "bm25", Path: path, Checksum: wrong}})
		require.ErrorIs(t, err, ErrChecksumMismatch)
		s := m.List()[0]
		require.Equal(t, StateFailed, s.State)
		require.Contains(t, s.LastError, "changed since it was allow-listed")
		_, err = m.Embedder("bm25")
		require.ErrorIs(t, err, embedder.ErrUnavailable)
	})
	t.Run("right checksum loads", func(t *testing.T) {
		cands, errs := Discover([]string{dir}, map[string]string{"memhost-embedder-bm25": strings.ToUpper(right)})
		require.Empty(t, errs)
		require.Len(t, cands, 1)
		require.Equal(t, right, cands[0].Checksum)
		m, _ := setup(t, Config{})
		require.NoError(t, m.Start(context.Background(), cands))
		h, err := m.Embedder(bm25Name)
		require.NoError(t, err)
		_, err = h.Embed(context.Background(), embedder.PurposeQuery, []string{"hello"})
		require.NoError(t, err)
	})
}

func TestCrashRecovery(t *testing.T) {
	t.Parallel()
	// No health loop: the calls themselves must notice the crash.
	m, b := setup(t, Config{HealthInterval: -1, RestartBackoffInitial: 400 * time.Millisecond, RestartBackoffMax: time.Second})
	require.NoError(t, startAll(t, m, b.dir))
	h, err := m.Embedder(bm25Name)
	require.NoError(t, err)
	ctx := context.Background()
	texts := []string{"a memory that must survive a crash"}
	want, err := h.Embed(ctx, embedder.PurposeDocument, texts)
	require.NoError(t, err)

	before := status(t, m, bm25Name)
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
		var ue *UnavailableError
		if errors.As(err, &ue) && ue.State == StateRestarting {
			sawRestarting = true
			require.Contains(t, err.Error(), "embedder "+bm25Name+" is restarting (attempt 1")
		}
		require.Less(t, time.Since(start), 15*time.Second, "plugin was not restarted: %v", err)
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("recovered after %s, %d failed calls", time.Since(start), failures)
	require.Positive(t, failures)
	require.True(t, sawRestarting)

	after := status(t, m, bm25Name)
	require.Equal(t, StateReady, after.State)
	require.Equal(t, 1, after.Restarts)
	require.NotEqual(t, before.PID, after.PID)
	require.True(t, alive(after.PID))
	require.False(t, alive(before.PID))
	// Whichever noticed first (the call seeing the exit, or the probe seeing
	// the dead socket) is recorded as the cause.
	require.Regexp(t, `exited|unavailable`, after.LastError)
	require.Equal(t, 1.0, testutil.ToFloat64(m.metrics.restarts.WithLabelValues("embedder", bm25Name)))
	require.Positive(t, testutil.ToFloat64(m.metrics.calls.WithLabelValues("embedder", bm25Name, "Embed", "unavailable")))
}

func TestHealthLoopRestartsDeadPlugin(t *testing.T) {
	t.Parallel()
	m, b := setup(t, Config{HealthInterval: 50 * time.Millisecond, RestartBackoffInitial: 10 * time.Millisecond})
	require.NoError(t, startAll(t, m, b.dir))
	before := status(t, m, bm25Name)
	require.NoError(t, syscall.Kill(before.PID, syscall.SIGKILL))
	start := time.Now()
	require.Eventually(t, func() bool {
		s := status(t, m, bm25Name)
		return s.State == StateReady && s.Restarts == 1
	}, 10*time.Second, 10*time.Millisecond)
	t.Logf("health loop restarted the plugin within %s", time.Since(start))
	h, err := m.Embedder(bm25Name)
	require.NoError(t, err)
	_, err = h.Embed(context.Background(), embedder.PurposeQuery, []string{"back"})
	require.NoError(t, err)
}

func TestRestartRefusesChangedIdentity(t *testing.T) {
	t.Parallel()
	m, b := setup(t, Config{HealthInterval: -1, RestartBackoffInitial: 10 * time.Millisecond})
	require.NoError(t, startAll(t, m, b.dir))
	h, err := m.Embedder(bm25Name)
	require.NoError(t, err)

	// Replace the binary by another embedder (rename: the running file is
	// busy), then crash the process so the restart picks it up.
	tmp := installPlugin(t, b.dir, "swap.tmp", hashBinary)
	require.NoError(t, os.Rename(tmp, h.Path()))
	require.NoError(t, syscall.Kill(status(t, m, bm25Name).PID, syscall.SIGKILL))

	require.Eventually(t, func() bool {
		_, _ = h.Embed(context.Background(), embedder.PurposeQuery, []string{"x"})
		return h.State() == StateFailed
	}, 10*time.Second, 20*time.Millisecond)
	s := h.Status()
	require.Contains(t, s.LastError, "now reports hash-example-v1-64 with 64 dimensions, was bm25-v1-384 with 384")
	require.Zero(t, s.PID)
	require.Equal(t, 384, h.Info().Dimensions, "the handle keeps its identity")
	_, err = h.Embed(context.Background(), embedder.PurposeQuery, []string{"x"})
	require.ErrorIs(t, err, embedder.ErrUnavailable)
	require.ErrorIs(t, err, ErrIdentityChanged)
	require.Contains(t, err.Error(), "has failed and will not be restarted")
}

func TestShutdownKillsEveryPlugin(t *testing.T) {
	t.Parallel()
	m, b := setup(t, Config{})
	installPlugin(t, b.dir, "memhost-embedder-hash", hashBinary)
	require.NoError(t, startAll(t, m, b.dir))
	var pids []int
	for _, s := range m.List() {
		require.Equal(t, StateReady, s.State, s.Name)
		require.True(t, alive(s.PID))
		pids = append(pids, s.PID)
	}
	require.Len(t, pids, 2)

	start := time.Now()
	require.NoError(t, m.Shutdown(context.Background()))
	t.Logf("shutdown took %s", time.Since(start))
	for _, pid := range pids {
		require.False(t, alive(pid), "plugin pid %d survived Shutdown", pid)
	}
	for _, s := range m.List() {
		require.Equal(t, StateStopped, s.State)
	}
	h, err := m.Embedder(bm25Name)
	require.NoError(t, err)
	_, err = h.Embed(context.Background(), embedder.PurposeQuery, []string{"x"})
	require.ErrorIs(t, err, embedder.ErrUnavailable)
	require.Error(t, m.Start(context.Background(), nil), "a shut down manager does not start again")
	require.NoError(t, m.Shutdown(context.Background()), "Shutdown is idempotent")
}

// TestKillAll is not parallel: KillAll stops every Manager in the process,
// including those of other tests; sequential tests run while parallel ones
// wait.
func TestKillAll(t *testing.T) {
	m, b := setup(t, Config{})
	require.NoError(t, startAll(t, m, b.dir))
	pid := status(t, m, bm25Name).PID
	KillAll()
	require.False(t, alive(pid))
	require.Equal(t, StateStopped, status(t, m, bm25Name).State)
}

// TestHostSIGKILLLeavesNoOrphans runs this test binary as a host (see
// runHelperHost), kills it with SIGKILL and checks that its plugin dies too.
func TestHostSIGKILLLeavesNoOrphans(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	installPlugin(t, dir, "memhost-embedder-bm25", bm25Binary)

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
	m, b := setup(t, Config{})
	script := "#!/bin/sh\necho 'this is not a plugin handshake'\nexit 3\n"
	require.NoError(t, os.WriteFile(filepath.Join(b.dir, "memhost-embedder-bogus"), []byte(script), 0o755))

	err := startAll(t, m, b.dir)
	require.Error(t, err)
	require.Contains(t, err.Error(), "memhost-embedder-bogus")
	t.Logf("bogus plugin error: %v", err)

	var bogus Status
	for _, s := range m.List() {
		if s.Binary == "memhost-embedder-bogus" {
			bogus = s
		}
	}
	require.Equal(t, StateFailed, bogus.State)
	require.Equal(t, "bogus", bogus.Name)
	require.NotEmpty(t, bogus.LastError)

	h, err := m.Embedder(bm25Name)
	require.NoError(t, err)
	require.Equal(t, StateReady, h.State())
	_, err = h.Embed(context.Background(), embedder.PurposeQuery, []string{"fine"})
	require.NoError(t, err)
	require.Len(t, m.Embedders(), 1)

	_, err = m.Embedder("bogus")
	require.ErrorIs(t, err, embedder.ErrUnavailable)
	require.Contains(t, err.Error(), "has failed")
}

func TestDuplicateNameIsRejected(t *testing.T) {
	t.Parallel()
	m, b := setup(t, Config{})
	installPlugin(t, b.dir, "memhost-embedder-bm25copy", bm25Binary)
	err := startAll(t, m, b.dir)
	require.ErrorContains(t, err, `reports name "bm25-v1-384", already served by`)
	require.Len(t, m.Embedders(), 1)
}

func TestDiscoverSkips(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	installPlugin(t, dir, "memhost-embedder-bm25", bm25Binary)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "memhost-embedder-noexec"), []byte("x"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "memhost-embedder-dir"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "memhost-frobber-x"), []byte("x"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "memhost-embedder"), []byte("x"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("x"), 0o644))
	shadow := t.TempDir()
	installPlugin(t, shadow, "memhost-embedder-bm25", bm25Binary)

	cands, errs := Discover([]string{dir, shadow, filepath.Join(dir, "missing")}, nil)
	require.Equal(t, []Candidate{{Kind: "embedder", Name: "bm25", Path: filepath.Join(dir, "memhost-embedder-bm25")}}, cands)
	var reasons []string
	for _, err := range errs {
		var de *DiscoveryError
		require.ErrorAs(t, err, &de)
		reasons = append(reasons, filepath.Base(de.Path)+": "+de.Reason)
	}
	require.ElementsMatch(t, []string{
		"memhost-embedder-noexec: not executable",
		"memhost-embedder-dir: not a regular file",
		`memhost-frobber-x: unknown plugin kind "frobber" (this host knows embedder)`,
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
	m, b := setup(t, Config{})
	require.NoError(t, startAll(t, m, b.dir))
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(status(t, m, bm25Name).PID) + "/environ")
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
