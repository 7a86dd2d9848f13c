package plugins

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"go.uber.org/goleak"
)

// Plugin binaries built once per test binary by TestMain.
var (
	bm25Binary string // the real BM25 embedder plugin
	hashBinary string // the SDK's example hashing embedder: another identity
)

// helperEnv makes the test binary act as a tiny host (see runHelperHost)
// instead of running tests, for the orphan test.
const helperEnv = "MEMHOST_PLUGINS_TEST_HELPER_DIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(helperEnv); dir != "" {
		runHelperHost(dir)
		return
	}
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "memhost-plugins-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	root := repoRoot()
	bm25Binary = filepath.Join(tmp, "bm25")
	hashBinary = filepath.Join(tmp, "hash")
	for _, b := range []struct{ dir, out, pkg string }{
		{filepath.Join(root, "plugins", "embed-bm25"), bm25Binary, "."},
		{filepath.Join(root, "sdk"), hashBinary, "./examples/embed-hash"},
	} {
		cmd := exec.Command("go", "build", "-o", b.out, b.pkg)
		cmd.Dir = b.dir
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s in %s: %v\n%s", b.pkg, b.dir, err, out)
			return 1
		}
	}
	code := m.Run()
	if code == 0 {
		// Every test shuts its Manager down; nothing the package started
		// (health loops, restarts, go-plugin and gRPC goroutines) may remain.
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
			code = 1
		}
	}
	return code
}

// repoRoot is the directory holding host/, sdk/ and plugins/, found from
// this file's location so tests work from any working directory.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// runHelperHost is a host that starts the plugins in dir, prints their pids
// and blocks until it is killed.
func runHelperHost(dir string) {
	m := New(Config{HealthInterval: -1, Logger: hclog.New(&hclog.LoggerOptions{Output: os.Stderr, Level: hclog.Warn})})
	cands, errs := Discover([]string{dir}, nil)
	if len(errs) > 0 {
		fmt.Fprintln(os.Stderr, errs)
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := m.Start(ctx, cands); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for _, s := range m.List() {
		fmt.Printf("PID %d\n", s.PID)
	}
	select {}
}
