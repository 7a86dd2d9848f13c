package testplugins

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/memhost/memhost/host/internal/testdb"
)

var (
	once sync.Once
	dir  string
	err  error
)

// Dir builds every plugin in plugins/ into one temporary folder (named as the Makefile names
// them, memhost-<kind>-<name>) and returns it.
func Dir(tb testing.TB) string {
	tb.Helper()
	once.Do(func() {
		dir, err = os.MkdirTemp("", "memhost-test-plugins-")
		if err != nil {
			return
		}
		root := testdb.RepoRoot()
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "memhost-embedder-bm25"), ".")
		cmd.Dir = filepath.Join(root, "plugins", "embed-bm25")
		cmd.Stderr = os.Stderr
		err = cmd.Run()
	})
	if err != nil {
		tb.Fatalf("testplugins: build plugins: %v", err)
	}
	return dir
}

// BM25 returns the path of the built BM25 embedder plugin.
func BM25(tb testing.TB) string { return filepath.Join(Dir(tb), "memhost-embedder-bm25") }
