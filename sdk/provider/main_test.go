package provider_test

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// go-plugin's debug (test) mode, used by the Serve tests, copies the
	// server's stdio pipes on goroutines that end only when the pipes are
	// garbage collected.
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/hashicorp/go-plugin.copyChan"))
}
