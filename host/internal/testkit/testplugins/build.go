package testplugins

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/memhost/memhost/host/internal/testkit/testdb"
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
		dir, err = processDir("memhost-test-plugins-")
		if err != nil {
			return
		}
		err = Build(filepath.Join(dir, "memhost-embedder-bm25"), BM25Package)
	})
	if err != nil {
		tb.Fatalf("testplugins: build plugins: %v", err)
	}
	return dir
}

// BM25 returns the path of the built BM25 embedder plugin.
func BM25(tb testing.TB) string { return filepath.Join(Dir(tb), "memhost-embedder-bm25") }

// Plugin main packages, relative to the repository root, for Build.
const (
	// BM25Package is the real BM25 embedder.
	BM25Package = "plugins/embed-bm25"
	// HashPackage is the SDK's example hashing embedder: another identity than BM25's.
	HashPackage = "sdk/examples/embed-hash"
	// MisbehavePackage is the test embedder that breaks the protocol on purpose (see its doc).
	MisbehavePackage = "host/internal/testkit/testplugins/misbehave"
	// OldProviderPackage is a provider plugin without the Connect RPC, as built before it.
	OldProviderPackage = "host/internal/testkit/testplugins/oldprovider"
)

// Build compiles the plugin main package pkg (relative to the repository root) to out. It
// needs no testing.TB, so a TestMain can build the binaries its package's tests share.
func Build(out, pkg string) error {
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir = filepath.Join(testdb.RepoRoot(), pkg)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build %s: %w\n%s", pkg, err, b)
	}
	return nil
}

var (
	memhostOnce sync.Once
	memhostBin  string
	memhostErr  error
)

// Memhost builds the memhost command (host/cmd/memhost) once per test process and returns the
// binary's path, for tests that run it as a user does.
func Memhost(tb testing.TB) string {
	tb.Helper()
	memhostOnce.Do(func() {
		dir, err := processDir("memhost-test-bin-")
		if err != nil {
			memhostErr = err
			return
		}
		memhostBin = filepath.Join(dir, "memhost")
		memhostErr = Build(memhostBin, "host/cmd/memhost")
	})
	if memhostErr != nil {
		tb.Fatalf("testplugins: build memhost: %v", memhostErr)
	}
	return memhostBin
}
