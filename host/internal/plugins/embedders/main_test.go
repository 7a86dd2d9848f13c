package embedders_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/memhost/memhost/host/internal/testkit/testplugins"
)

// Plugin binaries built once per test binary by TestMain.
var (
	bm25Binary      string // the real BM25 embedder plugin
	misbehaveBinary string // breaks the protocol on purpose, by file name
)

func TestMain(m *testing.M) {
	// Every test shuts its Supervisor down: no goroutine may remain.
	goleak.VerifyTestMain(withBinaries{m})
}

// withBinaries builds the plugins the tests launch around the test run.
type withBinaries struct{ m *testing.M }

func (w withBinaries) Run() int {
	tmp, err := os.MkdirTemp("", "memhost-embedders-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	bm25Binary = filepath.Join(tmp, "bm25")
	misbehaveBinary = filepath.Join(tmp, "misbehave")
	for out, pkg := range map[string]string{bm25Binary: testplugins.BM25Package, misbehaveBinary: testplugins.MisbehavePackage} {
		if err := testplugins.Build(out, pkg); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return w.m.Run()
}
