package produce

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine running: the
// warm-ups and the delivery-timeout watch must end with their context or
// at Close.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
