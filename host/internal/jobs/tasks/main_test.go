package tasks_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every test closes its Runner: no goroutine may remain.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
