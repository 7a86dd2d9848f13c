package provider_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/provider"
	"github.com/memhost/memhost/sdk/provider/providertest"
)

// tasking reads a toy CLI's prompt: the value of -p, and registers the prompt hook and the
// MCP headers it is given.
type tasking struct{ toy }

func (tasking) Task(_ context.Context, args []string) (string, error) {
	for i, a := range args {
		if a == "-p" && i+1 < len(args) {
			return args[i+1], nil
		}
	}
	return "", nil
}

func (tasking) Prepare(ctx context.Context, s provider.Spawn) (provider.Plan, error) {
	p, err := toy{}.Prepare(ctx, s)
	if s.PromptHook != "" && s.MCP != nil && s.MCP.Headers[provider.SessionHeader] != "" {
		p.DeliversPromptHook = true
	}
	return p, err
}

// TestTaskHeadersAndPromptHookCrossTheWire: the task, the MCP headers, the prompt hook and
// DeliversPromptHook come through the plugin protocol unchanged; a plugin built without the
// Task RPC answers ErrUnimplemented, which memhost reads as "no task".
func TestTaskHeadersAndPromptHookCrossTheWire(t *testing.T) {
	t.Parallel()
	p := providertest.Serve(t, tasking{})
	task, err := p.(provider.Tasker).Task(t.Context(), []string{"--model", "x", "-p", "fix the flaky login test"})
	require.NoError(t, err)
	require.Equal(t, "fix the flaky login test", task)

	dir := t.TempDir()
	s := provider.Spawn{CLI: "toy", Executable: "/bin/true", Dir: dir, ScratchDir: dir, Banner: "b", Env: map[string]string{"HOME": dir},
		PromptHook: "/opt/memhost hook prompt --cli toy --session k1",
		MCP:        &provider.MCPServer{Name: provider.ServerName, URL: "http://127.0.0.1:1/mcp", Token: "t", Headers: map[string]string{provider.SessionHeader: "k1"}}}
	plan, err := p.Prepare(t.Context(), s)
	require.NoError(t, err)
	require.True(t, plan.DeliversPromptHook, "the spawn's hook and headers reached the plugin")

	old := providertest.Serve(t, toy{})
	_, err = old.(provider.Tasker).Task(t.Context(), []string{"-p", "x"})
	require.ErrorIs(t, err, provider.ErrUnimplemented)
	providertest.Exercise(t, tasking{})
}

// TestSpawnHeadersAreChecked: a header that is not a header name, that would replace the
// token's Authorization, or whose value could split the request is refused, as is a prompt hook
// of several lines.
func TestSpawnHeadersAreChecked(t *testing.T) {
	t.Parallel()
	base := provider.Spawn{CLI: "toy", Executable: "/bin/true", Dir: "/tmp", ScratchDir: "/tmp",
		MCP: &provider.MCPServer{Name: provider.ServerName, URL: "http://x/mcp"}}
	for h, v := range map[string]string{"Bad Name": "v", "authorization": "Bearer x", "X-Ok": "a\r\nX-Evil: 1"} {
		s := base
		s.MCP = &provider.MCPServer{Name: provider.ServerName, URL: "http://x/mcp", Headers: map[string]string{h: v}}
		require.Error(t, s.Validate(), h)
	}
	s := base
	s.PromptHook = "memhost hook prompt\nrm -rf /"
	require.ErrorContains(t, s.Validate(), "prompt hook")
	s = base
	s.MCP = &provider.MCPServer{Name: provider.ServerName, URL: "http://x/mcp", Headers: map[string]string{provider.SessionHeader: "k1"}}
	require.NoError(t, s.Validate())
}
