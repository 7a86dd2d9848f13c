package connect

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"go.uber.org/goleak"

	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/host/internal/plugins/providers"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
)

// planners are the repository's provider plugins, by CLI: connect's tests apply their plans.
var planners = map[string]Planner{}

func TestMain(m *testing.M) {
	code, err := run(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// run starts the provider plugins, runs the tests and shuts the plugins down.
func run(m *testing.M) (int, error) {
	dir, err := os.MkdirTemp("", "memhost-connect-providers-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	if err := testplugins.BuildProviders(dir); err != nil {
		return 0, err
	}
	sup := plugins.New(plugins.Config{
		Adapters: []plugins.Adapter{providers.Adapter{}}, HealthInterval: -1,
		Logger: hclog.New(&hclog.LoggerOptions{Output: os.Stderr, Level: hclog.Error}),
	})
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = sup.Shutdown(ctx)
	}()
	cands, errs := plugins.Discover([]string{dir}, nil)
	if len(errs) > 0 {
		return 0, fmt.Errorf("discover the providers: %v", errs)
	}
	if err := sup.Start(context.Background(), cands); err != nil {
		return 0, err
	}
	for _, cli := range testplugins.ProviderCLIs {
		h, err := providers.Find(sup, cli)
		if err != nil {
			return 0, err
		}
		planners[cli] = h
	}
	return m.Run(), nil
}
