package spawn

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// helperEnv, when set, makes the test binary act as `memhost run` with the options it holds
// (JSON), so a test can kill a run with SIGKILL.
const helperEnv = "SPAWN_TEST_HELPER"

// helperOptions are what a helper process runs.
type helperOptions struct {
	CLI, Dir, ScratchRoot, HostURL, Token string
	Args, Env, PluginDirs                 []string
}

func TestMain(m *testing.M) {
	if raw := os.Getenv(helperEnv); raw != "" {
		os.Exit(helperMain(raw))
	}
	// Every Run shuts its plugin supervisor down: no goroutine may remain.
	goleak.VerifyTestMain(m)
}

func helperMain(raw string) int {
	var h helperOptions
	if err := json.Unmarshal([]byte(raw), &h); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	o := Options{
		CLI: h.CLI, Args: h.Args, Dir: h.Dir, Env: h.Env, PluginDirs: h.PluginDirs, ScratchRoot: h.ScratchRoot,
		Host: &Host{URL: h.HostURL}, Tokens: StaticToken(h.Token),
	}
	signals, stop := Signals(false)
	defer stop()
	o.Signals = signals
	res, err := Run(context.Background(), o)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	return res.ExitCode
}
