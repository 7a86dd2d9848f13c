package transfer

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/memhost/memhost/host/internal/core/store"
)

// Export writes scope's memories as JSONL to w and returns how many it wrote.
func Export(ctx context.Context, st store.Store, scope store.ScopeRef, w io.Writer) (int, error) {
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(Header{Format: FormatVersion, Scope: string(scope.Scope), Project: scope.Key, ExportedAt: time.Now().UTC()}); err != nil {
		return 0, fmt.Errorf("export: write header: %w", err)
	}
	n := 0
	err := st.Export(ctx, scope, func(r store.ExportRecord) error {
		n++
		return enc.Encode(recordOf(r))
	})
	if err != nil {
		return n, err
	}
	if err := bw.Flush(); err != nil {
		return n, fmt.Errorf("export: flush: %w", err)
	}
	return n, nil
}

// ExportFile writes scope's export to path, which must not exist, and returns how many memories
// it wrote. The export goes to a temporary file beside path, is synced to disk and only then
// takes path's name, so an export that fails or is interrupted never leaves a file that looks
// like a backup: on error the temporary file is removed (after a crash its name ends in
// ".partial-" and a random suffix).
func ExportFile(ctx context.Context, st store.Store, scope store.ScopeRef, path string) (n int, err error) {
	if _, err := os.Lstat(path); err == nil {
		return 0, fmt.Errorf("export: %s already exists; an export never overwrites a file", path)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".partial-*")
	if err != nil {
		return 0, fmt.Errorf("export: create %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if n, err = Export(ctx, st, scope, tmp); err != nil {
		return 0, err
	}
	if err := tmp.Sync(); err != nil {
		return 0, fmt.Errorf("export: sync %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return 0, fmt.Errorf("export: close %s: %w", path, err)
	}
	if err := publish(tmp.Name(), path); err != nil {
		return 0, err
	}
	// The new name is durable once the directory is synced too.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return n, nil
}

// publish gives the finished temporary file its final name without ever replacing a file that
// appeared there meanwhile: a hard link fails when the name exists, where a rename would not.
// Filesystems without hard links fall back to a rename after one more look.
func publish(tmp, path string) error {
	err := os.Link(tmp, path)
	switch {
	case err == nil:
		_ = os.Remove(tmp) // the export is complete under its name; a leftover link is only clutter
		return nil
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("export: %s already exists; an export never overwrites a file", path)
	}
	if _, statErr := os.Lstat(path); statErr == nil {
		return fmt.Errorf("export: %s already exists; an export never overwrites a file", path)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("export: name %s: %w", path, err)
	}
	return nil
}
