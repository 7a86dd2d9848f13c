package providertest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/provider"
)

// recorder is a testing.TB that records failures instead of failing the
// real test, so that the kit's checks can be run against broken providers.
// Like testing.T, FailNow and SkipNow end the calling goroutine.
type recorder struct {
	testing.TB // nil: calling a method not overridden here panics

	mu       sync.Mutex
	failed   bool
	messages []string
	cleanups []func()
}

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return "recorder" }

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = true
	r.messages = append(r.messages, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...); r.FailNow() }
func (r *recorder) Fail()                             { r.Errorf("Fail called") }
func (r *recorder) FailNow()                          { r.Fail(); runtime.Goexit() }
func (r *recorder) Logf(string, ...any)               {}

func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

func (r *recorder) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, f)
}

// first returns the first recorded failure.
func (r *recorder) first() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.messages) == 0 {
		return ""
	}
	return r.messages[0]
}

// run runs f with a recorder on its own goroutine, as testing.T runs a test.
func run(f func(t testing.TB)) *recorder {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
	return r
}

// fastLimits keeps the kit's tests of hanging providers short.
// Its cancel bound is still far above what a well-behaved plugin needs: a cancelled call that
// returns at once took over 100 ms on a machine loaded by two make test runs.
var fastLimits = limits{Call: 2 * time.Second, Cancel: time.Second}

// kitResults runs newKit and every check against p with a recorder each.
func kitResults(t *testing.T, p provider.Provider, opts ...Option) map[string]*recorder {
	t.Helper()
	var k *kit
	setup := run(func(tb testing.TB) { k = newKit(tb, p, fastLimits, opts...) })
	require.False(t, setup.Failed(), "setup failed: %s", setup.first())
	results := map[string]*recorder{}
	for _, c := range checks {
		results[c.Name] = run(func(tb testing.TB) { c.Run(tb, k) })
	}
	return results
}

// requireFails checks that the named checks failed with a short message
// containing want, and that no other check failed.
func requireFails(t *testing.T, results map[string]*recorder, want string, names ...string) {
	t.Helper()
	for name, r := range results {
		if !slices.Contains(names, name) {
			require.False(t, r.Failed(), "check %s failed unexpectedly: %s", name, r.first())
			continue
		}
		require.True(t, r.Failed(), "check %s passed; it must catch this provider", name)
		require.Contains(t, r.first(), want, "check %s", name)
		require.LessOrEqual(t, len(r.first()), 240, "check %s: failure message too long: %s", name, r.first())
	}
}

// withMemhost are the checks that prepare a spawn with memhost reachable
// and the user's usual arguments.
var withMemhost = []string{"KeepsUserArgs", "DeliversBanner", "DeliversMCP", "KeepsTokenPrivate", "WritesNothing", "Finish", "Concurrent"}

// fake is a well-behaved provider shaped like a real one: the MCP server
// in a 0600 JSON file named on the command line, the banner in a file, the
// user's arguments last. Each test breaks one aspect of it.
type fake struct {
	// mutate, when set, changes each plan.
	mutate func(s provider.Spawn, p *provider.Plan)
	// sideEffect, when set, runs in Prepare (to write where it must not).
	sideEffect func(s provider.Spawn)
	// blockCancelled, when set, makes Prepare wait for it to close when
	// called with a context that is already done.
	blockCancelled chan struct{}
	// panicFinish makes Finish panic.
	panicFinish bool
	// healthErr is what Health returns.
	healthErr error
	// describes counts Describe calls; unstable makes the version change.
	describes atomic.Int32
	unstable  bool
	// connectTo, when set, is the file Connect's plan changes instead of
	// one in the user's home; connectWrites makes Connect write it itself.
	connectTo     string
	connectWrites bool
}

var _ provider.Provider = (*fake)(nil)

func (f *fake) Describe(context.Context) (provider.Info, error) {
	n := f.describes.Add(1)
	version := "1.0.0"
	if f.unstable {
		version = fmt.Sprintf("1.0.%d", n)
	}
	return provider.Info{Name: "fake", Version: version, Description: "a fake CLI", Executable: "fake-cli"}, nil
}

func (f *fake) Prepare(ctx context.Context, s provider.Spawn) (provider.Plan, error) {
	if ctx.Err() != nil && f.blockCancelled != nil {
		<-f.blockCancelled
	}
	if err := ctx.Err(); err != nil {
		return provider.Plan{}, err
	}
	if f.sideEffect != nil {
		f.sideEffect(s)
	}
	var p provider.Plan
	if s.MCP != nil {
		cfg, err := json.Marshal(map[string]any{"mcpServers": map[string]any{s.MCP.Name: map[string]any{
			"url": s.MCP.URL, "headers": map[string]string{"Authorization": "Bearer " + s.MCP.Token},
		}}})
		if err != nil {
			return provider.Plan{}, err
		}
		p.Files = append(p.Files, provider.File{Path: "mcp.json", Mode: 0o600, Content: cfg})
		p.Args = append(p.Args, "--mcp-config", filepath.Join(s.ScratchDir, "mcp.json"))
	}
	if s.Banner != "" {
		p.Files = append(p.Files, provider.File{Path: "context/banner.md", Mode: 0o644, Content: []byte(s.Banner)})
		p.Args = append(p.Args, "--context-file", filepath.Join(s.ScratchDir, "context/banner.md"))
		p.DeliversBanner = true
	}
	p.Args = append(p.Args, s.Args...)
	p.State = []byte("fake-state")
	if f.mutate != nil {
		f.mutate(s, &p)
	}
	return p, nil
}

func (f *fake) Finish(_ context.Context, e provider.Ended) (provider.Session, error) {
	if f.panicFinish {
		panic("finish exploded")
	}
	if string(e.State) != "fake-state" {
		return provider.Session{}, fmt.Errorf("state %q did not come back", e.State)
	}
	return provider.Session{}, nil
}

func (f *fake) Health(context.Context) error { return f.healthErr }

var _ provider.Connector = (*fake)(nil)

// Connect appends memhost's server to ~/.fake/config as a text block.
func (f *fake) Connect(_ context.Context, r provider.ConnectRequest) (provider.Connection, error) {
	file := filepath.Join(r.Env["HOME"], ".fake", "config")
	if f.connectTo != "" {
		file = f.connectTo
	}
	if f.connectWrites {
		if err := os.WriteFile(filepath.Join(r.Env["HOME"], ".fake-connected"), nil, 0o600); err != nil {
			return provider.Connection{}, err
		}
	}
	return provider.Connection{Steps: []provider.ConnectStep{
		{File: file, TextAppend: &provider.TextAppend{Text: "# memhost\nserver = " + r.Memhost + " mcp\n"}},
	}}, nil
}

func TestKitCatchesAConnectPlanOutsideTheUsersFiles(t *testing.T) {
	t.Parallel()
	requireFails(t, kitResults(t, &fake{connectTo: "/etc/fake/config"}), `step changes "/etc/fake/config", outside the user's home`, "Connect")
	requireFails(t, kitResults(t, Serve(t, &fake{connectTo: "/etc/fake/config"})), `step changes "/etc/fake/config", outside the user's home`, "Connect")
}

func TestKitCatchesAConnectThatWritesItself(t *testing.T) {
	t.Parallel()
	requireFails(t, kitResults(t, &fake{connectWrites: true}), "Connect changed the user's home", "Connect")
}

// withoutConnect is a provider written before Connect.
type withoutConnect struct{ f fake }

func (w *withoutConnect) Describe(ctx context.Context) (provider.Info, error) {
	return w.f.Describe(ctx)
}
func (w *withoutConnect) Prepare(ctx context.Context, s provider.Spawn) (provider.Plan, error) {
	return w.f.Prepare(ctx, s)
}
func (w *withoutConnect) Finish(ctx context.Context, e provider.Ended) (provider.Session, error) {
	return w.f.Finish(ctx, e)
}
func (w *withoutConnect) Health(ctx context.Context) error { return w.f.Health(ctx) }

// TestKitPassesAProviderWithoutConnect: connecting is optional; over the wire the plugin
// answers UNIMPLEMENTED.
func TestKitPassesAProviderWithoutConnect(t *testing.T) {
	t.Parallel()
	p := Serve(t, provider.Provider(&withoutConnect{}))
	_, err := p.(provider.Connector).Connect(t.Context(), provider.ConnectRequest{Memhost: "/opt/memhost"})
	require.ErrorIs(t, err, provider.ErrUnimplemented)
	requireFails(t, kitResults(t, p), "")
}

func TestKitPassesAWellBehavedProvider(t *testing.T) {
	t.Parallel()
	requireFails(t, kitResults(t, &fake{}), "")
	requireFails(t, kitResults(t, Serve(t, &fake{})), "")
}

func TestExercise(t *testing.T) {
	t.Parallel()
	Exercise(t, &fake{})
}

func TestKitCatchesDroppedUserArgs(t *testing.T) {
	t.Parallel()
	f := &fake{mutate: func(_ provider.Spawn, p *provider.Plan) {
		if len(p.Args) > 0 {
			p.Args = p.Args[:len(p.Args)-1]
		}
	}}
	requireFails(t, kitResults(t, f), "the user's 2 arguments unchanged",
		append(slices.Clone(withMemhost), "StartsWithoutMemhost")...)
}

func TestKitCatchesReorderedUserArgs(t *testing.T) {
	t.Parallel()
	f := &fake{mutate: func(s provider.Spawn, p *provider.Plan) {
		// The provider's options after the first user argument: "-p
		// --mcp-config ..." would make the CLI read the option as the
		// prompt.
		if len(s.Args) > 1 {
			p.Args = append([]string{s.Args[0], "--extra"}, s.Args[1:]...)
		}
	}}
	results := kitResults(t, f)
	require.Contains(t, results["KeepsUserArgs"].first(), "unchanged, in order and adjacent")
	require.Contains(t, results["StartsWithoutMemhost"].first(), "unchanged, in order and adjacent")
}

func TestKitCatchesTheTokenOnTheCommandLine(t *testing.T) {
	t.Parallel()
	f := &fake{mutate: func(s provider.Spawn, p *provider.Plan) {
		if s.MCP != nil {
			p.Args = append([]string{"--header", "Authorization: Bearer " + s.MCP.Token}, p.Args...)
		}
	}}
	requireFails(t, kitResults(t, f), "contains the MCP token", withMemhost...)
}

func TestKitCatchesATokenFileOthersCanRead(t *testing.T) {
	t.Parallel()
	f := &fake{mutate: func(_ provider.Spawn, p *provider.Plan) {
		for i := range p.Files {
			if p.Files[i].Path == "mcp.json" {
				p.Files[i].Mode = 0o644
			}
		}
	}}
	requireFails(t, kitResults(t, f), "holds the MCP token with mode 0644", withMemhost...)
}

func TestKitCatchesAMissingBanner(t *testing.T) {
	t.Parallel()
	f := &fake{mutate: func(_ provider.Spawn, p *provider.Plan) {
		p.Files = slices.DeleteFunc(p.Files, func(f provider.File) bool { return f.Path == "context/banner.md" })
		if i := slices.Index(p.Args, "--context-file"); i >= 0 {
			p.Args = slices.Delete(p.Args, i, i+2)
		}
	}}
	requireFails(t, kitResults(t, f), "the banner reaches the CLI through no argument", "DeliversBanner")
}

func TestKitCatchesAnUndeclaredBanner(t *testing.T) {
	t.Parallel()
	f := &fake{mutate: func(_ provider.Spawn, p *provider.Plan) { p.DeliversBanner = false }}
	requireFails(t, kitResults(t, f), "does not say so (Plan.DeliversBanner)", "DeliversBanner")
}

func TestKitCatchesAMissingMCPServer(t *testing.T) {
	t.Parallel()
	f := &fake{mutate: func(_ provider.Spawn, p *provider.Plan) {
		p.Files = slices.DeleteFunc(p.Files, func(f provider.File) bool { return f.Path == "mcp.json" })
		if i := slices.Index(p.Args, "--mcp-config"); i >= 0 {
			p.Args = slices.Delete(p.Args, i, i+2)
		}
	}}
	results := kitResults(t, f)
	require.Contains(t, results["DeliversMCP"].first(), "the MCP URL http://127.0.0.1:7420/mcp reaches the CLI through no")
	require.Contains(t, results["Concurrent"].first(), "does not carry its own spawn's token")
}

func TestKitCatchesAServerUnderAnotherName(t *testing.T) {
	t.Parallel()
	f := &fake{mutate: func(s provider.Spawn, p *provider.Plan) {
		for i := range p.Files {
			if p.Files[i].Path == "mcp.json" {
				p.Files[i].Content = []byte(strings.ReplaceAll(string(p.Files[i].Content), `"memhost"`, `"memory"`))
			}
		}
	}}
	requireFails(t, kitResults(t, f), `not registered under the name "memhost"`, "DeliversMCP")
}

func TestKitCatchesWritesOutsideThePlan(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		write func(s provider.Spawn)
		want  string
	}{
		"home": {func(s provider.Spawn) {
			_ = os.WriteFile(filepath.Join(s.Env["HOME"], ".fakerc"), []byte("memhost: on\n"), 0o644)
		}, "changed the user's home: .fakerc was created"},
		"working directory": {func(s provider.Spawn) {
			_ = os.WriteFile(filepath.Join(s.Dir, "README.md"), []byte("# edited\n"), 0o644)
		}, "changed the user's working directory: README.md was changed"},
		"scratch": {func(s provider.Spawn) {
			_ = os.WriteFile(filepath.Join(s.ScratchDir, "mcp.json"), []byte("{}"), 0o600)
		}, "wrote into the scratch directory (memhost creates Plan.Files): mcp.json was created"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			requireFails(t, kitResults(t, &fake{sideEffect: tc.write}), tc.want, "WritesNothing")
		})
	}
}

func TestKitCatchesAUserFileTheProviderChanges(t *testing.T) {
	t.Parallel()
	user := WithUser(func(home string) (map[string]string, error) {
		dir := filepath.Join(home, ".fake")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		return map[string]string{"FAKE_HOME": dir}, os.WriteFile(filepath.Join(dir, "config.toml"), []byte("model = \"x\"\n"), 0o600)
	})
	requireFails(t, kitResults(t, &fake{}, user), "")
	appends := &fake{sideEffect: func(s provider.Spawn) {
		f, err := os.OpenFile(filepath.Join(s.Env["FAKE_HOME"], "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			_, _ = f.WriteString("[mcp_servers.memhost]\n")
			_ = f.Close()
		}
	}}
	requireFails(t, kitResults(t, appends, user), "changed the user's home: .fake/config.toml was changed", "WritesNothing")
}

func TestKitCatchesFilesOutsideTheScratchDirectory(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file provider.File
		want string
	}{
		{provider.File{Path: "../escape", Mode: 0o600}, `path "../escape": must be a slash-separated relative path inside the scratch directory`},
		{provider.File{Path: "/etc/passwd", Mode: 0o600}, `path "/etc/passwd": must be a slash-separated relative path`},
		{provider.File{Path: "home", LinkTarget: "/home/someone"}, `"home/x" is inside entry "home"`},
	} {
		f := &fake{mutate: func(_ provider.Spawn, p *provider.Plan) {
			p.Files = append(p.Files, tc.file)
			if tc.file.LinkTarget != "" {
				// Written through the link into the user's home.
				p.Files = append(p.Files, provider.File{Path: "home/x", Mode: 0o600})
			}
		}}
		requireFails(t, kitResults(t, f), tc.want, append(slices.Clone(withMemhost), "StartsWithoutMemhost")...)
	}
}

func TestKitCatchesAnUnstableDescribe(t *testing.T) {
	t.Parallel()
	requireFails(t, kitResults(t, &fake{unstable: true}), "Describe is not stable", "DescribeIsSane")
}

func TestKitCatchesAnUnhealthyProvider(t *testing.T) {
	t.Parallel()
	requireFails(t, kitResults(t, &fake{healthErr: fmt.Errorf("claude is not installed")}), "Health: claude is not installed", "Health")
}

func TestKitReportsAPanicInsteadOfPanicking(t *testing.T) {
	t.Parallel()
	requireFails(t, kitResults(t, &fake{panicFinish: true}), "panicked: finish exploded", "Finish", "WritesNothing")
}

func TestKitCatchesAProviderThatIgnoresCancellation(t *testing.T) {
	t.Parallel()
	f := &fake{blockCancelled: make(chan struct{})}
	defer close(f.blockCancelled) // release the call the check gave up on
	requireFails(t, kitResults(t, f), "Prepare with a cancelled context did not return within 1s", "CancelledContext")
}

// wrongCancelError reports cancellation with an error that hides it.
type wrongCancelError struct{ fake }

func (w *wrongCancelError) Prepare(ctx context.Context, s provider.Spawn) (provider.Plan, error) {
	if ctx.Err() != nil {
		return provider.Plan{}, fmt.Errorf("prepare failed: %v", ctx.Err()) // %v, not %w
	}
	return w.fake.Prepare(ctx, s)
}

func TestKitCatchesACancellationErrorThatDoesNotWrapCanceled(t *testing.T) {
	t.Parallel()
	requireFails(t, kitResults(t, &wrongCancelError{}), "does not wrap context.Canceled: prepare failed: context canceled", "CancelledContext")
}

// badInfo breaks the Describe contract.
type badInfo struct{ fake }

func (*badInfo) Describe(context.Context) (provider.Info, error) {
	return provider.Info{Name: "Fake CLI", Version: "1", Executable: "/usr/bin/fake"}, nil
}

func TestKitRefusesInvalidInfo(t *testing.T) {
	t.Parallel()
	r := run(func(tb testing.TB) { newKit(tb, &badInfo{}, fastLimits) })
	require.Equal(t, `Describe returned invalid info: name "Fake CLI": must be lower-case letters, digits and '-', starting with a letter or digit`, r.first())
}
