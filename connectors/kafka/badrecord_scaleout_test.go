package kafka

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// feedWithBad produces, until stop is closed, batches of rows {k, seq}
// keyed by k (per-key seq 0, 1, 2, ...) with every fifth record not JSON
// ("bad-<n>", keyed by a key too); then one good row per key, so that every
// bad record of a partition is followed by a good one. It returns the good
// rows produced per key and the bad values.
func feedWithBad(t *testing.T, cl *kgo.Client, topic string, keys int, stop <-chan struct{}) (map[int64]int64, map[string]bool) {
	next, bad := map[int64]int64{}, map[string]bool{}
	ctx := context.Background()
	good := func(k int64) *kgo.Record {
		v, _ := json.Marshal(scaleRow{K: k, Seq: next[k]})
		next[k]++
		return &kgo.Record{Topic: topic, Key: []byte(strconv.FormatInt(k, 10)), Value: v}
	}
	for {
		var recs []*kgo.Record
		select {
		case <-stop:
			for k := range int64(keys) {
				recs = append(recs, good(k))
			}
			if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
				t.Errorf("producing the input: %v", err)
			}
			return next, bad
		case <-time.After(5 * time.Millisecond):
		}
		for i := range 10 {
			k := rand.Int64N(int64(keys))
			if i%5 == 2 {
				v := fmt.Sprintf("bad-%d", len(bad))
				bad[v] = true
				recs = append(recs, &kgo.Record{Topic: topic, Key: []byte(strconv.FormatInt(k, 10)), Value: []byte(v)})
				continue
			}
			recs = append(recs, good(k))
		}
		if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			t.Errorf("producing the input: %v", err)
			return next, bad
		}
	}
}

// openTransactionsWriting returns the ids with prefix of the transactions
// the cluster has open (Ongoing) that write topic.
func openTransactionsWriting(t *testing.T, adm *kadm.Client, prefix, topic string) []string {
	t.Helper()
	ids := openTransactions(t, adm, prefix)
	if len(ids) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	described, err := adm.DescribeTransactions(ctx, ids...)
	if err != nil {
		t.Fatalf("DescribeTransactions: %v", err)
	}
	var out []string
	for _, d := range described.Sorted() {
		if _, ok := d.Topics[topic]; ok && d.Err == nil && d.State == "Ongoing" {
			out = append(out, d.TxnID)
		}
	}
	return out
}

// TestDeadLetterScaleOut: in a scaled-out job (no checkpoint files), a
// source's dead letters ride the exactly-once sink's transactions with the
// output and the group offsets. Instance b is SIGKILLed while it has a
// transaction open that holds dead letters, and never restarted: the
// survivor a ends that transaction, dead letters included, long before
// the broker's transaction timeout (ten minutes), and at the end an
// independent read_committed reader finds every good record in the output
// once, in order per key, and every bad record in the dead-letter topic
// once, on both transaction versions. The survivor's part failed before it
// counted the dead-letter topic as the sink's: it left such a transaction
// to the broker's timeout.
func TestDeadLetterScaleOut(t *testing.T) {
	for _, b := range kafkatest.RequireAll(t) {
		t.Run(b.Name, func(t *testing.T) { testDeadLetterScaleOut(t, b) })
	}
}

func testDeadLetterScaleOut(t *testing.T, b kafkatest.Broker) {
	const partitions = 4
	dlq := b.Topic(t, 1)
	c := newScaleCluster(t, b, partitions, "exactly-once", map[string]string{"TXN_TIMEOUT": "600000",
		"SRC_EXTRA": ", 'scan.bad-record.policy' = 'dead-letter', 'scan.bad-record.dead-letter.topic' = '" + dlq + "'"})
	adm := b.Admin(t)
	prod := b.Client(t, kgo.DefaultProduceTopic(c.in))
	stop := make(chan struct{})
	type fed struct {
		good map[int64]int64
		bad  map[string]bool
	}
	fedCh := make(chan fed, 1)
	go func() { g, bd := feedWithBad(t, prod, c.in, 20, stop); fedCh <- fed{g, bd} }()
	defer func() {
		select {
		case <-stop:
		default:
			close(stop)
			<-fedCh
		}
	}()

	c.start("a")
	var open []string
	for attempt := 1; ; attempt++ {
		if attempt == 1 {
			c.start("b")
			c.awaitSpread(adm, partitions)
		}
		for deadline := time.Now().Add(time.Minute); len(openTransactionsWriting(t, adm, c.group+"-b-", dlq)) == 0; {
			if time.Now().After(deadline) {
				t.Fatalf("instance b never opened a transaction with dead letters:\n%s", c.log("b"))
			}
			time.Sleep(20 * time.Millisecond)
		}
		c.signal("b", syscall.SIGKILL)
		if open = openTransactionsWriting(t, adm, c.group+"-b-", dlq); len(open) > 0 {
			break
		}
		if attempt == 5 {
			t.Fatal("instance b never had an open transaction with dead letters when killed")
		}
		c.start("b")
		c.awaitSpread(adm, partitions)
	}
	t.Logf("instance b killed with open transactions holding dead letters %v; not restarted", open)
	c.awaitSpread(adm, partitions) // a alone, after b's session timeout

	deadline := time.Now().Add(60 * time.Second)
	for {
		still := openTransactions(t, adm, c.group+"-b-")
		if !slices.ContainsFunc(open, func(id string) bool { return slices.Contains(still, id) }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("instance b's transactions %v, holding dead letters, still open a minute after the group moved its partitions (transaction timeout: 10 min)", still)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if !regexp.MustCompile(`ended a transaction left open by an instance that is no longer a member of the job's consumer groups: (aborted|committed).* instance=b `).MatchString(c.log("a")) {
		t.Errorf("instance a did not log that it ended b's transaction:\n%s", c.log("a"))
	}
	close(stop)
	f := <-fedCh
	checkOutput(t, b, c.out, f.good, true)
	// Every partition ends with good rows, now all in the output: the dead
	// letters of the bad records before them are committed too.
	seen := map[string]int{}
	for _, r := range readCommitted(t, b, dlq, 1) {
		seen[string(r.Value)]++
		if !strings.HasPrefix(string(r.Value), "bad-") || headerValue(r, HeaderDeadLetterReason) != reasonDecode {
			t.Errorf("dead letter %q (reason %q) is no bad record of the input", r.Value, headerValue(r, HeaderDeadLetterReason))
		}
	}
	missing, twice := 0, 0
	for v := range f.bad {
		switch seen[v] {
		case 0:
			missing++
		case 1:
		default:
			twice++
		}
	}
	t.Logf("dead letters: %d bad records, %d distinct dead letters", len(f.bad), len(seen))
	if missing > 0 || twice > 0 {
		t.Errorf("of %d bad records, %d have no dead letter and %d more than one", len(f.bad), missing, twice)
	}
	c.signal("a", syscall.SIGTERM)
}
