package providertest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memhost/memhost/sdk/internal/plugintest"
	"github.com/memhost/memhost/sdk/provider"
)

// limits are the time bounds Exercise holds a provider to.
type limits = plugintest.Limits

var defaultLimits = plugintest.DefaultLimits

// Option configures Exercise.
type Option struct {
	apply func(*kit)
}

// WithUser gives the kit's fake user a configuration: setup runs in every
// check with the fake home directory (HOME), writes the files the provider
// reads there (~/.codex/config.toml, say) and returns environment variables
// to add to the spawn (CODEX_HOME, say). The kit then checks that Prepare
// and Finish leave every one of those files as it was.
func WithUser(setup func(home string) (env map[string]string, err error)) Option {
	return Option{apply: func(k *kit) { k.user = setup }}
}

// Exercise runs the conformance checks against p, which may be an
// implementation or the result of Serve, Launch or Attach. Subtests run in
// parallel; p must be safe for concurrent use.
//
// Every plan is held to the protocol (provider.Plan.Validate). Beyond that
// the checks cover Describe, the user's arguments kept as given, the banner
// and the MCP server (name, URL and token) reaching the CLI, the token kept
// off the command line and out of files others can read, a spawn without
// memhost (host unreachable), Prepare and Finish writing nothing (neither
// in the user's home and working directory nor in the scratch directory,
// which memhost fills), Finish after a normal and a failed session,
// cancellation (Prepare returns promptly once its context is done), health
// and concurrent use. A provider that implements provider.Connector has its
// connect plan checked: valid, the same when asked twice, naming memhost,
// touching only the user's own files and written by no one but memhost. A
// provider that implements provider.Tasker finds the task in the arguments. A
// provider that implements provider.TranscriptReader refuses a file it cannot
// prove the session's with a reason, and (WithTranscript) reads its own
// layout: the session's turns, never another session's or directory's.
// Over the wire the client already returns when the
// context ends, so run Exercise on the implementation itself too.
//
// A check never panics on a malformed result and keeps its failure message
// to one short line.
func Exercise(t *testing.T, p provider.Provider, opts ...Option) {
	t.Helper()
	k := newKit(t, p, defaultLimits, opts...)
	plugintest.RunChecks(t, k, checks)
}

// check is one conformance subtest (see plugintest.Check).
type check = plugintest.Check[*kit]

var checks = []check{
	{Name: "DescribeIsSane", Run: checkDescribe},
	{Name: "KeepsUserArgs", Run: checkKeepsUserArgs},
	{Name: "DeliversBanner", Run: checkDeliversBanner},
	{Name: "DeliversMCP", Run: checkDeliversMCP},
	{Name: "KeepsTokenPrivate", Run: checkKeepsTokenPrivate},
	{Name: "StartsWithoutMemhost", Run: checkStartsWithoutMemhost},
	{Name: "WritesNothing", Run: checkWritesNothing},
	{Name: "Finish", Run: checkFinish},
	{Name: "CancelledContext", Run: checkCancelledContext},
	{Name: "Health", Run: checkHealth},
	{Name: "Concurrent", Run: checkConcurrent},
	{Name: "Connect", Run: checkConnect},
	{Name: "Task", Run: checkTask},
	{Name: "Transcript", Run: checkTranscript},
}

// kit is the provider under test and what Describe said about it.
type kit struct {
	p      provider.Provider
	info   provider.Info
	limits limits
	user   func(home string) (map[string]string, error)
	// transcript writes transcripts of the provider's layout (WithTranscript).
	transcript TranscriptWriter
}

func newKit(t testing.TB, p provider.Provider, l limits, opts ...Option) *kit {
	t.Helper()
	k := &kit{p: p, limits: l}
	for _, o := range opts {
		o.apply(k)
	}
	k.info = k.describe(t)
	if err := k.info.Validate(); err != nil {
		t.Fatalf("Describe returned invalid info: %v", err)
	}
	return k
}

// world is one spawn's surroundings: a fake user's home, a project
// directory and an empty scratch directory, all under one temporary root.
type world struct {
	home, dir, scratch string
	spawn              provider.Spawn
}

// checkTask: a provider that reads its CLI's prompt argument (provider.Tasker)
// finds none in no arguments, and whatever it finds comes from the arguments
// (one of them, the value of an --option=value, or positional words joined):
// memhost searches with it, so it must be the user's own words. A plugin
// without the RPC (ErrUnimplemented) passes.
func checkTask(t testing.TB, k *kit) {
	tk, ok := k.p.(provider.Tasker)
	switch {
	case !ok && k.info.Task == nil:
		return
	case !ok:
		// Declared rules alone: memhost reads the task with them.
		tk = *k.info.Task
	}
	for _, args := range [][]string{nil, userArgs, {"--", "a prompt after the options' end"}, {"mcp", "list"}} {
		ctx, cancel := context.WithTimeout(context.Background(), k.limits.Call)
		var task string
		call := plugintest.GoErr(func() (err error) {
			task, err = tk.Task(ctx, args)
			return err
		})
		err := call.Err(t, "Task", k.limits.Call+k.limits.Cancel)
		cancel()
		if errors.Is(err, provider.ErrUnimplemented) {
			return
		}
		if err != nil {
			t.Fatalf("Task(%q): %s", args, plugintest.Short(err.Error()))
		}
		if r := k.info.Task; r != nil {
			if want, _ := r.Task(context.Background(), args); task != want {
				t.Fatalf("Task(%q) = %q; the declared task rules read %q", args, plugintest.Short(task), plugintest.Short(want))
			}
		}
		if len(args) == 0 && task != "" {
			t.Fatalf("Task of no arguments: %q; want none", plugintest.Short(task))
		}
		if task != "" && !fromArgs(task, args) {
			t.Fatalf("Task(%q) = %q: not the arguments' own words", args, plugintest.Short(task))
		}
	}
}

// fromArgs reports whether every word of task is a word of args.
func fromArgs(task string, args []string) bool {
	words := map[string]bool{}
	for _, a := range args {
		_, v, _ := strings.Cut(a, "=")
		for _, w := range append(strings.Fields(a), strings.Fields(v)...) {
			words[w] = true
		}
	}
	for _, w := range strings.Fields(task) {
		if !words[w] {
			return false
		}
	}
	return true
}

// userArgs are the arguments a typical headless spawn passes.
var userArgs = []string{"-p", "what do we use here?"}

// newWorld builds a world for a spawn with args, with memhost reachable
// (banner and MCP server set) or not.
func (k *kit) newWorld(t testing.TB, args []string, reachable bool) *world {
	t.Helper()
	root, err := os.MkdirTemp("", "providertest-")
	if err != nil {
		t.Fatalf("create a temporary directory: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	// Symlinks resolved, as memhost resolves the project directory.
	if root, err = filepath.EvalSymlinks(root); err != nil {
		t.Fatalf("resolve the temporary directory: %v", err)
	}
	w := &world{home: filepath.Join(root, "home"), dir: filepath.Join(root, "project"), scratch: filepath.Join(root, "scratch")}
	for _, d := range []string{w.home, w.dir, filepath.Join(root, "bin")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatalf("create %s: %v", d, err)
		}
	}
	if err := os.Mkdir(w.scratch, 0o700); err != nil {
		t.Fatalf("create the scratch directory: %v", err)
	}
	if err := os.WriteFile(filepath.Join(w.dir, "README.md"), []byte("# a project\n"), 0o644); err != nil {
		t.Fatalf("write a project file: %v", err)
	}
	env := map[string]string{"HOME": w.home, "PATH": filepath.Join(root, "bin") + ":/usr/bin:/bin", "LANG": "C.UTF-8"}
	if k.user != nil {
		extra, err := k.user(w.home)
		if err != nil {
			t.Fatalf("WithUser setup: %v", err)
		}
		maps.Copy(env, extra)
	}
	w.spawn = provider.Spawn{
		CLI:        k.info.Name,
		Executable: filepath.Join(root, "bin", k.info.Executable),
		Args:       args,
		Dir:        w.dir,
		Env:        env,
		Project:    "github.com/example/providertest",
		ScratchDir: w.scratch,
	}
	if reachable {
		w.spawn.Banner = "# Project brain\nGoal: ship it.\nprovidertest-banner-" + random(8) + "\n"
		w.spawn.MCP = &provider.MCPServer{Name: provider.ServerName, URL: "http://127.0.0.1:7420/mcp", Token: fakeToken()}
	}
	return w
}

// fakeToken has the shape of a memhost token and no value anywhere else.
func fakeToken() string { return "mh_" + random(32) }

func random(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func checkDescribe(t testing.TB, k *kit) {
	if k.info.Version == "" {
		t.Fatalf("Describe: version is empty")
	}
	if again := k.describe(t); !reflect.DeepEqual(again, k.info) {
		t.Fatalf("Describe is not stable: first %s, then %s", plugintest.Truncate(fmt.Sprintf("%+v", k.info), plugintest.MaxMessage/2), plugintest.Truncate(fmt.Sprintf("%+v", again), plugintest.MaxMessage/2))
	}
}

// checkKeepsUserArgs: whatever the user passed comes through unchanged:
// nothing, a prompt with spaces, options that look like the provider's own,
// an empty argument, a "--" and non-ASCII text.
func checkKeepsUserArgs(t testing.TB, k *kit) {
	for _, args := range [][]string{
		nil,
		userArgs,
		{"--model", "x", "", "--", "-p", "naïve café 東京"},
	} {
		w := k.newWorld(t, args, true)
		k.prepare(t, w.spawn) // Validate checks the run of user arguments
	}
}

func checkDeliversBanner(t testing.TB, k *kit) {
	w := k.newWorld(t, userArgs, true)
	plan := k.prepare(t, w.spawn)
	sentinel := strings.TrimSpace(w.spawn.Banner[strings.LastIndex(w.spawn.Banner, "providertest-banner-"):])
	if !reaches(plan, sentinel) {
		t.Fatalf("the banner reaches the CLI through no argument, environment variable or scratch file")
	}
	if !plan.DeliversBanner {
		t.Fatalf("the plan gives the CLI the banner but does not say so (Plan.DeliversBanner): a CLI memhost connect hooked reads it twice")
	}
}

func checkDeliversMCP(t testing.TB, k *kit) {
	w := k.newWorld(t, userArgs, true)
	plan := k.prepare(t, w.spawn)
	if !reaches(plan, w.spawn.MCP.URL) {
		t.Fatalf("the MCP URL %s reaches the CLI through no argument, environment variable or scratch file", w.spawn.MCP.URL)
	}
	if !reaches(plan, w.spawn.MCP.Token) {
		t.Fatalf("the MCP token reaches the CLI through no environment variable or scratch file")
	}
	if !reaches(plan, provider.ServerName) {
		t.Fatalf("the MCP server is not registered under the name %q", provider.ServerName)
	}
}

// checkKeepsTokenPrivate: Plan.Validate refuses the token on the command
// line and in files others can read; this check names the breach plainly
// when the provider is tested directly.
func checkKeepsTokenPrivate(t testing.TB, k *kit) {
	w := k.newWorld(t, userArgs, true)
	plan := k.prepare(t, w.spawn)
	for i, a := range plan.Args {
		if strings.Contains(a, w.spawn.MCP.Token) {
			t.Fatalf("args[%d] holds the MCP token", i)
		}
	}
	for _, f := range plan.Files {
		if bytes.Contains(f.Content, []byte(w.spawn.MCP.Token)) && f.Mode&0o077 != 0 {
			t.Fatalf("scratch file %s holds the MCP token with mode %#o", f.Path, uint32(f.Mode))
		}
	}
}

// checkStartsWithoutMemhost: with the host unreachable (no banner, no MCP
// server) the CLI still starts, with the user's arguments.
func checkStartsWithoutMemhost(t testing.TB, k *kit) {
	w := k.newWorld(t, userArgs, false)
	k.prepare(t, w.spawn)
}

// checkWritesNothing: Prepare and Finish leave the user's home and working
// directory as they were and the scratch directory empty: memhost applies
// the plan, the provider only answers.
func checkWritesNothing(t testing.TB, k *kit) {
	w := k.newWorld(t, userArgs, true)
	before := map[string]map[string]string{"home": snapshot(t, w.home), "working directory": snapshot(t, w.dir)}
	plan := k.prepare(t, w.spawn)
	k.finish(t, provider.Ended{Spawn: w.spawn, State: plan.State, ExitCode: 0, StartedAt: time.Now().Add(-time.Second), Duration: time.Second})
	for name, dir := range map[string]string{"home": w.home, "working directory": w.dir} {
		if diff := compare(before[name], snapshot(t, dir)); diff != "" {
			t.Fatalf("Prepare or Finish changed the user's %s: %s", name, diff)
		}
	}
	if diff := compare(map[string]string{}, snapshot(t, w.scratch)); diff != "" {
		t.Fatalf("Prepare or Finish wrote into the scratch directory (memhost creates Plan.Files): %s", diff)
	}
}

// checkFinish: Finish succeeds after a session that ran normally, one that
// failed and one killed by a signal, when the CLI left no session behind.
func checkFinish(t testing.TB, k *kit) {
	w := k.newWorld(t, userArgs, true)
	plan := k.prepare(t, w.spawn)
	for _, code := range []int{0, 1, 130} {
		k.finish(t, provider.Ended{Spawn: w.spawn, State: plan.State, ExitCode: code, StartedAt: time.Now().Add(-time.Second), Duration: time.Second})
	}
}

// checkCancelledContext: Prepare called with a context that is already
// done returns within the grace period, with an error wrapping
// context.Canceled or (a provider fast enough to finish anyway) a valid plan.
func checkCancelledContext(t testing.TB, k *kit) {
	w := k.newWorld(t, userArgs, true)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var plan provider.Plan
	call := plugintest.GoErr(func() (err error) {
		plan, err = k.p.Prepare(ctx, w.spawn)
		return err
	})
	err := call.Err(t, "Prepare with a cancelled context", k.limits.Cancel)
	if err == nil {
		if verr := plan.Validate(w.spawn); verr != nil {
			t.Fatalf("Prepare returned an invalid plan: %s", plugintest.Short(verr.Error()))
		}
		return
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled Prepare returned an error that does not wrap context.Canceled: %s", plugintest.Short(err.Error()))
	}
}

func checkHealth(t testing.TB, k *kit) {
	plugintest.CheckHealth(t, k.limits, k.p.Health)
}

// checkConcurrent: spawns prepared at once each get their own plan.
func checkConcurrent(t testing.TB, k *kit) {
	const n = 4
	worlds := make([]*world, n)
	for i := range worlds {
		worlds[i] = k.newWorld(t, userArgs, true)
	}
	plans := make([]provider.Plan, n)
	var wg sync.WaitGroup
	for i, w := range worlds {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), k.limits.Call)
			defer cancel()
			plans[i], _ = k.p.Prepare(ctx, w.spawn)
		})
	}
	wg.Wait()
	for i, w := range worlds {
		if err := plans[i].Validate(w.spawn); err != nil {
			t.Fatalf("concurrent Prepare %d returned an invalid plan: %s", i, plugintest.Short(err.Error()))
		}
		if !reaches(plans[i], w.spawn.MCP.Token) {
			t.Fatalf("concurrent Prepare %d does not carry its own spawn's token", i)
		}
	}
}

func (k *kit) describe(t testing.TB) provider.Info {
	t.Helper()
	return plugintest.Describe(t, k.limits, k.p.Describe)
}

// prepare calls Prepare, requiring success and a plan that keeps the
// protocol.
func (k *kit) prepare(t testing.TB, s provider.Spawn) provider.Plan {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), k.limits.Call)
	defer cancel()
	var plan provider.Plan
	call := plugintest.GoErr(func() (err error) {
		plan, err = k.p.Prepare(ctx, s)
		return err
	})
	if err := call.Err(t, "Prepare", k.limits.Call+k.limits.Cancel); err != nil {
		t.Fatalf("Prepare: %s", plugintest.Short(err.Error()))
	}
	if err := plan.Validate(s); err != nil {
		t.Fatalf("Prepare returned an invalid plan: %s", plugintest.Short(err.Error()))
	}
	return plan
}

// finish calls Finish, requiring success and a well-formed session.
func (k *kit) finish(t testing.TB, e provider.Ended) provider.Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), k.limits.Call)
	defer cancel()
	var sess provider.Session
	call := plugintest.GoErr(func() (err error) {
		sess, err = k.p.Finish(ctx, e)
		return err
	})
	what := fmt.Sprintf("Finish after exit code %d", e.ExitCode)
	if err := call.Err(t, what, k.limits.Call+k.limits.Cancel); err != nil {
		t.Fatalf("%s: %s", what, plugintest.Short(err.Error()))
	}
	if sess.Transcript != "" && !filepath.IsAbs(sess.Transcript) {
		t.Fatalf("%s: transcript %s is not an absolute path", what, quote(sess.Transcript))
	}
	return sess
}

// reaches reports whether s is in an argument, an environment value or a
// regular scratch file of plan.
func reaches(plan provider.Plan, s string) bool {
	for _, a := range plan.Args {
		if strings.Contains(a, s) {
			return true
		}
	}
	for _, v := range plan.SetEnv {
		if strings.Contains(v, s) {
			return true
		}
	}
	for _, f := range plan.Files {
		if bytes.Contains(f.Content, []byte(s)) {
			return true
		}
	}
	return false
}

// snapshot describes every entry under root: its type and mode, and a
// regular file's content or a link's target.
func snapshot(t testing.TB, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		desc := fi.Mode().String()
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			desc += " -> " + target
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			desc += " " + string(b)
		}
		out[rel] = desc
		return nil
	})
	if err != nil {
		t.Fatalf("snapshot %s: %v", root, err)
	}
	return out
}

// compare names the first difference between two snapshots.
func compare(before, after map[string]string) string {
	for p, b := range before {
		a, ok := after[p]
		switch {
		case !ok:
			return p + " was removed"
		case a != b:
			return p + " was changed"
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			return p + " was created"
		}
	}
	return ""
}

// quote names a text in a failure message.
func quote(s string) string { return fmt.Sprintf("%q", plugintest.Truncate(s, 48)) }

// checkConnect: a provider that can connect its CLI (provider.Connector)
// answers a valid plan that registers memhost, changes only files in the
// user's home or in folders the user's environment names, is the same when
// asked again (undo asks again) and writes nothing itself. A provider
// without Connect (ErrUnimplemented over the wire) passes: connecting is
// optional.
func checkConnect(t testing.TB, k *kit) {
	c, ok := k.p.(provider.Connector)
	if !ok {
		return
	}
	w := k.newWorld(t, nil, false)
	r := provider.ConnectRequest{
		Env: w.spawn.Env, Memhost: "/opt/providertest/bin/memhost", Config: "/etc/providertest/memhost.toml",
		Hook: "/opt/providertest/bin/memhost hook session-start --cli " + k.info.Name,
	}
	before := snapshot(t, w.home)
	conn, err := k.connect(t, c, r)
	if errors.Is(err, provider.ErrUnimplemented) {
		return
	}
	if err != nil {
		t.Fatalf("Connect: %s", plugintest.Short(err.Error()))
	}
	if err := conn.Validate(); err != nil {
		t.Fatalf("Connect returned an invalid plan: %s", plugintest.Short(err.Error()))
	}
	if conn.RegisteredIn != "" {
		t.Fatalf("Connect: a fresh user has memhost registered in %s", quote(conn.RegisteredIn))
	}
	roots := []string{w.home}
	for _, v := range w.spawn.Env {
		if filepath.IsAbs(v) && !strings.Contains(v, ":") {
			roots = append(roots, v)
		}
	}
	named := false
	for _, s := range conn.Steps {
		if !slices.ContainsFunc(roots, func(root string) bool { return strings.HasPrefix(s.File, root+"/") }) {
			t.Fatalf("Connect: step changes %s, outside the user's home and configuration folders", quote(s.File))
		}
		var text string
		switch {
		case s.Run != nil:
			text = strings.Join(s.Run.Args, " ")
		case s.JSONAppend != nil:
			text = s.JSONAppend.Value
		case s.TextAppend != nil:
			text = s.TextAppend.Text
		}
		named = named || strings.Contains(text, r.Memhost)
	}
	if !named {
		t.Fatalf("Connect: no step registers memhost (%s)", quote(r.Memhost))
	}
	if again, err := k.connect(t, c, r); err != nil || !reflect.DeepEqual(again, conn) {
		t.Fatalf("Connect is not the same when asked again (undo asks again): %v", err)
	}
	if diff := compare(before, snapshot(t, w.home)); diff != "" {
		t.Fatalf("Connect changed the user's home (memhost applies the plan): %s", diff)
	}
}

// connect calls Connect within the call limit.
func (k *kit) connect(t testing.TB, c provider.Connector, r provider.ConnectRequest) (provider.Connection, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), k.limits.Call)
	defer cancel()
	var conn provider.Connection
	call := plugintest.GoErr(func() (err error) {
		conn, err = c.Connect(ctx, r)
		return err
	})
	return conn, call.Err(t, "Connect", k.limits.Call+k.limits.Cancel)
}
