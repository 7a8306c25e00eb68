package jdbc_test

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/streamsql/streamsql/internal/testrig/crashtest"
	"github.com/streamsql/streamsql/runtime/testkit"
)

// TestMain runs the crash test's child process when this process is one
// (crash_test.go), and otherwise the tests, with the default checkpoint
// folder in a temporary state home, failing the package when a test
// leaves a goroutine running: a writer's timed flushes and a reader's
// query must end with their context or at Close.
func TestMain(m *testing.M) {
	crashtest.Main(map[string]func() int{"crash": func() int { return crashChild(os.Getenv(crashEnv)) }})
	cleanup, err := testkit.IsolateStateHome()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) { cleanup(); os.Exit(code) }))
}
