package tasks_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/memhost/memhost/host/internal/testplugins"
)

// pluginDir holds the real worker plugins, built once by TestMain as the Makefile names them.
var pluginDir string

func TestMain(m *testing.M) {
	// Every test closes its Runner: no goroutine may remain.
	goleak.VerifyTestMain(withPlugins{m})
}

type withPlugins struct{ m *testing.M }

func (w withPlugins) Run() int {
	dir, err := os.MkdirTemp("", "memhost-tasks-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = os.RemoveAll(dir) }()
	for name, pkg := range map[string]string{
		"memhost-worker-openaicompat": "plugins/worker-openaicompat",
		"memhost-worker-agentcli":     "plugins/worker-agentcli",
	} {
		if err := testplugins.Build(filepath.Join(dir, name), pkg); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	pluginDir = dir
	return w.m.Run()
}
