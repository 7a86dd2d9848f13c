package e2e

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestHookSessionEnd: with the hooks memhost connect installs, a session's start is recorded by
// session-start and its end journalled by session-end in the project of its cwd, with the
// session's own transcript sent for the summary (its entry is written at once, metadata
// first); inside a session memhost run started, the end hook does nothing (memhost run
// journals it). brain.quiet_session is 0s here: the session lasts seconds.
func TestHookSessionEnd(t *testing.T) {
	t.Parallel()
	w := newRunWorld(t)
	w.h.start()
	hook := func(event, input string, env ...string) string {
		cmd := exec.Command(w.h.bin, "--config", w.h.config, "hook", event, "--cli", "claude")
		cmd.Dir = w.home
		cmd.Env = append(append([]string{}, w.env...), env...)
		cmd.Stdin = strings.NewReader(input)
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		require.NoError(t, cmd.Start())
		require.Zero(t, exitStatus(t, cmd), errOut.String())
		return errOut.String()
	}
	const id = "7d0f3c1e-1111-4000-8000-00000000e2e1"
	in, err := json.Marshal(map[string]string{"session_id": id, "hook_event_name": "SessionStart", "cwd": w.project})
	require.NoError(t, err)
	require.Empty(t, hook("session-start", string(in)))

	folder := filepath.Join(w.home, ".claude", "projects", strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, w.project))
	require.NoError(t, os.MkdirAll(folder, 0o700))
	line, err := json.Marshal(map[string]any{"type": "user", "sessionId": id, "cwd": w.project, "timestamp": time.Now().UTC().Format(time.RFC3339Nano),
		"message": map[string]any{"role": "user", "content": "Rename the staging cluster to blue."}})
	require.NoError(t, err)
	transcript := filepath.Join(folder, id+".jsonl")
	require.NoError(t, os.WriteFile(transcript, append(line, '\n'), 0o600))

	end, err := json.Marshal(map[string]string{"session_id": id, "transcript_path": transcript, "cwd": w.project,
		"hook_event_name": "SessionEnd", "reason": "exit"})
	require.NoError(t, err)
	// A session of seconds is journalled only with brain.quiet_session 0s (the default, 30s,
	// leaves such a session out).
	quiet0 := "MEMHOST_BRAIN__QUIET_SESSION=0s"
	require.Empty(t, hook("session-end", string(end), "MEMHOST_RUN_SESSION=1", quiet0), "memhost run's own session")
	require.Empty(t, hook("session-end", string(end), quiet0))

	admin := w.h.token("--scopes", "admin", "--name", "e2e-admin")
	status, body, err := w.h.rest(context.Background(), admin, "GET", "/api/v1/projects/"+url.PathEscape(w.project)+"/journal", "")
	require.NoError(t, err)
	require.Equal(t, 200, status, body)
	entries := body["entries"].([]any)
	require.Len(t, entries, 1, "the end hook in memhost run's session journals nothing")
	entry := entries[0].(map[string]any)
	require.Equal(t, id, entry["session"])
	require.Equal(t, "claude", entry["agent"])
	require.Regexp(t, `^claude session ended after \ds \(exit\)\.`, entry["text"])
	require.NotContains(t, entry["text"], "Not summarised", "the transcript was isolated and sent")
}
