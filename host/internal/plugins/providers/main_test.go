package providers_test

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// Every test shuts its Supervisor down: no goroutine may remain.
	goleak.VerifyTestMain(m)
}
