package hostclient_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a client call or a forwarder leaves a goroutine running.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
