package testplugins

import (
	"path/filepath"
	"sync"
	"testing"
)

// ProviderCLIs are the CLIs of the repository's provider plugins; plugins/provider-<cli>
// builds memhost-provider-<cli>.
var ProviderCLIs = []string{"claude", "codex", "gemini"}

var (
	providersOnce sync.Once
	providersDir  string
	providersErr  error
)

// BuildProviders compiles every provider plugin into dir, named as the Makefile names them. It
// needs no testing.TB, so a TestMain or a benchmark can call it.
func BuildProviders(dir string) error {
	for _, cli := range ProviderCLIs {
		if err := Build(filepath.Join(dir, "memhost-provider-"+cli), "plugins/provider-"+cli); err != nil {
			return err
		}
	}
	return nil
}

// Providers builds the provider plugins once per test process into a folder of their own (so
// a test that points memhost run at it finds no embedder there) and returns it.
func Providers(tb testing.TB) string {
	tb.Helper()
	providersOnce.Do(func() {
		providersDir, providersErr = processDir("memhost-test-providers-")
		if providersErr == nil {
			providersErr = BuildProviders(providersDir)
		}
	})
	if providersErr != nil {
		tb.Fatalf("testplugins: build provider plugins: %v", providersErr)
	}
	return providersDir
}
