package main

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/project"
)

// TestPromptHookAndProjectValue: `memhost hook prompt`, as Claude Code's UserPromptSubmit hook
// runs it, prints the fact relevant to the prompt in the shape Claude Code adds to the prompt,
// never the same fact twice in one session, and nothing for a prompt about nothing in the
// project; `memhost project value` then reports what the session was given, through the running
// host with a given token and with the operator's own (brainhost_test.go has it on the database
// when no host answers), and refuses a bad window naming the flag.
func TestPromptHookAndProjectValue(t *testing.T) {
	t.Parallel()
	cfg, core, token := cliHost(t)
	dir := t.TempDir()
	id, err := project.Resolve(dir)
	require.NoError(t, err)
	ctx := context.Background()
	for i := range 40 {
		_, err := core.Service.Store(ctx, operator(id.Key), memory.StoreRequest{Text: fmt.Sprintf("Batch job %d of pool q%d retries node n%d twice.", i, i*7, i*3)})
		require.NoError(t, err)
	}
	needle, err := core.Service.Store(ctx, operator(id.Key), memory.StoreRequest{Text: "The login integration test is flaky because the session cookie expires at midnight UTC."})
	require.NoError(t, err)

	hook := func(prompt string) string {
		in, err := json.Marshal(map[string]string{"session_id": "7c1d0e52-claude", "cwd": dir, "prompt": prompt, "hook_event_name": "UserPromptSubmit"})
		require.NoError(t, err)
		out, err := runIn(t, string(in), "hook", "prompt", "--cli", "claude", "--config", cfg, "--token-per-session")
		require.NoError(t, err, out)
		return out
	}
	out := hook("why is the login test flaky?")
	var got struct {
		HookSpecificOutput struct{ HookEventName, AdditionalContext string }
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	require.Equal(t, "UserPromptSubmit", got.HookSpecificOutput.HookEventName)
	require.Contains(t, got.HookSpecificOutput.AdditionalContext, "midnight UTC")
	require.Contains(t, got.HookSpecificOutput.AdditionalContext, "mcp__memhost__memory_get")
	require.Empty(t, hook("the login test is flaky again"), "given once in the session")
	require.Empty(t, hook("translate this poem into French"), "nothing relevant, nothing added")

	p := []string{"--project", id.Key, "--config", cfg}
	for _, via := range [][]string{{"--token", token}, {}} {
		out, err := run(t, append([]string{"project", "value"}, append(p, via...)...)...)
		require.NoError(t, err, out)
		require.Contains(t, out, "sessions:   1\n")
		require.Contains(t, out, "injected:   1 (1 distinct memories, 0 of them used since: 0%)")
		require.Contains(t, out, "saved:      ~0 tokens over 0 uses (estimate: ")
		require.Regexp(t, `claude\s+connected\s+1\s+0\s+0\s+0`, out)
	}
	out, err = run(t, append([]string{"project", "value", "--json", "--token", token}, p...)...)
	require.NoError(t, err, out)
	var r brain.ValueReport
	require.NoError(t, json.Unmarshal([]byte(out), &r), out)
	require.Equal(t, 1, r.Totals.Injected)
	log, err := core.Brain.MemoryAccess(ctx, operator(id.Key), needle.Memory.ID.String())
	require.NoError(t, err)
	require.Equal(t, "prompt", log.Entries[0].Channel)

	out, err = run(t, append([]string{"project", "value", "--since", "soon"}, p...)...)
	require.Error(t, err)
	require.Contains(t, out+err.Error(), `--since: "soon" is not a window`)
}
