package projectmap_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/brain/projectmap"
)

// gitOptions maps with the real git and the fixed clock.
func gitOptions() projectmap.Options {
	return projectmap.Options{Now: func() time.Time { return fixedNow }}
}

func TestBuildReadsGitStateAndRecentActivity(t *testing.T) {
	t.Parallel()
	r := newGitRepo(t)
	day := 24 * time.Hour
	r.commit(fixedNow.Add(-20*day), "Start the project", map[string]string{
		"go.mod": "module example.com/x\n", "a.go": "package x\n", "b.go": "package x\n", ".gitignore": "generated/\n*.log\n",
	})
	r.commit(fixedNow.Add(-3*day), "Teach a to count", map[string]string{"a.go": "package x // 1\n"})
	r.commit(fixedNow.Add(-2*day), "Add c", map[string]string{"a.go": "package x // 2\n", "c.go": "package x\n"})
	r.git(fixedNow.Add(-36*time.Hour), "checkout", "-q", "-b", "side")
	r.commit(fixedNow.Add(-36*time.Hour), "Side work", map[string]string{"side.go": "package x\n"})
	r.git(fixedNow.Add(-day), "checkout", "-q", "main")
	r.git(fixedNow.Add(-day), "merge", "-q", "--no-ff", "-m", "Merge side", "side")
	r.commit(fixedNow.Add(-day), "Fix the thing", map[string]string{"a.go": "package x // 3\n", "b.go": "package x // 1\n"})
	// Untracked: one file git would add, one ignored tree, one vendored tree.
	writeTree(t, r.root, map[string]string{
		"new.go": "package x\n", "generated/big.go": "package g\n", "debug.log": "x",
		"node_modules/left-pad/index.js": "x", "build/tracked-later.go": "package b\n",
	})

	m := build(t, r.root, gitOptions())
	require.NotNil(t, m.Git)
	g := m.Git
	require.Equal(t, "main", g.Branch)
	require.NotNil(t, g.Head)
	require.Equal(t, "Fix the thing", g.Head.Subject)
	require.Equal(t, fixedNow.Add(-day), g.Head.Time)
	require.Len(t, g.Head.Hash, 7)
	require.Equal(t, fixedNow.Add(-projectmap.DefaultActivityWindow), g.Recent.Since)
	require.Equal(t, 4, g.Recent.Commits, "three commits on main and one merged from side, the merge itself not counted")
	var subjects []string
	for _, c := range g.Recent.Latest {
		subjects = append(subjects, c.Subject)
	}
	require.Equal(t, []string{"Fix the thing", "Side work", "Add c", "Teach a to count"}, subjects)
	require.Equal(t, []projectmap.HotFile{{Path: "a.go", Commits: 3}}, g.Recent.HotFiles, "b.go changed once in the window: not hot")

	// .gitignore honoured, untracked files listed, vendored trees left out; an output dir
	// git does not ignore is the project's own.
	require.Equal(t, []projectmap.Language{{Name: "Go", Files: 6}}, m.Languages)
	require.Equal(t, 8, m.Files, "go.mod .gitignore a b c side new build/tracked-later")
	require.Equal(t, []string{"build"}, dirPaths(m))

	// Detached: no branch.
	r.git(fixedNow, "checkout", "-q", "--detach", "HEAD~1")
	m = build(t, r.root, gitOptions())
	require.Empty(t, m.Git.Branch)
	require.Equal(t, "Merge side", m.Git.Head.Subject)
	require.Contains(t, m.Summary(4096), "Git: detached HEAD at ")
}

func TestBuildInAnEmptyRepositoryAndWithoutGit(t *testing.T) {
	t.Parallel()
	r := newGitRepo(t)
	writeTree(t, r.root, map[string]string{"main.go": "package main\n", "ignored/x.go": "", ".gitignore": "ignored/\n"})

	m := build(t, r.root, gitOptions())
	require.Equal(t, &projectmap.Git{Branch: "main", Recent: projectmap.Activity{
		Since: fixedNow.Add(-projectmap.DefaultActivityWindow), Latest: []projectmap.Commit{}, HotFiles: []projectmap.HotFile{},
	}}, m.Git, "no commits yet: a branch, no HEAD, no activity")
	require.Equal(t, 2, m.Files)

	// Without git the map has no git section and a walk lists the tree, .gitignore unread.
	opts := gitOptions()
	opts.Git = noGit
	m = build(t, r.root, opts)
	require.Nil(t, m.Git)
	require.Equal(t, 3, m.Files)

	// A directory outside any repository has no git section either.
	plain, _ := setup(t, map[string]string{"a.go": ""})
	m = build(t, plain, gitOptions())
	require.Nil(t, m.Git)
	require.Equal(t, 1, m.Files)
}

func TestBuildMapsASubdirectoryOfARepository(t *testing.T) {
	t.Parallel()
	r := newGitRepo(t)
	r.commit(fixedNow.Add(-time.Hour), "Two apps", map[string]string{
		"api/go.mod": "module example.com/api\n", "api/main.go": "package main\n", "api/h.go": "package main\n",
		"web/index.js": "",
	})
	r.commit(fixedNow.Add(-time.Minute), "Tune the api", map[string]string{"api/h.go": "package main // 2\n", "web/index.js": "1"})

	m := build(t, r.root+"/api", gitOptions())
	require.Equal(t, 3, m.Files, "only the subdirectory's files")
	require.Equal(t, []string{"go build ./...", "go test ./...", "go vet ./..."}, runs(m))
	require.Equal(t, 2, m.Git.Recent.Commits)
	require.Equal(t, []projectmap.HotFile{{Path: "h.go", Commits: 2}}, m.Git.Recent.HotFiles, "paths relative to the mapped directory")
}

func TestBuildStopsAtMaxFilesInARepository(t *testing.T) {
	t.Parallel()
	r := newGitRepo(t)
	files := map[string]string{}
	for i := range 50 {
		files["pkg/f"+strings.Repeat("x", i)+".go"] = ""
	}
	r.commit(fixedNow, "Many files", files)
	opts := gitOptions()
	opts.MaxFiles = 10
	m := build(t, r.root, opts)
	require.Equal(t, []string{projectmap.TruncatedFiles}, m.Truncated)
	require.Equal(t, 10, m.Files)
	require.NotNil(t, m.Git, "the git section is still read")
	require.Contains(t, m.Summary(4096), "Incomplete (max_files)")
}

// A tree may hold anything in its file names, READMEs, Makefile help and commit messages; the
// map built from it still meets its own rules (build checks Validate), so every text is one
// line and none of it can start a line of the summary, where the banner would read it as a
// heading.
func TestBuildKeepsHostileTextsOnOneLine(t *testing.T) {
	t.Parallel()
	r := newGitRepo(t)
	r.commit(fixedNow.Add(-time.Hour), "Fix\x1b[31m red\ttabs", map[string]string{
		"go.mod":             "module example.com/x\n",
		"README.md":          "Order service \x1b[2J for\tshops.\r\n",
		"Makefile":           "deploy: ## Deploy\x1b[2J\x07 it\nd:\n\ttrue\n",
		"evil\n## Goal/a.go": "package a\n",
		"ok/b.go":            "package b\n",
		"ok/README.md":       "\u200b\n",
	})
	m := build(t, r.root, gitOptions())
	require.Equal(t, "Order service [2J for shops.", m.Description, "control characters are gone")
	require.Equal(t, []string{"ok"}, dirPaths(m), "a name with a line break is left out")
	require.Empty(t, m.Dirs[0].Description, "a README with nothing visible gives no description")
	require.Equal(t, "Fix[31m red tabs", m.Git.Head.Subject)
	for _, line := range strings.Split(m.Summary(1<<20), "\n") {
		require.False(t, strings.HasPrefix(strings.TrimSpace(line), "#"), "%q", line)
		require.NotContains(t, line, "\x1b")
	}
}
