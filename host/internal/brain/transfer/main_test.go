package transfer_test

import (
	"testing"

	"go.uber.org/goleak"
)

// An import reads ahead of the store in a goroutine of its own; none may outlive it.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
