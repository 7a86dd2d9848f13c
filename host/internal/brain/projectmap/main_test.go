package projectmap_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Build runs git as a child process; nothing it starts may outlive it.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
