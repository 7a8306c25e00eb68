package kafka

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/streamsql/streamsql/internal/testrig/crashtest"
	"github.com/streamsql/streamsql/runtime/testkit"
)

// TestMain runs a crash test's child process when this process is one
// (the roles below, in the *_crash_test.go files), and otherwise the tests, failing the package when a test
// leaves goroutines running: every client the writers, committers and
// readers create must be closed.
func TestMain(m *testing.M) {
	crashtest.Main(map[string]func() int{
		"writer":      writerChild,
		"three-sinks": threeSinksChild,
		"scale":       scaleChild,
		"copy":        copyChild,
		"dead-letter": deadLetterChild,
		"chained":     chainChild,
	})
	// Jobs that checkpoint without a folder write the default one in a
	// temporary folder, not the user's home.
	cleanup, err := testkit.IsolateStateHome()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) { cleanup(); os.Exit(code) }))
}
