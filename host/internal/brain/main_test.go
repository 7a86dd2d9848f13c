package brain_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Search fans out one goroutine per layer; none may outlive a call.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
