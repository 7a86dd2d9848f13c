package projectmap

import (
	"bufio"
	"context"
	"errors"
	"io"
	"io/fs"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// vendoredDirs hold other people's code or tool state: never counted, wherever they are and
// whether or not git tracks them.
var vendoredDirs = map[string]bool{
	".git": true, ".hg": true, ".svn": true, "node_modules": true, "vendor": true,
	"bower_components": true, "jspm_packages": true, ".venv": true, "venv": true,
	"site-packages": true, "Pods": true, ".yarn": true, ".pnpm-store": true,
}

// outputDirs hold build output and caches. A walk skips them; inside a git work tree they are
// counted only when tracked, since .gitignore says better than a name whether a "build" dir
// is output or source.
var outputDirs = map[string]bool{
	"dist": true, "build": true, "target": true, "out": true, "__pycache__": true,
	".tox": true, ".nox": true, ".mypy_cache": true, ".pytest_cache": true, ".ruff_cache": true,
	".next": true, ".nuxt": true, ".svelte-kit": true, ".turbo": true, ".parcel-cache": true,
	".cache": true, ".gradle": true, ".terraform": true, "coverage": true, ".eggs": true,
	".dart_tool": true, "DerivedData": true, ".direnv": true, ".idea": true,
}

// listCheckEvery is how many entries pass between deadline checks.
const listCheckEvery = 512

// errListStop ends a walk early; the reason is kept by the caller.
var errListStop = errors.New("listing stopped")

// list feeds every counted file to s and says why it stopped early ("" when it did not).
// Inside a git work tree git lists the files, which honours .gitignore, the global excludes
// and .git/info/exclude exactly as git does; elsewhere a walk with a skip list does.
func (b *builder) list(ctx context.Context, s *scan) (string, error) {
	if b.inRepo {
		reason, err := b.listGit(ctx, s)
		if err == nil {
			return reason, nil
		}
		if ctx.Err() != nil {
			return TruncatedTime, nil
		}
		// git failed for another reason (a broken index, say): walk what git did not list.
		*s = *newScan()
	}
	return b.walk(ctx, s)
}

// listGit streams `git ls-files` (tracked plus untracked-but-not-ignored files) and stops
// reading, which kills git, at the entry limit or the deadline.
func (b *builder) listGit(ctx context.Context, s *scan) (string, error) {
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	args := []string{"ls-files", "-z", "--cached", "--others", "--exclude-standard"}
	for _, name := range slices.Sorted(maps.Keys(vendoredDirs)) {
		// Keep git from descending into untracked vendored trees at all.
		args = append(args, "--exclude="+name+"/")
	}
	cmd := b.gitCommand(runCtx, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	r := bufio.NewReaderSize(out, 64<<10)
	var reason string
	entries := 0
	for {
		rel, err := r.ReadString(0)
		if err != nil {
			break
		}
		entries++
		if entries > b.opts.MaxFiles {
			reason = TruncatedFiles
			break
		}
		if entries%listCheckEvery == 0 && ctx.Err() != nil {
			reason = TruncatedTime
			break
		}
		rel = strings.TrimSuffix(rel, "\x00")
		// Untracked nested repositories and submodules come as directories: not files.
		if !strings.HasSuffix(rel, "/") && !underSkipped(rel, vendoredDirs) {
			s.add(rel)
		}
	}
	if reason != "" {
		cancel() // stop git; cancelling after a complete read would turn its clean exit into an error
	}
	_, _ = io.Copy(io.Discard, out)
	waitErr := cmd.Wait()
	switch {
	case reason != "":
		return reason, nil
	case ctx.Err() != nil && entries > 0:
		return TruncatedTime, nil
	case waitErr != nil:
		return "", waitErr
	}
	return "", nil
}

// walk lists the tree without git: vendored and output dirs are skipped by name, symlinks
// are not followed, and unreadable dirs are left out rather than failing the map.
func (b *builder) walk(ctx context.Context, s *scan) (string, error) {
	var reason string
	entries := 0
	err := filepath.WalkDir(b.root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() && path != b.root {
				return fs.SkipDir
			}
			return nil
		}
		if path == b.root {
			return nil
		}
		if d.IsDir() {
			if vendoredDirs[d.Name()] || outputDirs[d.Name()] {
				return fs.SkipDir
			}
			return nil
		}
		entries++
		if entries > b.opts.MaxFiles {
			reason = TruncatedFiles
			return errListStop
		}
		if entries%listCheckEvery == 0 && ctx.Err() != nil {
			reason = TruncatedTime
			return errListStop
		}
		rel, err := filepath.Rel(b.root, path)
		if err != nil {
			return nil
		}
		s.add(filepath.ToSlash(rel))
		return nil
	})
	if err != nil && !errors.Is(err, errListStop) {
		return "", err
	}
	return reason, nil
}

// underSkipped reports whether a slash path lies in a directory named in skip.
func underSkipped(rel string, skip map[string]bool) bool {
	for {
		i := strings.IndexByte(rel, '/')
		if i < 0 {
			return false
		}
		if skip[rel[:i]] {
			return true
		}
		rel = rel[i+1:]
	}
}

// gitCommand is git run in the mapped directory, never prompting, never taking the index
// lock, with paths printed verbatim.
func (b *builder) gitCommand(ctx context.Context, args ...string) *exec.Cmd {
	return gitCommand(ctx, b.opts.Git, b.root, args...)
}
