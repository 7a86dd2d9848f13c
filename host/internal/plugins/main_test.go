package plugins_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"go.uber.org/goleak"

	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/host/internal/plugins/embedders"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
)

// Plugin binaries built once per test binary by TestMain.
var (
	bm25Binary      string // the real BM25 embedder plugin
	hashBinary      string // the SDK's example hashing embedder: another identity
	misbehaveBinary string // breaks the protocol on purpose, by file name
)

// helperEnv makes the test binary act as a tiny host (see runHelperHost)
// instead of running tests, for the orphan test.
const helperEnv = "MEMHOST_PLUGINS_TEST_HELPER_DIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(helperEnv); dir != "" {
		runHelperHost(dir)
		return
	}
	// Every test shuts its Supervisor down and ends its Run; nothing the
	// package started (restarts, probes, go-plugin and gRPC goroutines) may
	// remain.
	goleak.VerifyTestMain(withBinaries{m})
}

// withBinaries builds the plugins the tests launch around the test run.
type withBinaries struct{ m *testing.M }

func (w withBinaries) Run() int {
	tmp, err := os.MkdirTemp("", "memhost-plugins-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	bm25Binary = filepath.Join(tmp, "bm25")
	hashBinary = filepath.Join(tmp, "hash")
	misbehaveBinary = filepath.Join(tmp, "misbehave")
	for out, pkg := range map[string]string{
		bm25Binary:      testplugins.BM25Package,
		hashBinary:      testplugins.HashPackage,
		misbehaveBinary: testplugins.MisbehavePackage,
	} {
		if err := testplugins.Build(out, pkg); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return w.m.Run()
}

// runHelperHost is a host that starts the plugins in dir, prints their pids
// and blocks until it is killed.
func runHelperHost(dir string) {
	s := plugins.New(plugins.Config{
		Adapters:       []plugins.Adapter{embedders.Adapter{}},
		HealthInterval: -1,
		Logger:         hclog.New(&hclog.LoggerOptions{Output: os.Stderr, Level: hclog.Warn}),
	})
	cands, errs := plugins.Discover([]string{dir}, nil)
	if len(errs) > 0 {
		fmt.Fprintln(os.Stderr, errs)
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.Start(ctx, cands); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for _, st := range s.List() {
		fmt.Printf("PID %d\n", st.PID)
	}
	select {}
}
