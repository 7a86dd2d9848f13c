package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTheReleaseArchiveShipsWhatItsFilesName: every relative link of the README (27 of them
// into docs/) resolves inside a release archive, and so does every script a shipped script
// runs or sources: what dist.sh --list says each archive holds, which make dist copies (issue
// 30: the archive's README linked into a docs/ it did not ship).
func TestTheReleaseArchiveShipsWhatItsFilesName(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	out, err := exec.Command(filepath.Join(root, "scripts", "dist.sh"), "--list").Output()
	require.NoError(t, err)
	payload := strings.Fields(string(out))
	ships := func(path string) bool {
		return slices.ContainsFunc(payload, func(p string) bool { return path == p || strings.HasPrefix(path, p+"/") })
	}

	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	links := regexp.MustCompile(`\]\(([^)#\s]+)(?:#[^)]*)?\)`).FindAllStringSubmatch(string(readme), -1)
	relative := 0
	for _, l := range links {
		target := l[1]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
			continue
		}
		relative++
		require.True(t, ships(target), "README links to %s, which the archive does not hold", target)
		require.FileExists(t, filepath.Join(root, target))
	}
	require.Greater(t, relative, 20)

	runs := regexp.MustCompile(`\$here/([A-Za-z0-9_.-]+\.sh)`)
	for _, p := range payload {
		if !strings.HasPrefix(p, "scripts/") {
			continue
		}
		body, err := os.ReadFile(filepath.Join(root, p))
		require.NoError(t, err)
		for _, m := range runs.FindAllStringSubmatch(string(body), -1) {
			require.True(t, ships("scripts/"+m[1]), "%s runs scripts/%s, which the archive does not hold", p, m[1])
		}
	}
}
