package provider

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Mirror describes a scratch copy of one of the user's configuration
// directories (~/.codex, ~/.gemini): every entry is a link to the user's
// own, except those the provider writes itself, so the CLI keeps the user's
// auth, settings, instruction files and history while the provider adds to
// a few files without touching the originals.
type Mirror struct {
	// From is the user's directory, absolute. It need not exist.
	From string
	// To is where the mirror goes, slash-separated and relative to the
	// scratch directory ("codex-home").
	To string
	// Skip names entries of From that are not linked because the provider
	// writes its own version of them (a merged config.toml, say).
	Skip []string
	// Persist names directories the CLI writes its sessions or history to.
	// They are linked even when From lacks them, and created there on
	// demand, so that what the CLI writes outlives the scratch directory.
	Persist []string
}

// Files returns the scratch entries of the mirror, sorted by path.
func (m Mirror) Files() ([]File, error) {
	if !filepath.IsAbs(m.From) {
		return nil, fmt.Errorf("mirror %q: must be an absolute path", m.From)
	}
	entries, err := os.ReadDir(m.From)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("mirror %s: %w", m.From, err)
	}
	var files []File
	for _, e := range entries {
		name := e.Name()
		if slices.Contains(m.Skip, name) || slices.Contains(m.Persist, name) {
			continue
		}
		files = append(files, File{Path: path.Join(m.To, name), LinkTarget: filepath.Join(m.From, name)})
	}
	for _, name := range m.Persist {
		files = append(files, File{Path: path.Join(m.To, name), LinkTarget: filepath.Join(m.From, name), CreateTargetDir: true})
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return files, nil
}
