package filesystem_test

import (
	"os"
	"testing"

	"github.com/streamsql/streamsql/internal/testrig/crashtest"
	"github.com/streamsql/streamsql/runtime/testkit"
)

// TestMain runs a crash test's child process (crash_test.go,
// badrecord_crash_test.go, s3crash_test.go,
// partitiontime_crash_test.go) when this process is one, else the tests, with
// the default checkpoint folder in a temporary state home.
func TestMain(m *testing.M) {
	crashtest.Main(map[string]func() int{
		"crash":      func() int { return crashChild(os.Getenv(crashDirEnv)) },
		"bad-record": func() int { return badChild(os.Getenv(badChildEnv)) },
		"s3crash":    s3CrashChild,
		ptimeRole:    ptimeChild,
	})
	os.Exit(testkit.RunWithStateHome(m))
}
