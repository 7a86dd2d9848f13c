package main

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a command leaves a goroutine running. The commands keep
// tokens in the user's cache folder: the tests' go to a folder of their own.
func TestMain(m *testing.M) {
	cache, err := os.MkdirTemp("", "memhost-cmd-cache-")
	if err != nil {
		panic(err)
	}
	if err := os.Setenv("XDG_CACHE_HOME", cache); err != nil {
		panic(err)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		_ = os.RemoveAll(cache)
		os.Exit(code)
	}))
}
