package projectmap

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Git read limits.
const (
	// maxActivityCommits is how many of the window's commits are read.
	maxActivityCommits = 1000
	// maxGitOutput bounds what one git call may print before it is cut off.
	maxGitOutput = 4 << 20
	// keepLatest and keepHotFiles are what Build keeps of the window.
	keepLatest   = 5
	keepHotFiles = 10
	// minHotCommits is how many of the window's commits must touch a file to make it hot:
	// a file changed once is not a trend.
	minHotCommits = 2
	// gitWaitDelay is how long a killed git may hold its pipes before they are closed.
	gitWaitDelay = 200 * time.Millisecond
)

// Separators for git's --format output: record and unit separators never appear in hashes,
// dates or (in practice) subjects.
const (
	recordSep = "\x1e"
	unitSep   = "\x1f"
)

// gitCommand is git run in dir: never prompting, never taking optional locks (a map must not
// disturb a concurrent `git commit`), printing paths verbatim and messages in English.
func gitCommand(ctx context.Context, git, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, git, append([]string{"--no-pager", "-c", "core.quotepath=off", "-c", "log.showSignature=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
	cmd.WaitDelay = gitWaitDelay
	return cmd
}

// runGit runs one git call under GitTimeout and returns its output, cut off at maxGitOutput.
func runGit(ctx context.Context, o Options, dir string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, o.GitTimeout)
	defer cancel()
	cmd := gitCommand(ctx, o.Git, dir, args...)
	out := &capped{limit: maxGitOutput}
	cmd.Stdout = out
	err := cmd.Run()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return out.buf.Bytes(), err
}

// capped keeps the first limit bytes written to it and drops the rest.
type capped struct {
	buf   bytes.Buffer
	limit int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.limit - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// inWorkTree reports whether dir is inside a git work tree git will read (a repository owned
// by another user is refused by git's safe.directory rule, and mapped without git).
func inWorkTree(ctx context.Context, o Options, dir string) bool {
	out, err := runGit(ctx, o, dir, "rev-parse", "--is-inside-work-tree")
	return err == nil && strings.TrimSpace(string(out)) == "true"
}

// gitSection reads the branch, HEAD and the activity window. A call that times out leaves
// its part empty and reports TruncatedGit; any other failure (no commits yet) leaves it empty.
func (b *builder) gitSection(ctx context.Context, now time.Time) (*Git, string, bool) {
	g := &Git{Recent: Activity{Since: now.Add(-b.opts.ActivityWindow), Latest: []Commit{}, HotFiles: []HotFile{}}}
	timedOut := false
	run := func(args ...string) ([]byte, bool) {
		out, err := runGit(ctx, b.opts, b.root, args...)
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			timedOut = true
		}
		return out, err == nil
	}
	if out, ok := run("symbolic-ref", "-q", "--short", "HEAD"); ok {
		g.Branch = clip(strings.TrimSpace(string(out)), MaxTextBytes)
	}
	var headHash string
	if out, ok := run("log", "-1", "--format=%H"+unitSep+"%h"+unitSep+"%cI"+unitSep+"%s"); ok {
		if f := strings.Split(strings.TrimSpace(string(out)), unitSep); len(f) == 4 {
			headHash = f[0]
			g.Head = &Commit{Hash: f[1], Time: parseGitTime(f[2]), Subject: clip(f[3], MaxTextBytes)}
		}
	}
	if out, ok := run("log", "--no-merges", "--relative", "--name-only", "-n", strconv.Itoa(maxActivityCommits),
		"--since="+g.Recent.Since.Format(time.RFC3339), "--format="+recordSep+"%h"+unitSep+"%cI"+unitSep+"%s", "--", "."); ok {
		g.Recent = parseActivity(out, g.Recent.Since)
	}
	return g, headHash, timedOut
}

// parseActivity reads `git log --name-only` records: a header line, then the files changed.
func parseActivity(out []byte, since time.Time) Activity {
	act := Activity{Since: since, Latest: []Commit{}, HotFiles: []HotFile{}}
	changes := map[string]int{}
	for record := range strings.SplitSeq(string(out), recordSep) {
		header, files, _ := strings.Cut(record, "\n")
		f := strings.Split(header, unitSep)
		if len(f) != 3 {
			continue
		}
		act.Commits++
		if len(act.Latest) < keepLatest {
			act.Latest = append(act.Latest, Commit{Hash: f[0], Time: parseGitTime(f[1]), Subject: clip(f[2], MaxTextBytes)})
		}
		for file := range strings.SplitSeq(files, "\n") {
			if file = strings.TrimSpace(file); mappable(file) && !underSkipped(file, vendoredDirs) {
				changes[file]++
			}
		}
	}
	act.CommitsCapped = act.Commits >= maxActivityCommits
	for p, n := range changes {
		if n >= minHotCommits {
			act.HotFiles = append(act.HotFiles, HotFile{Path: p, Commits: n})
		}
	}
	slices.SortFunc(act.HotFiles, func(x, y HotFile) int { return cmp.Or(cmp.Compare(y.Commits, x.Commits), cmp.Compare(x.Path, y.Path)) })
	act.HotFiles = act.HotFiles[:min(len(act.HotFiles), keepHotFiles)]
	return act
}

func parseGitTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(s))
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}
