package workers_test

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
	echoBinary string // the SDK's example worker
	badBinary  string // breaks the protocol on purpose, by file name (sdk/internal/testworker)
)

func TestMain(m *testing.M) {
	// Every test shuts its Supervisor down: no goroutine may remain.
	goleak.VerifyTestMain(withBinaries{m})
}

// withBinaries builds the plugins the tests launch around the test run.
type withBinaries struct{ m *testing.M }

func (w withBinaries) Run() int {
	tmp, err := os.MkdirTemp("", "memhost-workers-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	echoBinary = filepath.Join(tmp, "echo")
	badBinary = filepath.Join(tmp, "bad")
	for out, pkg := range map[string]string{echoBinary: "sdk/examples/worker-echo", badBinary: "sdk/internal/testworker"} {
		if err := testplugins.Build(out, pkg); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return w.m.Run()
}
