package kafka

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves goroutines running: every
// client the writers, committers and readers create must be closed.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
