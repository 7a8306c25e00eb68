package examples_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/internal/s3fs"
	"github.com/streamsql/streamsql/internal/testrig/dbtest"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/internal/testrig/s3test"
	"github.com/streamsql/streamsql/internal/testrig/srtest"
	"github.com/streamsql/streamsql/job"
)

// runCase is the bounded variant of one example: the hints that bound it
// and point it at a topic or directory of its own, the pipelines to run in
// order (each phase is a run of the job with only those pipelines), and
// how its output is collected as lines.
type runCase struct {
	// kafka is set for the examples that need the real broker; the
	// others run in every `go test`.
	kafka bool
	// setup prepares the case (topics, input records) and returns the
	// hints and the topics the job writes.
	setup func(t *testing.T, b kafkatest.Broker, dir string) (map[string]map[string]string, []string)
	// phases lists the pipelines of each run, in order.
	phases [][]string
	// collect returns the output lines; printed is what the job's bare
	// SELECTs printed.
	collect func(t *testing.T, b kafkatest.Broker, dir, printed string) []string
	// stdout is set when the job prints with the print connector, which
	// writes to the process's standard output: the test captures it.
	stdout bool
	// sort is set when the output's order is not deterministic (several
	// sources into one sink, several files); otherwise the lines are
	// compared in the order they came (one partition, read in order).
	sort bool
	// db names the database server the example writes ("postgresql" or
	// "mariadb", see internal/testrig/dbtest): its URL and credentials are passed
	// as the variables PG_* or MYSQL_*.
	db string
	// s3 is set for the examples that need the S3 server (see
	// internal/testrig/s3test): its endpoint and credentials are passed as
	// the variables S3_ENDPOINT, S3_ACCESS_KEY and S3_SECRET_KEY, and a
	// location of the test's own as S3_BASE (also in dir/s3-base).
	s3 bool
}

// bounded are the hints that make a Kafka table's reads stop at the
// topic's latest offset when the reading run starts (after the writing run
// committed everything), on a topic of the test's own.
func boundedKafka(topic string) map[string]string {
	return map[string]string{
		"topic":                        topic,
		"scan.bounded.mode":            "latest-offset",
		"sink.transactional-id-prefix": topic,
	}
}

func printedLines(_ *testing.T, _ kafkatest.Broker, _, printed string) []string {
	return lines(printed)
}

var runCases = map[string]runCase{
	"quickstart": {
		kafka: true,
		setup: func(t *testing.T, b kafkatest.Broker, _ string) (map[string]map[string]string, []string) {
			topic := b.Topic(t, 1)
			return map[string]map[string]string{
				"orders_gen": {"number-of-rows": "10", "rows-per-second": "0"},
				"orders":     boundedKafka(topic),
			}, []string{topic}
		},
		phases:  [][]string{{"orders"}, {"print"}},
		collect: printedLines,
	},
	"isolation_levels": {
		kafka: true,
		setup: func(t *testing.T, b kafkatest.Broker, _ string) (map[string]map[string]string, []string) {
			topic := b.Topic(t, 1)
			reader := map[string]string{"topic": topic, "scan.bounded.mode": "latest-offset"}
			return map[string]map[string]string{
				"gen":                {"number-of-rows": "6", "rows-per-second": "0"},
				"events":             {"topic": topic, "sink.transactional-id-prefix": topic},
				"events_uncommitted": reader,
				"events_committed":   reader,
			}, []string{topic}
		},
		phases:  [][]string{{"events"}, {"print"}},
		collect: printedLines,
		sort:    true,
	},
	"upsert_low_latency": {
		kafka: true,
		setup: func(t *testing.T, b kafkatest.Broker, _ string) (map[string]map[string]string, []string) {
			topic := b.Topic(t, 1)
			return map[string]map[string]string{
				"readings":      {"number-of-rows": "12", "rows-per-second": "0"},
				"sensor_latest": {"topic": topic, "scan.bounded.mode": "latest-offset"},
			}, []string{topic}
		},
		phases:  [][]string{{"sensor_latest"}, {"print"}},
		collect: printedLines,
	},
	"filesystem_2pc": {
		setup: func(*testing.T, kafkatest.Broker, string) (map[string]map[string]string, []string) {
			return map[string]map[string]string{"gen": {"number-of-rows": "8", "rows-per-second": "0"}}, nil
		},
		phases:  [][]string{{"files"}},
		collect: committedFiles,
		sort:    true,
	},
	"filesystem_bad_records": {
		setup: func(t *testing.T, _ kafkatest.Broker, _ string) (map[string]map[string]string, []string) {
			in, err := filepath.Abs(filepath.Join("data", "payments"))
			if err != nil {
				t.Fatal(err)
			}
			return map[string]map[string]string{"payments": {"path": in}}, nil
		},
		phases:  [][]string{{"valid_payments"}},
		collect: committedFiles,
		sort:    true,
	},
	"page_views_uv": {
		setup: func(t *testing.T, _ kafkatest.Broker, _ string) (map[string]map[string]string, []string) {
			in, err := filepath.Abs(filepath.Join("data", "page_views"))
			if err != nil {
				t.Fatal(err)
			}
			// The table is analytics.page_views (the file's USE).
			return map[string]map[string]string{"analytics.page_views": {"path": in}}, nil
		},
		phases:  [][]string{nil},
		stdout:  true,
		collect: printedLines,
		sort:    true,
	},
	"datagen_print_blackhole": {
		setup: func(*testing.T, kafkatest.Broker, string) (map[string]map[string]string, []string) {
			return map[string]map[string]string{"users": {"rows-per-second": "0"}}, nil
		},
		phases:  [][]string{nil},
		stdout:  true,
		collect: printedLines,
	},
	"nexmark_q0": {
		setup: func(*testing.T, kafkatest.Broker, string) (map[string]map[string]string, []string) {
			return nil, nil
		},
		phases:  [][]string{nil},
		stdout:  true,
		collect: printedLines,
	},
	"peek": {
		kafka: true,
		setup: func(t *testing.T, b kafkatest.Broker, _ string) (map[string]map[string]string, []string) {
			topic := b.Topic(t, 1)
			produce(t, b, topic, []string{`{"id":1}`, "plain text", ""})
			return map[string]map[string]string{"topic": {"topic": topic}}, nil
		},
		phases:  [][]string{nil},
		collect: printedLines,
	},
	"dead_letter": {
		kafka: true,
		setup: func(t *testing.T, b kafkatest.Broker, dir string) (map[string]map[string]string, []string) {
			in, out, dlq := b.Topic(t, 1), b.Topic(t, 1), b.Topic(t, 1)
			// One record not JSON, one without an id.
			produce(t, b, in, dataLines(t, "dead_letter/payments.jsonl"))
			if err := os.WriteFile(filepath.Join(dir, "out-topic"), []byte(out), 0o600); err != nil {
				t.Fatal(err)
			}
			return map[string]map[string]string{
				"payments":       {"topic": in, "scan.bounded.mode": "latest-offset", "scan.bad-record.dead-letter.topic": dlq},
				"valid_payments": {"topic": out, "sink.transactional-id-prefix": out},
				"dead_letters":   {"topic": dlq, "scan.bounded.mode": "latest-offset"},
			}, []string{out, dlq}
		},
		phases: [][]string{{"valid_payments"}, {"print"}},
		collect: func(t *testing.T, b kafkatest.Broker, dir, printed string) []string {
			out, err := os.ReadFile(filepath.Join(dir, "out-topic"))
			if err != nil {
				t.Fatal(err)
			}
			return append(readTopic(t, b, string(out)), lines(printed)...)
		},
	},
	"debezium_upsert": {
		kafka: true,
		setup: func(t *testing.T, b kafkatest.Broker, _ string) (map[string]map[string]string, []string) {
			in, out := b.Topic(t, 1), b.Topic(t, 1)
			// The change events the example ships, as Debezium's MySQL
			// connector writes them (without the schema envelope): a
			// snapshot read, a create, an update, a delete and its
			// tombstone (an empty line), and a create with a NULL name.
			produce(t, b, in, dataLines(t, "debezium_upsert/dbserver1.inventory.products.jsonl"))
			return map[string]map[string]string{
				"products_cdc":    {"topic": in, "scan.bounded.mode": "latest-offset"},
				"products_latest": {"topic": out, "scan.bounded.mode": "latest-offset"},
			}, []string{out}
		},
		phases:  [][]string{{"products_latest"}, {"print"}, {"print-2"}},
		collect: printedLines,
	},
	"kafka_to_postgres_upsert": {
		kafka: true,
		db:    "postgresql",
		setup: func(t *testing.T, b kafkatest.Broker, _ string) (map[string]map[string]string, []string) {
			in := b.Topic(t, 1)
			produce(t, b, in, dataLines(t, "kafka_to_postgres_upsert/orders.jsonl"))
			table := dbTable(t, "postgresql", "customer_last_order", "(customer TEXT PRIMARY KEY, id BIGINT, amount NUMERIC(10, 2))")
			return map[string]map[string]string{
				"orders":              {"topic": in, "scan.bounded.mode": "latest-offset"},
				"customer_last_order": {"table-name": table},
			}, nil
		},
		phases:  [][]string{{"customer_last_order"}, {"print"}},
		collect: printedLines,
	},
	"kafka_to_mariadb_exactly_once": {
		kafka: true,
		db:    "mariadb",
		setup: func(t *testing.T, b kafkatest.Broker, _ string) (map[string]map[string]string, []string) {
			in := b.Topic(t, 1)
			produce(t, b, in, dataLines(t, "kafka_to_mariadb_exactly_once/payments.jsonl"))
			table := dbTable(t, "mariadb", "ledger", "(id BIGINT PRIMARY KEY, account VARCHAR(40), amount DECIMAL(10, 2))")
			return map[string]map[string]string{
				"payments": {"topic": in, "scan.bounded.mode": "latest-offset"},
				"ledger":   {"table-name": table},
			}, nil
		},
		phases:  [][]string{{"ledger"}, {"print"}},
		collect: printedLines,
	},
	"kafka_to_s3": {
		kafka: true,
		s3:    true,
		setup: func(t *testing.T, b kafkatest.Broker, _ string) (map[string]map[string]string, []string) {
			in := b.Topic(t, 1)
			produce(t, b, in, dataLines(t, "kafka_to_s3/orders.jsonl"))
			return map[string]map[string]string{"orders": {"topic": in, "scan.bounded.mode": "latest-offset"}}, nil
		},
		phases:  [][]string{{"orders_archive"}},
		collect: committedObjects,
		sort:    true,
	},
	"avro_confluent": {
		kafka: true,
		setup: func(t *testing.T, b kafkatest.Broker, _ string) (map[string]map[string]string, []string) {
			topic := b.Topic(t, 1)
			// The real registry (scripts/test.sh starts Apicurio; with
			// CI=true one must run), else the test registry.
			url := srtest.RealOrTest(t)
			h := boundedKafka(topic)
			h["key.avro-confluent.url"] = url
			h["value.avro-confluent.url"] = url
			return map[string]map[string]string{
				"payments_gen": {"number-of-rows": "6", "rows-per-second": "0"},
				"payments":     h,
			}, []string{topic}
		},
		phases:  [][]string{{"payments"}, {"print"}},
		collect: printedLines,
	},
	"exactly_once": {
		kafka: true,
		setup: func(t *testing.T, b kafkatest.Broker, dir string) (map[string]map[string]string, []string) {
			in, out := b.Topic(t, 1), b.Topic(t, 1)
			// Two orders above 100, one at exactly 100 (left out), one
			// below and one with a NULL amount.
			produce(t, b, in, dataLines(t, "exactly_once/orders.jsonl"))
			if err := os.WriteFile(filepath.Join(dir, "out-topic"), []byte(out), 0o600); err != nil {
				t.Fatal(err)
			}
			return map[string]map[string]string{
				"orders":     {"topic": in, "scan.bounded.mode": "latest-offset", "properties.group.id": in},
				"big_orders": {"topic": out, "sink.transactional-id-prefix": out},
			}, []string{out}
		},
		phases: [][]string{{"big_orders"}},
		collect: func(t *testing.T, b kafkatest.Broker, dir, _ string) []string {
			out, err := os.ReadFile(filepath.Join(dir, "out-topic"))
			if err != nil {
				t.Fatal(err)
			}
			return readTopic(t, b, string(out))
		},
	},
}

// dataLines returns the lines of a file of examples/data: the sample
// input an example ships for a topic it reads (NAME/TOPIC.jsonl, loaded by
// 'streamsql run --embedded-kafka --load' or 'streamsql topic load', as
// the example's comment says), so the tests check what users run.
func dataLines(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("data", name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// dbTable creates a table of the given columns with a unique name in the
// test database server (see internal/testrig/dbtest), dropped when the test ends,
// and returns its name.
func dbTable(t *testing.T, server, prefix, columns string) string {
	t.Helper()
	srv := dbtest.PostgreSQL
	if server == "mariadb" {
		srv = dbtest.MariaDB
	}
	db := srv(t).Open(t)
	name := dbtest.Table(prefix)
	dbtest.Exec(t, db, "CREATE TABLE "+name+" "+columns)
	t.Cleanup(func() { _, _ = db.Exec("DROP TABLE " + name) })
	return name
}

// TestRun runs every example's bounded variant (those using Kafka against
// the real broker, see kafkatest.Require) and compares its output with sql/<name>.expected (-update rewrites the
// files from this run: review them before committing).
func TestRun(t *testing.T) {
	for _, file := range exampleFiles(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".sql")
		t.Run(name, func(t *testing.T) {
			rc, ok := runCases[name]
			if !ok {
				t.Fatalf("%s has no bounded variant in run_test.go: add one", file)
			}
			var b kafkatest.Broker
			if rc.kafka {
				b = kafkatest.Require(t)
			}
			vars := map[string]string{}
			switch rc.db {
			case "postgresql":
				srv := dbtest.PostgreSQL(t)
				vars = map[string]string{"PG_URL": srv.URL, "PG_USER": srv.User, "PG_PASSWORD": srv.Password}
			case "mariadb":
				srv := dbtest.MariaDB(t)
				vars = map[string]string{"MYSQL_URL": srv.URL, "MYSQL_USER": srv.User, "MYSQL_PASSWORD": srv.Password}
			}
			dir := t.TempDir()
			if rc.s3 {
				srv := s3test.Require(t)
				base := srv.Prefix(t).String()
				vars["S3_ENDPOINT"], vars["S3_ACCESS_KEY"], vars["S3_SECRET_KEY"], vars["S3_BASE"] = srv.Endpoint, srv.AccessKey, srv.SecretKey, base
				if err := os.WriteFile(filepath.Join(dir, "s3-base"), []byte(base), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			hints, written := rc.setup(t, b, dir)
			var printed bytes.Buffer
			for i, phase := range rc.phases {
				vars["KAFKA_BOOTSTRAP"] = b.Addr
				vars["OUTPUT_DIR"] = filepath.Join(dir, "out")
				j, err := job.CompileFile(context.Background(), file, job.Options{
					Vars: vars,
					// Below the file's settings: the examples set no
					// folder and would use the default one.
					Defaults:  map[string]string{"execution.checkpointing.dir": filepath.Join(dir, "checkpoints", strconv.Itoa(i))},
					Hints:     hints,
					Pipelines: phase,
					Output:    &printed,
				})
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				if rc.stdout {
					err = captureStdout(t, &printed, func() error { return j.Run(ctx) })
				} else {
					err = j.Run(ctx)
				}
				cancel()
				if err != nil {
					t.Fatalf("running %v: %v", phase, err)
				}
				b.AwaitStable(t, written...)
			}
			got := rc.collect(t, b, dir, printed.String())
			if rc.sort {
				slices.Sort(got)
			}
			compareExpected(t, filepath.Join("sql", name+".expected"), got)
		})
	}
}

func compareExpected(t *testing.T, path string, got []string) {
	t.Helper()
	text := strings.Join(got, "\n") + "\n"
	if *update {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./examples -run TestRun -update writes it; review it)", err)
	}
	if text != string(want) {
		t.Errorf("output differs from %s:\ngot:\n%swant:\n%s", path, text, want)
	}
}

func lines(s string) []string {
	var out []string
	for l := range strings.SplitSeq(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// committedFiles returns the lines of the committed files under dir/out,
// each prefixed with its partition directory, and fails if an in-progress
// file remains.
func committedFiles(t *testing.T, _ kafkatest.Broker, dir, _ string) []string {
	t.Helper()
	root := filepath.Join(dir, "out")
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") {
			return fmt.Errorf("in-progress file left after the job finished: %s", path)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		for _, l := range lines(string(data)) {
			out = append(out, rel+" "+l)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// committedObjects returns the lines of the committed objects under
// S3_BASE/orders (dir/s3-base), read with the S3 SDK's own client, each
// prefixed with its partition folder, and fails if a multipart upload
// remains.
func committedObjects(t *testing.T, _ kafkatest.Broker, dir, _ string) []string {
	t.Helper()
	base, err := os.ReadFile(filepath.Join(dir, "s3-base"))
	if err != nil {
		t.Fatal(err)
	}
	loc, err := s3fs.ParseURI(string(base) + "/orders")
	if err != nil {
		t.Fatal(err)
	}
	srv := s3test.Require(t)
	ctx := context.Background()
	api := srv.API(t)
	list, err := api.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(loc.Bucket), Prefix: aws.String(loc.Dir())})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, o := range list.Contents {
		obj, err := api.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(loc.Bucket), Key: o.Key})
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(obj.Body)
		obj.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		rel := path.Dir(strings.TrimPrefix(aws.ToString(o.Key), loc.Dir()))
		for _, l := range lines(string(data)) {
			out = append(out, rel+" "+l)
		}
	}
	ups, err := api.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: aws.String(loc.Bucket), Prefix: aws.String(loc.Dir())})
	if err != nil || len(ups.Uploads) != 0 {
		t.Fatalf("multipart uploads left after the job finished: %d, %v", len(ups.Uploads), err)
	}
	return out
}

func produce(t *testing.T, b kafkatest.Broker, topic string, values []string) {
	t.Helper()
	cl := b.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, v := range values {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte(v)}).FirstErr(); err != nil {
			t.Fatalf("producing to %s: %v", topic, err)
		}
	}
}

// readTopic reads topic's committed records to its end through a job of
// its own (raw format, bounded), so the values are the exact bytes.
func readTopic(t *testing.T, b kafkatest.Broker, topic string) []string {
	t.Helper()
	var printed bytes.Buffer
	j, err := job.Compile(context.Background(), "read_back.sql", `
CREATE TABLE t (v STRING) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'properties.isolation.level' = 'read_committed', 'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset', 'format' = 'raw'
);
SELECT v FROM t;`, job.Options{Vars: map[string]string{"TOPIC": topic, "KAFKA_BOOTSTRAP": b.Addr}, Output: &printed})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := j.Run(ctx); err != nil {
		t.Fatalf("reading %s back: %v", topic, err)
	}
	return lines(printed.String())
}

// captureStdout runs f with os.Stdout pointing to a temporary file and
// appends what was written there to buf.
func captureStdout(t *testing.T, buf *bytes.Buffer, f func() error) error {
	t.Helper()
	tmp, err := os.CreateTemp(t.TempDir(), "stdout")
	if err != nil {
		t.Fatal(err)
	}
	defer tmp.Close()
	saved := os.Stdout
	os.Stdout = tmp
	err = f()
	os.Stdout = saved
	data, rerr := os.ReadFile(tmp.Name())
	if rerr != nil {
		t.Fatal(rerr)
	}
	buf.Write(data)
	return err
}
