package runtime_test

import (
	"testing"

	"time"

	"github.com/streamsql/streamsql/internal/testrig/crashtest"
	"github.com/streamsql/streamsql/runtime"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	crashtest.Main(childRoles)
	goleak.VerifyTestMain(m)
}

func TestBoundedJobExactlyOnce(t *testing.T) {
	r := newRig(t)
	r.sinks = 2
	j := r.job(t)
	if err := runJob(t, j, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	r.verify(t, r.full())
	st := j.Status()
	if st.Checkpoints.Completed == 0 || st.Checkpoints.LastSize == 0 || st.Checkpoints.LastID == 0 ||
		st.Checkpoints.LastCompleted.IsZero() || st.Checkpoints.TotalDuration < st.Checkpoints.LastDuration {
		t.Fatalf("checkpoint status: %+v", st.Checkpoints)
	}
	if st.State != runtime.StateFinished {
		t.Fatalf("state %s after the end of input", st.State)
	}
	var in, out int64
	for _, ts := range st.Tasks {
		switch ts.Kind {
		case "source":
			out += ts.RecordsOut
		case "sink":
			in += ts.RecordsIn
		}
	}
	if total := int64(r.partitions) * r.per; out != total || in != 2*total {
		t.Fatalf("records out of sources %d, into sinks %d; want %d and %d", out, in, total, 2*total)
	}
	if st.PendingCommits != 0 {
		t.Fatalf("%d pending commits after the end", st.PendingCommits)
	}
}
