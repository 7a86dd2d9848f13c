package projectmap_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/brain/projectmap"
)

// bigMap is a map with every section full and multi-byte text, to stress the budget.
func bigMap() projectmap.Map {
	m := projectmap.Map{
		Format: projectmap.FormatVersion, GeneratedAt: fixedNow, Fingerprint: "sha256:00", Files: 123456,
		Description: "Ein Dienst für Bestellungen — schnell, “typografisch” und ünïcödé.",
		Truncated:   []string{projectmap.TruncatedFiles},
		Languages:   []projectmap.Language{{Name: "Go", Files: 900}, {Name: "TypeScript", Files: 90}, {Name: "Shell", Files: 3}},
		Git: &projectmap.Git{Branch: "main", Head: &projectmap.Commit{Hash: "abc1234", Subject: "Fix – the “thing”", Time: fixedNow},
			Recent: projectmap.Activity{Since: fixedNow.Add(-7 * 24 * time.Hour), Commits: 1000, CommitsCapped: true}},
	}
	for i := range projectmap.MaxTools {
		m.Tools = append(m.Tools, projectmap.Tool{Name: fmt.Sprintf("tool-ü%d", i), Kind: []string{projectmap.KindFramework, projectmap.KindBuild, projectmap.KindCI}[i%3], Source: "x"})
	}
	for i := range 30 {
		dir := ""
		if i >= 10 {
			dir = fmt.Sprintf("svc%d", i%4)
		}
		m.Commands = append(m.Commands, projectmap.Command{Kind: []string{projectmap.CmdTest, projectmap.CmdOther}[i%2], Run: fmt.Sprintf("make t%d", i), Dir: dir, Description: strings.Repeat("é", 60), Source: "Makefile"})
	}
	for i := range 40 {
		m.Dirs = append(m.Dirs, projectmap.Dir{Path: fmt.Sprintf("dir%02d", i), Files: i, Description: "Dir ✓."})
		m.Modules = append(m.Modules, projectmap.Module{Dir: fmt.Sprintf("dir%02d/mod", i), Ecosystem: "go", Name: "example.com/m", Files: 1})
	}
	for i := range projectmap.MaxEntryPoints {
		m.EntryPoints = append(m.EntryPoints, fmt.Sprintf("cmd/app%d/main.go", i))
	}
	for i := range projectmap.MaxLatest {
		m.Git.Recent.Latest = append(m.Git.Recent.Latest, projectmap.Commit{Hash: fmt.Sprintf("%07d", i), Subject: strings.Repeat("ß", 80)})
	}
	for i := range projectmap.MaxHotFiles {
		m.Git.Recent.HotFiles = append(m.Git.Recent.HotFiles, projectmap.HotFile{Path: fmt.Sprintf("hot/%d.go", i), Commits: 20 - i})
	}
	return m
}

func TestSummaryNeverExceedsItsBudget(t *testing.T) {
	t.Parallel()
	smallRoot, opts := setup(t, map[string]string{"go.mod": "module x\n", "Makefile": "test:\n\tgo test\n", "main.go": ""})
	maps := map[string]projectmap.Map{"big": bigMap(), "small": build(t, smallRoot, opts), "empty": {GeneratedAt: fixedNow}}
	for name, m := range maps {
		full := m.Summary(1 << 20)
		require.NotContains(t, full, "map shortened", name)
		var previous string
		for budget := -1; budget <= len(full)+2; budget += 1 + budget/400 {
			s := m.Summary(budget)
			require.LessOrEqual(t, len(s), max(budget, 0), "%s at %d", name, budget)
			require.True(t, utf8.ValidString(s), "%s at %d", name, budget)
			cut := strings.Contains(s, "map shortened")
			switch {
			case s == "":
			case budget >= len(full):
				require.Equal(t, full, s, "%s: everything fits at %d", name, budget)
			default:
				require.True(t, cut, "%s at %d: the cut note is there when lines were left out", name, budget)
				require.True(t, strings.HasPrefix(s, "Project map ("), "%s at %d: the header comes first", name, budget)
			}
			// Priority order holds: a larger budget keeps every line a smaller one kept.
			kept := map[string]bool{}
			for _, line := range strings.Split(s, "\n") {
				kept[line] = true
			}
			for _, line := range strings.Split(previous, "\n") {
				if line != "" && !strings.HasPrefix(line, "(map shortened") && !kept[line] {
					t.Fatalf("%s at %d: lost %q, kept at a smaller budget", name, budget, line)
				}
			}
			previous = s
		}
	}
}

func TestSummaryKeepsTheMostUsefulLinesFirst(t *testing.T) {
	t.Parallel()
	m := bigMap()
	s := m.Summary(700)
	require.Contains(t, s, "Incomplete (max_files)")
	require.Contains(t, s, "Languages: Go 90%, TypeScript 9%, Shell <1%")
	require.Contains(t, s, "- make t0 — ", "root test commands come before layout and git")
	require.NotContains(t, s, "Layout:")
	require.NotContains(t, s, "Hot files")
	for _, line := range strings.Split(m.Summary(1<<20), "\n") {
		require.LessOrEqual(t, len(line), 200, "no line crowds out the others")
	}
}

// BenchmarkSummary renders a full map into a budget that cuts it (the banner's case).
func BenchmarkSummary(b *testing.B) {
	m := bigMap()
	for b.Loop() {
		_ = m.Summary(2000)
	}
}
