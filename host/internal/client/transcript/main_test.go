package transcript_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/memhost/memhost/host/internal/client/transcript"
	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/host/internal/plugins/providers"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
)

// The repository's provider plugins, real processes, shared by the tests and shut down when
// they end: the transcript is read where production reads it.
var (
	supOnce sync.Once
	sup     *plugins.Supervisor
	supErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if sup != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = sup.Shutdown(ctx)
		cancel()
	}
	os.Exit(code)
}

func newSupervisor() *plugins.Supervisor {
	return plugins.New(plugins.Config{
		Adapters: []plugins.Adapter{providers.Adapter{}}, HealthInterval: -1,
		Logger: hclog.New(&hclog.LoggerOptions{Output: os.Stderr, Level: hclog.Error}),
	})
}

// reader is cli's provider plugin.
func reader(t *testing.T, cli string) transcript.Reader {
	t.Helper()
	dir := testplugins.Providers(t)
	supOnce.Do(func() {
		cands, errs := plugins.Discover([]string{dir}, nil)
		if len(errs) > 0 {
			supErr = errs[0]
			return
		}
		sup = newSupervisor()
		supErr = sup.Start(context.Background(), plugins.OfKind(cands, providers.Adapter{}.Kind()))
	})
	if supErr != nil {
		t.Fatal(supErr)
	}
	h, err := providers.Find(sup, cli)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// oldProvider is a provider plugin for cli built before the Transcript RPC.
func oldProvider(t *testing.T, cli string) transcript.Reader {
	t.Helper()
	dir := t.TempDir()
	if err := testplugins.Build(filepath.Join(dir, "memhost-provider-"+cli), testplugins.OldProviderPackage); err != nil {
		t.Fatal(err)
	}
	s := newSupervisor()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
	})
	cands, errs := plugins.Discover([]string{dir}, nil)
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	if err := s.Start(t.Context(), cands); err != nil {
		t.Fatal(err)
	}
	h, err := providers.Find(s, cli)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
