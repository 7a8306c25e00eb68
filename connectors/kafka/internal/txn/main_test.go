package txn

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine running: every
// client, warm-up and listing a writer or committer starts must end with
// its context or at Close.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
