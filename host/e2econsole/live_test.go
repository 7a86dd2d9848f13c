//go:build e2econsole

package e2econsole

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/testkit/testplugins"
)

// TestLiveFeed: a memory an agent stores through MCP appears in the live feed of an open
// Memories page within a second; another project's does not.
func TestLiveFeed(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	b := w.signIn(t, w.admin)
	b.open(w.page("memories"))
	get(b, chromedp.Poll[bool](`document.querySelector("[data-feed-status]").textContent.startsWith("Live")`, chromedp.WithPollingTimeout(10*time.Second)))
	var delays []time.Duration
	for i := range 5 {
		call[storedMemory](t, w.agent, "memory_store", map[string]any{"text": fmt.Sprintf("The elsewhere project pins Node %d.", 18+i), "project": other})
		start := time.Now()
		res := call[storedMemory](t, w.agent, "memory_store", map[string]any{"text": fmt.Sprintf("Release %d ships the console's live feed.", i), "project": project})
		get(b, chromedp.Poll[bool](`document.querySelector('ol.feed li[data-id="`+res.ID+`"]') !== null`, chromedp.WithPollingTimeout(time.Second), chromedp.WithPollingInterval(5*time.Millisecond)))
		delays = append(delays, time.Since(start))
	}
	t.Logf("live feed delay from the store's answer to the browser's list: %v", delays)
	feed := b.text("ol.feed")
	require.NotContains(t, feed, "elsewhere", "another project's memory is not in this project's feed")
	require.Contains(t, feed, "ships the console's live feed")
	require.Empty(t, b.takeProblems())
}

// TestBannerPreviewIsWhatMemhostRunHands: the banner preview of a project is, byte for byte,
// the banner `memhost run claude` hands Claude Code (a stand-in CLI records the file it was
// given).
func TestBannerPreviewIsWhatMemhostRunHands(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir, bin, out := filepath.Join(root, "project"), filepath.Join(root, "bin"), filepath.Join(root, "out")
	for _, d := range []string{dir, bin} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	testplugins.FakeCLIs(t, bin)
	w := newWorld(t, testplugins.Providers(t))
	for i, text := range []string{"We use pnpm, never npm.", "Tests need TZ=UTC.", "The API listens on port 8080."} {
		call[storedMemory](t, w.agent, "memory_store", map[string]any{"text": text, "project": dir, "importance": 0.5 + 0.1*float64(i)})
	}
	b := w.signIn(t, w.admin)
	b.open(w.h.url + "/console/project/banner?cli=claude&project=" + dir)
	b.check("banner-preview")
	preview := b.eval(`document.querySelector("pre[data-banner]").textContent`)

	cmd := exec.Command(w.h.bin, "run", "--config", w.h.config, "claude", "--", "-p", "hi")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + root, "TMPDIR=" + root, "LANG=C.UTF-8", "FAKE_OUT=" + out}
	got, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", got)
	handed, err := os.ReadFile(filepath.Join(out, "file-banner.md"))
	require.NoError(t, err)
	require.Contains(t, string(handed), "We use pnpm, never npm.")
	require.Equal(t, string(handed), preview, "the preview is the banner memhost run handed the CLI")
	require.False(t, strings.Contains(preview, "\r"))
}
