package kafka

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/testkit"
)

// openTransactions returns the ids with prefix of the transactions the
// cluster has open (Ongoing).
func openTransactions(t *testing.T, adm *kadm.Client, prefix string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	listed, err := adm.ListTransactions(ctx, nil, []string{"Ongoing"})
	if err != nil {
		t.Fatalf("ListTransactions: %v", err)
	}
	var ids []string
	for id := range listed {
		if strings.HasPrefix(id, prefix) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	described, err := adm.DescribeTransactions(ctx, ids...)
	if err != nil {
		t.Fatalf("DescribeTransactions: %v", err)
	}
	var out []string
	for _, d := range described.Sorted() {
		if d.Err == nil && d.State == "Ongoing" {
			out = append(out, d.TxnID)
		}
	}
	return out
}

// TestScaleOutSurvivorEndsDeadTransactions: an instance SIGKILLed inside
// a transaction and never restarted leaves it open, which holds the last
// stable offset of its output partitions (read_committed readers see
// nothing written after it) and, once it committed offsets in it, the
// group's stable offset fetch. When the group has moved the instance's
// partitions, the surviving instance ends that transaction, long before
// the broker's transaction timeout (ten minutes here), and the output is
// exact.
//
// Killed in the middle of a transaction, b's transaction is aborted (the
// group's offsets do not include it: its input is read again); the kill
// at a random moment may also land just after a pre-commit. Killed right
// after its pre-commit (a fault rule: records flushed, offsets committed
// in the transaction), it is committed: it also holds the group's
// offsets, which the survivor's stable offset fetch waits for.
func TestScaleOutSurvivorEndsDeadTransactions(t *testing.T) {
	for _, b := range kafkatest.RequireAll(t) {
		t.Run(b.Name+"/open", func(t *testing.T) { testSurvivor(t, b, false) })
		t.Run(b.Name+"/pre-committed", func(t *testing.T) { testSurvivor(t, b, true) })
	}
}

func testSurvivor(t *testing.T, b kafkatest.Broker, precommitted bool) {
	const partitions = 4
	c := newScaleCluster(t, b, partitions, "exactly-once", map[string]string{"TXN_TIMEOUT": "600000"})
	adm := b.Admin(t)
	prod := b.Client(t, kgo.DefaultProduceTopic(c.in))
	stop := make(chan struct{})
	producedCh := make(chan map[int64]int64, 1)
	go func() { producedCh <- feed(t, prod, c.in, 20, stop) }()
	defer func() {
		select {
		case <-stop:
		default:
			close(stop)
			<-producedCh
		}
	}()

	c.start("a")
	var open []string
	ended := "(aborted|committed)" // killed at a random moment: maybe just after a pre-commit
	if precommitted {
		// b kills itself right after its sixth pre-commit.
		c.startWith("b", nil, testkit.FaultsEnv+"="+string(runtime.AfterPreCommit)+"@6:kill")
		c.mu.Lock()
		done := c.done["b"]
		c.mu.Unlock()
		select {
		case <-done:
		case <-time.After(90 * time.Second):
			t.Fatalf("instance b never reached its sixth pre-commit:\n%s", c.log("b"))
		}
		c.signal("b", syscall.SIGKILL) // already dead: forget it
		open = openTransactions(t, adm, c.group+"-b-")
		if len(open) == 0 {
			t.Fatalf("instance b killed after its pre-commit left no open transaction:\n%s", c.log("b"))
		}
		ended = "committed"
	}
	// Else kill b inside a transaction (it writes all the time; try again
	// in the rare case it was between two).
	for attempt := 1; !precommitted; attempt++ {
		if attempt == 1 {
			c.start("b")
			c.awaitSpread(adm, partitions)
		}
		for deadline := time.Now().Add(time.Minute); len(openTransactions(t, adm, c.group+"-b-")) == 0; {
			if time.Now().After(deadline) {
				t.Fatalf("instance b never opened a transaction:\n%s", c.log("b"))
			}
			time.Sleep(20 * time.Millisecond)
		}
		c.signal("b", syscall.SIGKILL)
		if open = openTransactions(t, adm, c.group+"-b-"); len(open) > 0 {
			break
		}
		if attempt == 5 {
			t.Fatal("instance b never had an open transaction when killed")
		}
		c.start("b")
		c.awaitSpread(adm, partitions)
	}
	t.Logf("instance b killed with open transactions %v; not restarted", open)
	c.awaitSpread(adm, partitions) // a alone, after b's session timeout

	deadline := time.Now().Add(60 * time.Second)
	for {
		still := openTransactions(t, adm, c.group+"-b-")
		if !slices.ContainsFunc(open, func(id string) bool { return slices.Contains(still, id) }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("instance b's transactions %v still open a minute after the group moved its partitions (transaction timeout: 10 min)", still)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// Instance a logs the end after its EndTxn returns, so the line may
	// follow the moment the broker stopped listing the transaction.
	endedLine := regexp.MustCompile(`ended a transaction left open by an instance that is no longer a member of the job's consumer groups: ` + ended + `.* instance=b `)
	for logDeadline := time.Now().Add(10 * time.Second); !endedLine.MatchString(c.log("a")); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(logDeadline) {
			t.Errorf("instance a did not log that it ended b's transaction (%s):\n%s", ended, c.log("a"))
			break
		}
	}
	close(stop)
	produced := <-producedCh
	checkOutput(t, b, c.out, produced, true)
	c.signal("a", syscall.SIGTERM)
}

// TestCommitAfterSurvivorCommitted: a paused instance whose pre-committed
// transaction a survivor committed (a raw EndTxn with the producer id and
// epoch it described) commits it itself when it resumes: its commit on the
// slot's client is taken as a retry, so the instance goes on instead of
// failing with a lost commit.
func TestCommitAfterSurvivorCommitted(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b kafkatest.Broker) {
		ctx := context.Background()
		topic := b.Topic(t, 1)
		run, err := startEOS(t, eosConfig(b, topic, kafkatest.UniqueName(t), &memoryAckTracker{}))
		if err != nil {
			t.Fatal(err)
		}
		want := seq("z", 0, 10)
		mustWrite(t, run.w, rows(want...))
		c := mustPreCommit(t, run.w, 1)
		d := mustDecode(t, c)
		req := kmsg.NewPtrEndTxnRequest()
		req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit = d.TransactionalID, d.ProducerID, d.Epoch, true
		resp, err := req.RequestWith(ctx, run.cm.RawClient(d.TransactionVersion))
		if err == nil {
			err = kerr.ErrorForCode(resp.ErrorCode)
		}
		if err != nil {
			t.Fatalf("the survivor's EndTxn: %v", err)
		}
		expectValues(t, b, topic, true, want)
		if err := run.cm.Commit(ctx, c); err != nil {
			t.Fatalf("the instance's own commit after the survivor's: %v", err)
		}
		mustWrite(t, run.w, rows("after"))
		if err := run.cm.Commit(ctx, mustPreCommit(t, run.w, 2)); err != nil {
			t.Fatal(err)
		}
		expectValues(t, b, topic, true, append(want, "after"))
	})
}
