package crashtest

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	Main(map[string]func() int{
		"ok":    func() int { return 0 },
		"fails": func() int { fmt.Fprintln(os.Stderr, "the reason"); return 3 },
		"sleeps": func() int {
			fmt.Println("started")
			time.Sleep(time.Minute)
			return 0
		},
		"env": func() int {
			if os.Getenv("CRASHTEST_X") != "y" {
				return 4
			}
			return 0
		},
	})
	os.Exit(m.Run())
}

func TestRunReportsSIGKILL(t *testing.T) {
	if !Run(t, Spec{Role: "sleeps"}, 50*time.Millisecond) {
		t.Fatal("a child killed after 50 ms was not reported killed")
	}
	if Run(t, Spec{Role: "ok"}, 0) {
		t.Fatal("a child that exited 0 was reported killed")
	}
	if Run(t, Spec{Role: "env", Env: []string{"CRASHTEST_X=y"}}, 0) {
		t.Fatal("the env child was reported killed")
	}
}

func TestExecReportsOtherFailures(t *testing.T) {
	killed, stderr, err := Exec(t, Spec{Role: "fails"}, 0)
	if killed || err == nil || !strings.Contains(stderr, "the reason") || !strings.Contains(err.Error(), "the reason") {
		t.Fatalf("a child exiting 3: killed %v, err %v, stderr %q", killed, err, stderr)
	}
	if _, _, err := Exec(t, Spec{Role: "env"}, 0); err == nil {
		t.Fatal("the env child without its variable succeeded")
	}
	c := Start(t, Spec{Role: "sleeps"})
	c.Signal(os.Interrupt)
	if killed, err := c.Wait(); killed || err == nil {
		t.Fatalf("a child ended by SIGINT: killed %v, err %v; want a failure that is not a SIGKILL", killed, err)
	}
}

func TestRandRepeatsTheSeed(t *testing.T) {
	t.Setenv(SeedEnv, "12345")
	a, b := Rand(t, 1), Rand(t, 1)
	for range 10 {
		if x, y := a.Uint64(), b.Uint64(); x != y {
			t.Fatalf("two sources of seed 12345 differ: %d, %d", x, y)
		}
	}
}
