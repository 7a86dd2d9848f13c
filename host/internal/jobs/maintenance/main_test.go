package maintenance

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine running: River's clients must
// stop cleanly.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
