package filesystem_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/twmb/franz-go/pkg/kgo"

	_ "github.com/streamsql/streamsql/connectors/kafka"
	_ "github.com/streamsql/streamsql/formats/json"
	"github.com/streamsql/streamsql/internal/s3fs"
	"github.com/streamsql/streamsql/internal/testrig/crashtest"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/internal/testrig/s3test"
	"github.com/streamsql/streamsql/job"
	_ "github.com/streamsql/streamsql/runtime/checkpoint/s3store"
)

// The S3 crash tests run a Kafka → s3:// filesystem job, exactly once,
// with its checkpoints on s3:// too, in a child process (role "s3crash",
// s3CrashChild) that the test SIGKILLs at random times, and read the
// committed objects back with the S3 SDK's own client: every input record
// exactly once. The child's job file is s3CrashJob; the environment names
// the broker, the topic, the S3 server and the location.
const (
	s3CrashBrokerEnv = "STREAMSQL_S3CRASH_BROKER"
	s3CrashTopicEnv  = "STREAMSQL_S3CRASH_TOPIC"
	s3CrashBaseEnv   = "STREAMSQL_S3CRASH_BASE"
	// s3CrashRestartEnv, when set, gives the job a restart strategy that
	// rides out an outage of the object store (fixed-delay, many
	// attempts) instead of none.
	s3CrashRestartEnv = "STREAMSQL_S3CRASH_RESTART"
)

// s3CrashJob is the child's job: Kafka JSON records {id, bucket} into a
// filesystem table on s3:// partitioned by bucket, two sink tasks, small
// files (they roll by size between checkpoints too), checkpoints every
// 100 ms on s3://. ${...} come from the environment.
const s3CrashJob = `
SET 'pipeline.name' = 's3crash';
SET 'execution.checkpointing.interval' = '100ms';
SET 'execution.checkpointing.dir' = '${BASE}/checkpoints';
SET 's3.endpoint' = '${STREAMSQL_S3_ENDPOINT}';
SET 's3.access-key' = '${STREAMSQL_S3_ACCESS_KEY}';
SET 's3.secret-key' = '${STREAMSQL_S3_SECRET_KEY}';
CREATE TABLE src (id BIGINT, bucket INT) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BROKER}',
  'scan.startup.mode' = 'earliest-offset', 'format' = 'json');
CREATE TABLE out (id BIGINT, bucket INT) PARTITIONED BY (bucket) WITH (
  'connector' = 'filesystem', 'path' = '${BASE}/out', 'format' = 'json',
  'sink.parallelism' = '2', 'sink.rolling-policy.file-size' = '4kb');
INSERT INTO out SELECT id, bucket FROM src;
`

// s3CrashChild runs the job until it is killed, or stopped by SIGTERM
// (a graceful stop with a final checkpoint: exit 0).
func s3CrashChild() int {
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 3
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	set := map[string]string{"restart-strategy.type": "none"}
	if os.Getenv(s3CrashRestartEnv) != "" {
		set = map[string]string{"restart-strategy.type": "fixed-delay", "restart-strategy.fixed-delay.attempts": "1000",
			"restart-strategy.fixed-delay.delay": "500ms", "execution.checkpointing.tolerable-failed-checkpoints": "5"}
	}
	vars := map[string]string{"BASE": os.Getenv(s3CrashBaseEnv), "TOPIC": os.Getenv(s3CrashTopicEnv), "BROKER": os.Getenv(s3CrashBrokerEnv)}
	j, err := job.Compile(ctx, "s3crash.sql", s3CrashJob, job.Options{Registry: job.NewRegistry(), Vars: vars, Env: os.LookupEnv,
		Set: set, Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		return fail(err)
	}
	if err := j.Run(ctx); err != nil {
		return fail(err)
	}
	return 0
}

// s3CrashRig is one S3 crash test's input and output.
type s3CrashRig struct {
	srv    s3test.Server
	broker kafkatest.Broker
	topic  string
	base   s3fs.Location
	cl     *kgo.Client
	next   int // the next id to produce
}

func newS3CrashRig(t *testing.T, srv s3test.Server) *s3CrashRig {
	b := kafkatest.Require(t)
	topic := b.Topic(t, 3)
	return &s3CrashRig{srv: srv, broker: b, topic: topic, base: srv.Prefix(t), cl: b.Client(t)}
}

// produce appends n records (ids next..next+n-1, bucket id%3).
func (r *s3CrashRig) produce(t *testing.T, n int) {
	t.Helper()
	for range n {
		v := fmt.Appendf(nil, `{"id":%d,"bucket":%d}`, r.next, r.next%3)
		r.cl.Produce(context.Background(), &kgo.Record{Topic: r.topic, Value: v}, nil)
		r.next++
	}
	if err := r.cl.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func (r *s3CrashRig) spec(restart bool) crashtest.Spec {
	env := []string{s3CrashBrokerEnv + "=" + r.broker.Addr, s3CrashTopicEnv + "=" + r.topic, s3CrashBaseEnv + "=" + r.base.String(),
		s3test.EnvEndpoint + "=" + r.srv.Endpoint, s3test.EnvAccessKey + "=" + r.srv.AccessKey, s3test.EnvSecretKey + "=" + r.srv.SecretKey}
	if restart {
		env = append(env, s3CrashRestartEnv+"=1")
	}
	return crashtest.Spec{Role: "s3crash", Env: env}
}

// committed reads every committed object under out/ with the AWS SDK's
// own client (not the connector's source) and counts each id.
func (r *s3CrashRig) committed(t *testing.T) map[int]int {
	t.Helper()
	api := r.srv.API(t)
	ctx := context.Background()
	seen := map[int]int{}
	p := s3.NewListObjectsV2Paginator(api, &s3.ListObjectsV2Input{Bucket: aws.String(r.base.Bucket), Prefix: aws.String(r.base.Key("out/"))})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range page.Contents {
			obj, err := api.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(r.base.Bucket), Key: o.Key})
			if err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(obj.Body)
			obj.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			dir := strings.TrimPrefix(aws.ToString(o.Key), r.base.Key("out/"))
			for line := range bytes.Lines(data) {
				var rec struct {
					ID int `json:"id"`
				}
				if err := json.Unmarshal(line, &rec); err != nil {
					t.Fatalf("%s: %q: %v", aws.ToString(o.Key), line, err)
				}
				if want := "bucket=" + strconv.Itoa(rec.ID%3) + "/"; !strings.HasPrefix(dir, want) {
					t.Fatalf("record %d in %s, want it under %s", rec.ID, aws.ToString(o.Key), want)
				}
				seen[rec.ID]++
			}
		}
	}
	return seen
}

// latestCheckpoint returns the highest checkpoint id under checkpoints/
// (0 when there is none), listed with the AWS SDK's own client.
func (r *s3CrashRig) latestCheckpoint(t *testing.T) int64 {
	t.Helper()
	api := r.srv.API(t)
	var latest int64
	p := s3.NewListObjectsV2Paginator(api, &s3.ListObjectsV2Input{Bucket: aws.String(r.base.Bucket), Prefix: aws.String(r.base.Key("checkpoints/"))})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range page.Contents {
			if m := checkpointKey.FindStringSubmatch(aws.ToString(o.Key)); m != nil {
				id, err := strconv.ParseInt(m[1], 10, 64)
				if err != nil {
					t.Fatalf("%s: %v", aws.ToString(o.Key), err)
				}
				latest = max(latest, id)
			}
		}
	}
	return latest
}

// checkpointKey matches a checkpoint's metadata object (chk-<id>.json or
// its revision chk-<id>.r<n>.json); group 1 is the id.
var checkpointKey = regexp.MustCompile(`/chk-(\d+)(?:\.r\d+)?\.json$`)

// finish runs the job without kills until every produced record is
// committed and the run has completed a checkpoint of its own, stops it
// gracefully, and checks that every record was committed exactly once and
// that no multipart upload is left.
//
// The run's own checkpoint is what makes the graceful stop a stop of a
// running job: when every record is committed already (a previous run
// stopped gracefully), SIGTERM would otherwise reach the child while it
// starts, before it handles the signal, and kill it.
func (r *s3CrashRig) finish(t *testing.T) {
	t.Helper()
	before := r.latestCheckpoint(t)
	c := crashtest.Start(t, r.spec(false))
	const within = 90 * time.Second
	deadline := time.Now().Add(within)
	for len(r.committed(t)) < r.next || r.latestCheckpoint(t) <= before {
		if time.Now().After(deadline) {
			t.Fatalf("the final run, after %v: %d of %d records committed, newest checkpoint %d (%d before the run); job stderr:\n%s",
				within, len(r.committed(t)), r.next, r.latestCheckpoint(t), before, c.Stderr())
		}
		select {
		case <-c.Done():
			_, err := c.Wait()
			t.Fatalf("the final run ended by itself: %v", err)
		case <-time.After(300 * time.Millisecond):
		}
	}
	c.Signal(syscall.SIGTERM)
	if killed, err := c.Wait(); killed || err != nil {
		t.Fatalf("the final run's graceful stop: killed %v, %v", killed, err)
	}
	seen := r.committed(t)
	var bad []string
	for id := range r.next {
		if n := seen[id]; n != 1 {
			bad = append(bad, fmt.Sprintf("%d×%d", id, n))
		}
	}
	if len(bad) > 0 || len(seen) != r.next {
		t.Fatalf("%d ids committed, want each of %d once; id×count: %s", len(seen), r.next, strings.Join(bad[:min(20, len(bad))], " "))
	}
	ups, err := r.srv.Client(t).ListUploads(context.Background(), r.base.Bucket, r.base.Key("out/"))
	if err != nil || len(ups) != 0 {
		t.Fatalf("multipart uploads left after the final run: %d, %v", len(ups), err)
	}
	t.Logf("%d records committed exactly once", r.next)
}

// TestS3CrashAtRandomTimes SIGKILLs the Kafka → s3:// job, with its
// checkpoints on s3://, at random times (20 kills; 100 with
// STREAMSQL_SOAK=1) while input keeps arriving (about 1,000 records a
// second, so that kills find uploads in flight and commits pending), then
// runs it to the end and reads the committed objects back: 0 lost, 0
// duplicated.
func TestS3CrashAtRandomTimes(t *testing.T) {
	srv := s3test.Require(t)
	r := newS3CrashRig(t, srv)
	kills := 20
	if os.Getenv("STREAMSQL_SOAK") == "1" {
		kills = 100
	}
	rnd := crashtest.Rand(t, 31)
	stop := r.produceInBackground(t)
	killed := 0
	for round := range kills {
		// Kill times from the child's start: from start-up and recovery
		// (the lock, restoring, completing the pending uploads) to well
		// into its checkpoints.
		after := time.Duration(50+rnd.IntN(1450)) * time.Millisecond
		if crashtest.Run(t, r.spec(false), after) {
			killed++
		} else {
			t.Fatalf("round %d: the job ended by itself", round)
		}
	}
	stop()
	// The kills must hit a job at work, not only at start-up. On a
	// loaded machine (CI under the race detector beside other packages'
	// tests) start-up takes longer and the kills above may all land before
	// the first commit: more kills follow, later in each run (the input
	// produced so far is still to read), until a quarter of it is
	// committed, or kills more rounds.
	for extra := 0; extra < kills && len(r.committed(t)) < r.next/4; extra++ {
		after := time.Duration(1000+rnd.IntN(4000)) * time.Millisecond
		if !crashtest.Run(t, r.spec(false), after) {
			t.Fatalf("late round %d: the job ended by itself", extra)
		}
		killed++
	}
	before := len(r.committed(t))
	t.Logf("%d kills; %d of %d records committed by the killed runs", killed, before, r.next)
	if before < r.next/4 {
		t.Fatalf("the killed runs committed only %d of %d records: the kills did not hit a working job", before, r.next)
	}
	r.finish(t)
}

// produceInBackground produces 20 records every 20 ms until the returned
// function is called; it returns when the producer has stopped.
func (r *s3CrashRig) produceInBackground(t *testing.T) (stop func()) {
	t.Helper()
	done, stopped := make(chan struct{}), make(chan error, 1)
	go func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				stopped <- r.cl.Flush(context.Background())
				return
			case <-tick.C:
			}
			for range 20 {
				v := fmt.Appendf(nil, `{"id":%d,"bucket":%d}`, r.next, r.next%3)
				r.cl.Produce(context.Background(), &kgo.Record{Topic: r.topic, Value: v}, nil)
				r.next++
			}
		}
	}()
	return func() {
		close(done)
		if err := <-stopped; err != nil {
			t.Fatal(err)
		}
	}
}

// TestS3ServerRestartMidRun kills the object store itself while the job
// writes (a server of the test's own, SIGKILLed and restarted on its data
// and ports), while input keeps coming: checkpoints fail, the job fails
// over and restarts in its process until the store answers again, and
// every record is committed exactly once.
func TestS3ServerRestartMidRun(t *testing.T) {
	own := s3test.Start(t)
	r := newS3CrashRig(t, own.Server)
	r.produce(t, 300)
	c := crashtest.Start(t, r.spec(true))
	waitCommitted := func(n int, within time.Duration) {
		t.Helper()
		deadline := time.Now().Add(within)
		for len(r.committed(t)) < n {
			if time.Now().After(deadline) {
				t.Fatalf("%d of %d records committed after %v; job stderr:\n%s", len(r.committed(t)), n, within, c.Stderr())
			}
			select {
			case <-c.Done():
				_, err := c.Wait()
				t.Fatalf("the job ended: %v", err)
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	waitCommitted(r.next, 60*time.Second)
	r.produce(t, 300)
	time.Sleep(150 * time.Millisecond) // into the next checkpoints' uploads
	own.Kill(t)
	down := time.Now()
	r.produce(t, 300) // the job reads on while the store is down
	time.Sleep(2 * time.Second)
	own.Restart(t)
	t.Logf("the store was down for %v", time.Since(down).Round(time.Millisecond))
	r.produce(t, 300)
	waitCommitted(r.next, 2*time.Minute)
	// The outage reached the job: checkpoints failed (and, past the
	// tolerated failures, the job failed over).
	if log := c.Stderr(); !strings.Contains(log, "checkpoint failed") && !strings.Contains(log, "job failed; restarting") {
		t.Fatalf("the job's log shows no failed checkpoint or restart while the store was down:\n%s", log)
	}
	c.Signal(syscall.SIGTERM)
	if killed, err := c.Wait(); killed || err != nil {
		t.Fatalf("graceful stop: killed %v, %v", killed, err)
	}
	r.finish(t)
}
