package projectmap

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"
)

// ErrNotDirectory is returned by Build and Fingerprint for a path that is not a readable
// directory. The path is not part of the message: the caller knows it, and the error may
// travel to a user who should not learn the host's filesystem layout.
var ErrNotDirectory = errors.New("projectmap: not a readable directory")

// listShare is the part of Options.Timeout the listing may use; manifests and git share the
// rest, so Build returns within Timeout even when the listing uses all of its share.
const listShare = 0.6

// builder holds one Build's state.
type builder struct {
	opts   Options
	root   string
	inRepo bool
	scan   *scan
}

// Build maps the source tree at dir. It is deterministic for the same tree, HEAD and
// Options.Now, runs no LLM and opens no network connection. It returns within opts.Timeout
// (default 5 s): a listing that runs out of time or files is cut short and the map says so in
// Truncated, which is not an error. Errors are a bad dir or bad Options (*rules.FieldError), or the
// caller's ctx ending.
func Build(ctx context.Context, dir string, opts Options) (Map, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return Map{}, err
	}
	root, err := resolveRoot(dir)
	if err != nil {
		return Map{}, err
	}
	start := time.Now()
	now := o.Now().UTC().Truncate(time.Second)
	buildCtx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	b := &builder{opts: o, root: root, scan: newScan()}
	if _, err := exec.LookPath(o.Git); err == nil {
		b.inRepo = inWorkTree(buildCtx, o, root)
	}

	listCtx, cancelList := context.WithDeadline(buildCtx, start.Add(time.Duration(float64(o.Timeout)*listShare)))
	reason, err := b.list(listCtx, b.scan)
	cancelList()
	if ctx.Err() != nil {
		return Map{}, fmt.Errorf("projectmap: %w", ctx.Err())
	}
	if err != nil {
		return Map{}, fmt.Errorf("projectmap: listing files: %w", ErrNotDirectory)
	}

	m := Map{
		Format: FormatVersion, GeneratedAt: now, Files: b.scan.files,
		Languages: topLanguages(b.scan.languages, o.TopLanguages),
		Dirs:      []Dir{}, Modules: []Module{}, KeyFiles: []string{}, EntryPoints: []string{},
	}
	if reason != "" {
		m.Truncated = append(m.Truncated, reason)
	}
	a := b.analyse(buildCtx, b.scan)
	m.Tools = a.sortedTools()
	m.Commands = a.sortedCommands()
	b.layout(&m, b.scan, a)

	var head string
	if b.inRepo {
		var timedOut bool
		m.Git, head, timedOut = b.gitSection(buildCtx, now)
		if timedOut {
			m.Truncated = append(m.Truncated, TruncatedGit)
		}
	}
	if ctx.Err() != nil {
		return Map{}, fmt.Errorf("projectmap: %w", ctx.Err())
	}
	m.Fingerprint = fingerprint(root, head)
	return m, nil
}

// resolveRoot makes dir absolute and symlink-free, and checks it is a directory.
func resolveRoot(dir string) (string, error) {
	if dir == "" {
		return "", rules.Errf("dir", "must not be empty")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", ErrNotDirectory
	}
	root, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", ErrNotDirectory
	}
	info, err := os.Stat(root)
	if err != nil || !info.IsDir() {
		return "", ErrNotDirectory
	}
	return root, nil
}
