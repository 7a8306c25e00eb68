package nexmark_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connectors/nexmark"
	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/testkit"
)

const restoreJob = `
SET 'execution.checkpointing.interval' = '100ms';
SET 'restart-strategy.type' = 'fixed-delay';
SET 'restart-strategy.fixed-delay.attempts' = '5';
SET 'restart-strategy.fixed-delay.delay' = '10ms';
CREATE TABLE datagen (
  event_type INT,
  bid ROW<auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, ` + "`dateTime`" + ` TIMESTAMP(3), extra VARCHAR>
) WITH (
  'connector' = 'nexmark', 'events.num' = '20000', 'first-event.rate' = '10000', 'max-emit-speed' = 'false',
  'scan.parallelism' = '2', 'seed' = '3', 'base-time' = '2024-01-01 00:00:00'
);
CREATE TABLE out (auction BIGINT, bidder BIGINT, price BIGINT, extra STRING) WITH (
  'connector' = 'filesystem', 'path' = '${DIR}', 'format' = 'json'
);
INSERT INTO out SELECT bid.auction, bid.bidder, bid.price, bid.extra FROM datagen WHERE event_type = 2;
`

// TestRestoreExactlyOnce runs a paced job of two generators into the
// exactly-once filesystem sink and fails it after its third pre-commit:
// the runtime restores the last completed checkpoint and the generators
// go on from their checkpointed positions. The committed output must be
// the bids of the 20,000 events, each exactly once: a generator that
// produced other events after the restore (other random values) or
// skipped or repeated some would show.
func TestRestoreExactlyOnce(t *testing.T) {
	dir := t.TempDir()
	faults := (&testkit.Faults{}).On(runtime.AfterPreCommit, 3, testkit.Fail, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	j, err := job.Compile(ctx, "restore.sql", restoreJob, job.Options{Vars: map[string]string{"DIR": dir},
		Logger: slog.New(slog.DiscardHandler), Testing: job.Testing{Faults: faults}})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if !faults.Fired(runtime.AfterPreCommit) {
		t.Fatal("the failure was not injected: the job ended before its third checkpoint")
	}

	cfg, err := nexmark.ConfigFromOptions(map[string]string{"events.num": "20000", "first-event.rate": "10000",
		"scan.parallelism": "2", "seed": "3", "base-time": "2024-01-01 00:00:00"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := nexmark.NewModel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	var ev nexmark.Event
	for i := range cfg.Generators {
		for g := m.NewGenerator(i); g.HasNext(); {
			g.Next(&ev)
			if ev.Type == nexmark.BidEvent {
				b := ev.Bid
				want = append(want, fmt.Sprintf("%d %d %d %s", b.Auction, b.Bidder, b.Price, b.Extra))
			}
		}
	}
	var got []string
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var r struct {
				Auction, Bidder, Price int64
				Extra                  string
			}
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			got = append(got, fmt.Sprintf("%d %d %d %s", r.Auction, r.Bidder, r.Price, r.Extra))
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	slices.Sort(want)
	if len(got) != len(want) {
		t.Fatalf("%d rows committed, want the %d bids once each", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("committed row %q, want %q", got[i], want[i])
		}
	}
}
