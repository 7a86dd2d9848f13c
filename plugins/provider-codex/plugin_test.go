package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/provider"
	"github.com/memhost/memhost/sdk/provider/providertest"
)

// TestBinarySpeaksProtocol builds the plugin and runs the conformance kit
// against it as a real plugin process (handshake, AutoMTLS, gRPC).
func TestBinarySpeaksProtocol(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "memhost-provider-codex")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)

	p := providertest.Launch(t, bin)
	info, err := p.Describe(t.Context())
	require.NoError(t, err)
	require.Equal(t, "codex", info.Name)
	require.Equal(t, "codex", info.Executable)
	providertest.Exercise(t, p)
}

// TestTheBinaryReadsARollout: the built plugin reads a rollout through the plugin protocol, the
// one place that knows Codex's layout: the session's turns inside its window, none of an earlier
// spawn's, and another session's rollout refused.
func TestTheBinaryReadsARollout(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "memhost-provider-codex")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	p := providertest.Launch(t, bin).(provider.TranscriptReader)

	home, dir := t.TempDir(), "/work/p"
	start := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	meta := `{"timestamp":"2026-11-26T08:00:00Z","type":"session_meta","payload":{"id":"%s","cwd":"/work/p"}}` + "\n"
	body := `{"timestamp":"2026-11-26T08:00:00Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"EARLIER-SPAWN"}]}}
{"timestamp":"2026-11-26T10:01:00Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Switch the build to pnpm."}]}}
{"timestamp":"2026-11-26T10:02:00Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]}}
`
	own := filepath.Join(home, "own.jsonl")
	require.NoError(t, os.WriteFile(own, []byte(fmt.Sprintf(meta, "s-own")+body), 0o600))
	got, err := p.Transcript(t.Context(), provider.TranscriptRequest{SessionID: "s-own", Path: own, Dir: dir, Start: start, End: start.Add(5 * time.Minute)})
	require.NoError(t, err)
	require.Equal(t, []provider.Turn{
		{Role: "user", Text: "Switch the build to pnpm.", At: start.Add(time.Minute)},
		{Role: "assistant", Text: "Done.", At: start.Add(2 * time.Minute)},
	}, got.Turns)

	other := filepath.Join(home, "other.jsonl")
	require.NoError(t, os.WriteFile(other, []byte(fmt.Sprintf(meta, "s-other")+body), 0o600))
	got, err = p.Transcript(t.Context(), provider.TranscriptRequest{SessionID: "s-own", Path: other, Dir: dir, Start: start, End: start.Add(5 * time.Minute)})
	require.NoError(t, err)
	require.Equal(t, provider.Transcript{NotIsolated: "the rollout is another session's"}, got)
}
