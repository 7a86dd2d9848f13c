package projectmap_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/brain/projectmap"
)

// fixedNow is the clock every test builds with, so maps are comparable.
var fixedNow = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

// noGit maps a tree as if git were not installed.
const noGit = "/nonexistent/git"

// writeTree creates files (slash paths relative to root) with their contents.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
}

// setup writes a tree into a fresh directory and returns it with options that use the fixed
// clock and, unless the test wants git, no git.
func setup(t *testing.T, files map[string]string) (string, projectmap.Options) {
	t.Helper()
	root := t.TempDir()
	writeTree(t, root, files)
	return root, projectmap.Options{Now: func() time.Time { return fixedNow }, Git: noGit}
}

// build maps root and checks the map holds to its own format's rules.
func build(t *testing.T, root string, opts projectmap.Options) projectmap.Map {
	t.Helper()
	m, err := projectmap.Build(context.Background(), root, opts)
	require.NoError(t, err)
	require.NoError(t, m.Validate())
	return m
}

// gitRepo is a repository in a temp dir whose commits have the dates the test gives.
type gitRepo struct {
	t    *testing.T
	root string
}

func newGitRepo(t *testing.T) *gitRepo {
	t.Helper()
	r := &gitRepo{t: t, root: t.TempDir()}
	r.git(fixedNow, "init", "-q", "-b", "main")
	return r
}

// git runs git in the repository with a fixed identity, no user or system config, and
// author and committer dates at when.
func (r *gitRepo) git(when time.Time, args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.root
	date := when.Format(time.RFC3339)
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "HOME="+r.root,
		"GIT_AUTHOR_NAME=Ada Tester", "GIT_AUTHOR_EMAIL=ada@example.invalid", "GIT_AUTHOR_DATE="+date,
		"GIT_COMMITTER_NAME=Ada Tester", "GIT_COMMITTER_EMAIL=ada@example.invalid", "GIT_COMMITTER_DATE="+date,
	)
	out, err := cmd.CombinedOutput()
	require.NoError(r.t, err, "git %v: %s", args, out)
	return string(out)
}

// commit writes files and commits them all at when.
func (r *gitRepo) commit(when time.Time, subject string, files map[string]string) {
	r.t.Helper()
	writeTree(r.t, r.root, files)
	r.git(when, "add", "-A")
	r.git(when, "commit", "-q", "-m", subject)
}

func toolNames(m projectmap.Map) []string {
	out := []string{}
	for _, t := range m.Tools {
		out = append(out, t.Name)
	}
	return out
}

func tool(t *testing.T, m projectmap.Map, name string) projectmap.Tool {
	t.Helper()
	for _, tl := range m.Tools {
		if tl.Name == name {
			return tl
		}
	}
	require.Failf(t, "tool missing", "%q not in %v", name, toolNames(m))
	return projectmap.Tool{}
}

// runs lists commands as "dir: run" ("run" at the root).
func runs(m projectmap.Map) []string {
	out := []string{}
	for _, c := range m.Commands {
		if c.Dir != "" {
			out = append(out, c.Dir+": "+c.Run)
			continue
		}
		out = append(out, c.Run)
	}
	return out
}

func command(t *testing.T, m projectmap.Map, dir, run string) projectmap.Command {
	t.Helper()
	for _, c := range m.Commands {
		if c.Dir == dir && c.Run == run {
			return c
		}
	}
	require.Failf(t, "command missing", "%q in %q not in %v", run, dir, runs(m))
	return projectmap.Command{}
}

func dirPaths(m projectmap.Map) []string {
	out := []string{}
	for _, d := range m.Dirs {
		out = append(out, d.Path)
	}
	return out
}
