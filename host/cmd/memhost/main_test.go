package main

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a command leaves a goroutine running.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
