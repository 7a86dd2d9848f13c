package provider_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/internal/plugintest"
	"github.com/memhost/memhost/sdk/plugin"
	"github.com/memhost/memhost/sdk/provider"
	"github.com/memhost/memhost/sdk/provider/providertest"
)

func TestServeRejectsNilImpl(t *testing.T) {
	t.Parallel()
	require.EqualError(t, provider.Serve(nil), "provider.Serve: impl is nil")
}

func TestServeRunByHandReturnsAnError(t *testing.T) {
	t.Parallel()
	err := provider.Serve(toy{})
	require.ErrorContains(t, err, "this program is a memhost provider plugin: the memhost host starts it, it is not meant to be run by hand")
}

func TestServeWithDebugPassesTheKitThroughAttach(t *testing.T) {
	t.Parallel()
	ready := make(chan plugin.ReattachConfig, 1)
	served := make(chan error, 1)
	go func() {
		served <- provider.Serve(toy{}, provider.WithDebug(context.Background(), func(rc plugin.ReattachConfig) { ready <- rc }))
	}()
	// Registered before Attach's cleanup, so it runs after it.
	t.Cleanup(func() {
		select {
		case err := <-served:
			require.NoError(t, err)
		case <-time.After(10 * time.Second):
			t.Error("Serve did not return after the attached client shut the plugin down")
		}
	})
	select {
	case rc := <-ready:
		providertest.Exercise(t, providertest.Attach(t, rc))
	case <-time.After(10 * time.Second):
		t.Fatal("Serve in debug mode never reported where to attach")
	}
}

// echo returns plans and sessions that its test sets, to see what crosses
// the wire.
type echo struct {
	toy
	plan    func(s provider.Spawn) provider.Plan
	session provider.Session
	err     error
	ended   chan provider.Ended
	spawned chan provider.Spawn
}

func (e *echo) Prepare(_ context.Context, s provider.Spawn) (provider.Plan, error) {
	if e.spawned != nil {
		e.spawned <- s
	}
	if e.err != nil {
		return provider.Plan{}, e.err
	}
	return e.plan(s), nil
}

func (e *echo) Finish(_ context.Context, ended provider.Ended) (provider.Session, error) {
	if e.ended != nil {
		e.ended <- ended
	}
	return e.session, nil
}

func spawn(t *testing.T) provider.Spawn {
	t.Helper()
	dir := t.TempDir()
	return provider.Spawn{
		CLI: "toy", Executable: "/usr/local/bin/toy", Args: []string{"-p", "hi there", ""}, Dir: dir,
		Env:    map[string]string{"HOME": dir, "EMPTY": ""},
		Banner: "# brain\nwe use pnpm\n", Project: "github.com/o/r", ScratchDir: filepath.Join(dir, "scratch"),
		MCP: &provider.MCPServer{Name: provider.ServerName, URL: "http://127.0.0.1:7420/mcp", Token: "mh_" + strings.Repeat("x", 43)},
	}
}

// TestEverythingCrossesTheWire: each field of Spawn, Plan, Ended and
// Session arrives as sent.
func TestEverythingCrossesTheWire(t *testing.T) {
	t.Parallel()
	s := spawn(t)
	plan := provider.Plan{
		Args:     append([]string{"--config", "x"}, s.Args...),
		SetEnv:   map[string]string{"TOY_HOME": "/scratch/home", "EMPTY_TOO": ""},
		UnsetEnv: []string{"TOY_DEBUG"},
		Files: []provider.File{
			{Path: "home/a.json", Mode: 0o600, Content: []byte(`{"token":"` + s.MCP.Token + `"}`)},
			{Path: "home/empty", Mode: 0o644},
			{Path: "home/sessions", LinkTarget: "/home/u/.toy/sessions", CreateTargetDir: true},
		},
		Cleanup:        []string{"/home/u/.toy/lock"},
		State:          []byte{0, 1, 2},
		DeliversBanner: true,
	}
	e := &echo{plan: func(provider.Spawn) provider.Plan { return plan }, spawned: make(chan provider.Spawn, 1), ended: make(chan provider.Ended, 1),
		session: provider.Session{ID: "5f0c", Transcript: "/home/u/.toy/sessions/5f0c.jsonl"}}
	p := providertest.Serve(t, e)

	got, err := p.Prepare(t.Context(), s)
	require.NoError(t, err)
	require.Equal(t, s, <-e.spawned)
	require.Equal(t, plan, got)

	ended := provider.Ended{Spawn: s, State: plan.State, ExitCode: 130, StartedAt: time.Unix(1700000000, 123000).UTC(), Duration: 1500 * time.Millisecond}
	sess, err := p.Finish(t.Context(), ended)
	require.NoError(t, err)
	require.Equal(t, e.session, sess)
	require.Equal(t, ended, <-e.ended)
}

// TestTheWireHoldsPlansToTheProtocol: a plan that breaks the protocol is
// refused by the plugin side before it leaves, and a spawn memhost must not
// send is refused by the client before it goes out.
func TestTheWireHoldsPlansToTheProtocol(t *testing.T) {
	t.Parallel()
	s := spawn(t)
	leaky := &echo{plan: func(s provider.Spawn) provider.Plan {
		return provider.Plan{Args: append([]string{"--token", s.MCP.Token}, s.Args...)}
	}}
	_, err := providertest.Serve(t, leaky).Prepare(t.Context(), s)
	require.ErrorContains(t, err, "provider Prepare: Internal: provider Prepare: implementation returned an invalid plan: args[1] contains the MCP token")

	bad := s
	bad.ScratchDir = "relative/scratch"
	_, err = providertest.Serve(t, &echo{plan: func(provider.Spawn) provider.Plan { panic("not reached") }}).Prepare(t.Context(), bad)
	require.ErrorIs(t, err, provider.ErrInvalidInput)
	require.ErrorContains(t, err, `spawn scratch dir "relative/scratch": must be an absolute path`)

	long := &echo{plan: func(s provider.Spawn) provider.Plan { return provider.Plan{Args: s.Args} }, session: provider.Session{ID: "line\nbreak"}}
	_, err = providertest.Serve(t, long).Finish(t.Context(), provider.Ended{Spawn: s})
	require.ErrorContains(t, err, "implementation returned an invalid session: session id must be one line of valid UTF-8")
}

func TestErrorsCrossTheWire(t *testing.T) {
	t.Parallel()
	s := spawn(t)
	e := &echo{err: fmt.Errorf("%w: toy cannot run headless", provider.ErrInvalidInput)}
	_, err := providertest.Serve(t, e).Prepare(t.Context(), s)
	require.ErrorIs(t, err, provider.ErrInvalidInput)
	require.ErrorContains(t, err, "toy cannot run headless")

	e = &echo{err: errors.New("config.toml: line 3: bad key")}
	_, err = providertest.Serve(t, e).Prepare(t.Context(), s)
	require.EqualError(t, err, "provider Prepare: Unknown: config.toml: line 3: bad key")
}

func TestMirror(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	for _, name := range []string{"auth.json", "config.toml", "AGENTS.md"} {
		require.NoError(t, os.WriteFile(filepath.Join(home, name), []byte(name), 0o600))
	}
	require.NoError(t, os.Mkdir(filepath.Join(home, "log"), 0o700))
	files, err := provider.Mirror{From: home, To: "codex", Skip: []string{"config.toml", "AGENTS.md"}, Persist: []string{"sessions"}}.Files()
	require.NoError(t, err)
	require.Equal(t, []provider.File{
		{Path: "codex/auth.json", LinkTarget: filepath.Join(home, "auth.json")},
		{Path: "codex/log", LinkTarget: filepath.Join(home, "log")},
		{Path: "codex/sessions", LinkTarget: filepath.Join(home, "sessions"), CreateTargetDir: true},
	}, files)

	// A user who never ran the CLI: only what it will write is linked.
	files, err = provider.Mirror{From: filepath.Join(home, "missing"), To: "codex", Persist: []string{"sessions"}}.Files()
	require.NoError(t, err)
	require.Equal(t, []provider.File{{Path: "codex/sessions", LinkTarget: filepath.Join(home, "missing", "sessions"), CreateTargetDir: true}}, files)

	_, err = provider.Mirror{From: "relative", To: "x"}.Files()
	require.EqualError(t, err, `mirror "relative": must be an absolute path`)
}

// TestPublicAPIHasNoGlue pins the layering: the author-facing package converts
// to and from the wire, but its API shows only its own types.
func TestPublicAPIHasNoGlue(t *testing.T) {
	t.Parallel()
	plugintest.RequireNoGlueInAPI(t, ".")
}
