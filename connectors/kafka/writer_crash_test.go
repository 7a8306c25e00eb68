package kafka

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/kafka/internal/txn"
	"github.com/streamsql/streamsql/internal/testrig/crashtest"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// The writer crash test runs an exactly-once writer in a child process
// (this test binary, re-executed as the role "writer"; crashtest), kills it
// with SIGKILL at a failure point, and recovers in the test process from
// the committables the child reported — as the runtime would from its last
// checkpoint.

// writerChild is the child: it writes checkpoint 1 (committed, the commit's
// acknowledgement never made durable) and checkpoint 2 (pre-committed),
// prints both committables, opens a third transaction with records, and
// waits to be killed.
func writerChild() int {
	fail := func(err error) int { fmt.Fprintln(os.Stderr, "crash child:", err); return 1 }
	cfg := sinkConfig{Topic: os.Getenv("CRASH_TOPIC"), Properties: map[string]string{"bootstrap.servers": os.Getenv("CRASH_BROKER")},
		DeliveryGuarantee: exactlyOnce, TransactionalIDPrefix: os.Getenv("CRASH_PREFIX"), Encoder: kvEncoder,
		AckTracker: &memoryAckTracker{}, Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))}
	s, err := newSink(cfg)
	if err != nil {
		return fail(err)
	}
	ctx := context.Background()
	ts := s.(*exactlyOnceSink)
	cm, err := ts.Committer(ctx, "crash")
	if err != nil {
		return fail(err)
	}
	if err := cm.Recover(ctx, nil); err != nil {
		return fail(err)
	}
	w, err := ts.Open(ctx, task(0))
	if err != nil {
		return fail(err)
	}
	for _, step := range []struct {
		cp     int64
		vals   []string
		commit bool
	}{{1, seq("c1-", 0, 50), true}, {2, seq("c2-", 0, 50), false}} {
		if err := w.Write(ctx, rows(step.vals...)); err != nil {
			return fail(err)
		}
		cs, err := w.PreCommit(ctx, step.cp)
		if err != nil || len(cs) != 1 {
			return fail(fmt.Errorf("PreCommit: %v (%d committables)", err, len(cs)))
		}
		if step.commit {
			if err := cm.Commit(ctx, cs[0]); err != nil {
				return fail(err)
			}
		}
		fmt.Printf("C %s\n", cs[0])
	}
	if err := w.Write(ctx, rows(seq("lingering-", 0, 50)...)); err != nil {
		return fail(err)
	}
	if err := openClient(w.(*txn.Writer)).Flush(ctx); err != nil {
		return fail(err)
	}
	fmt.Println("READY")
	time.Sleep(time.Hour)
	return 0
}

// TestCrashRecovery kills the child between pre-commit and commit (and
// after a commit whose acknowledgement was never durable) and checks that
// recovery leaves the output exactly once: both checkpoints' records, in
// order, and nothing of the open transaction, which no longer blocks
// read_committed readers.
func TestCrashRecovery(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b kafkatest.Broker) {
		topic := b.Topic(t, 1)
		prefix := kafkatest.UniqueName(t)
		out, stdout := io.Pipe()
		child := crashtest.Start(t, crashtest.Spec{Role: "writer", Stdout: stdout, Stderr: os.Stderr,
			Env: []string{"CRASH_TOPIC=" + topic, "CRASH_BROKER=" + b.Addr, "CRASH_PREFIX=" + prefix}})
		go func() {
			<-child.Done() // the child's output is all copied: end the scan
			stdout.Close()
		}()
		var pending []connector.Committable
		sc := bufio.NewScanner(out)
		ready := false
		for sc.Scan() {
			line := sc.Text()
			if c, ok := strings.CutPrefix(line, "C "); ok {
				pending = append(pending, connector.Committable(c))
			}
			if line == "READY" {
				ready = true
				break
			}
		}
		out.Close() // nothing more is read: the child's writes fail rather than block
		child.Kill()
		if !ready || len(pending) != 2 {
			t.Fatalf("the child did not reach the failure point (%d committables)", len(pending))
		}
		if _, err := startEOS(t, eosConfig(b, topic, prefix, &memoryAckTracker{}), pending...); err != nil {
			t.Fatalf("recovery after SIGKILL: %v", err)
		}
		produceSentinel(t, b, topic)
		want := append(append(seq("c1-", 0, 50), seq("c2-", 0, 50)...), "sentinel")
		expectValues(t, b, topic, true, want)
	})
}
