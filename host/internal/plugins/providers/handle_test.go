package providers_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/host/internal/plugins/providers"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/provider"
)

// setup starts a Supervisor over the repository's provider plugins.
func setup(t *testing.T) *plugins.Supervisor {
	t.Helper()
	sup := plugins.New(plugins.Config{
		Adapters:       []plugins.Adapter{providers.Adapter{}},
		HealthInterval: -1,
		Logger:         hclog.New(&hclog.LoggerOptions{Output: os.Stderr, Level: hclog.Error}),
	})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, sup.Shutdown(ctx))
	})
	cands, errs := plugins.Discover([]string{testplugins.Providers(t)}, nil)
	require.Empty(t, errs)
	require.NoError(t, sup.Start(t.Context(), plugins.OfKind(cands, providers.Adapter{}.Kind())))
	return sup
}

func TestEveryProviderServesThroughTheSupervisor(t *testing.T) {
	t.Parallel()
	sup := setup(t)
	for _, cli := range testplugins.ProviderCLIs {
		h, err := providers.Find(sup, cli)
		require.NoError(t, err, cli)
		info := h.Info()
		require.Equal(t, cli, info.Name)
		require.Equal(t, cli, info.Executable)
		st := h.Status()
		require.Equal(t, plugins.StateReady, st.State)
		require.Equal(t, "runs "+cli, st.Shape)
		require.Equal(t, "memhost-provider-"+cli, st.Binary)
		byFile, err := providers.Find(sup, "memhost-provider-"+cli)
		require.NoError(t, err)
		require.Equal(t, info, byFile.Info())

		dir := t.TempDir()
		s := provider.Spawn{
			CLI: cli, Executable: "/usr/bin/" + cli, Args: []string{"-p", "hi"}, Dir: dir,
			Env: map[string]string{"HOME": dir}, Banner: "brain", Project: "p", ScratchDir: filepath.Join(dir, "scratch"),
			MCP: &provider.MCPServer{Name: provider.ServerName, URL: "http://127.0.0.1:7420/mcp", Token: "mh_test-token-shape"},
		}
		plan, err := h.Prepare(t.Context(), s)
		require.NoError(t, err, cli)
		require.NoError(t, plan.Validate(s))
		_, err = h.Finish(t.Context(), provider.Ended{Spawn: s, State: plan.State, StartedAt: time.Now(), Duration: time.Second})
		require.NoError(t, err, cli)
		require.NoError(t, h.Health(t.Context()))
	}
	_, err := providers.Find(sup, "cursor")
	require.ErrorIs(t, err, plugins.ErrNotFound)
}

// TestAnInvalidSpawnIsRejectedNotAFault: memhost's own mistake in a spawn is a rejection
// (do not retry) that leaves the plugin ready.
func TestAnInvalidSpawnIsRejectedNotAFault(t *testing.T) {
	t.Parallel()
	sup := setup(t)
	h, err := providers.Find(sup, "claude")
	require.NoError(t, err)
	_, err = h.Prepare(t.Context(), provider.Spawn{CLI: "claude", Executable: "claude"})
	require.ErrorIs(t, err, provider.ErrInvalidInput)
	require.Contains(t, err.Error(), "provider plugin claude rejected the request: ")
	require.Equal(t, plugins.StateReady, h.Status().State)
}

func TestClassify(t *testing.T) {
	t.Parallel()
	a := providers.Adapter{}
	for err, want := range map[error]plugins.Outcome{
		provider.ErrUnavailable:   plugins.Unavailable,
		provider.ErrInvalidInput:  plugins.Rejected,
		provider.ErrUnimplemented: plugins.Unimplemented,
		errors.New("boom"):        plugins.Failed,
	} {
		require.Equal(t, want, a.Classify(err), "%v", err)
	}
	require.Equal(t, provider.ErrInvalidInput, a.Sentinel(plugins.Rejected))
	require.Equal(t, provider.ErrUnavailable, a.Sentinel(plugins.Failed))
}

// TestConnectPlansComeFromTheProviders: every repository provider answers the plan of
// connecting its CLI through the supervisor.
func TestConnectPlansComeFromTheProviders(t *testing.T) {
	t.Parallel()
	sup := setup(t)
	home := t.TempDir()
	for _, cli := range testplugins.ProviderCLIs {
		h, err := providers.Find(sup, cli)
		require.NoError(t, err)
		c, err := h.Connect(t.Context(), provider.ConnectRequest{
			Env: map[string]string{"HOME": home}, Memhost: "/opt/memhost", Hook: "/opt/memhost hook session-start --cli " + cli,
		})
		require.NoError(t, err, cli)
		require.NoError(t, c.Validate(), cli)
		require.Empty(t, c.RegisteredIn)
		for _, s := range c.Steps {
			require.True(t, strings.HasPrefix(s.File, home+"/"), "%s: %s is the user's", cli, s.File)
		}
	}
}

// TestAProviderWithoutConnectIsTooOld: a provider plugin built before the Connect RPC is
// named, with the remedy, and stays ready; one built before the Task RPC knows no task.
func TestAProviderWithoutConnectIsTooOld(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, testplugins.Build(filepath.Join(dir, "memhost-provider-aider"), testplugins.OldProviderPackage))
	sup := plugins.New(plugins.Config{
		Adapters: []plugins.Adapter{providers.Adapter{}}, HealthInterval: -1,
		Logger: hclog.New(&hclog.LoggerOptions{Output: os.Stderr, Level: hclog.Error}),
	})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, sup.Shutdown(ctx))
	})
	cands, errs := plugins.Discover([]string{dir}, nil)
	require.Empty(t, errs)
	require.NoError(t, sup.Start(t.Context(), cands))
	h, err := providers.Find(sup, "aider")
	require.NoError(t, err)
	_, err = h.Connect(t.Context(), provider.ConnectRequest{Env: map[string]string{"HOME": dir}, Memhost: "/opt/memhost"})
	require.EqualError(t, err, "provider aider (memhost-provider-aider) is too old to connect its CLI; rebuild it")
	// Built before the Task RPC too: it knows no task, which is no error (the banner is then
	// the query-less one).
	task, err := h.Task(t.Context(), []string{"-p", "fix it"})
	require.NoError(t, err)
	require.Empty(t, task)
	require.Equal(t, plugins.StateReady, h.Status().State)
}
