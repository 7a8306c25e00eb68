package jdbc_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/jdbc"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/internal/testrig/dbtest"
	"github.com/streamsql/streamsql/types"
)

// TestOptionErrors checks that bad options get errors naming the option
// and what is supported, and that the password never shows.
func TestOptionErrors(t *testing.T) {
	base := map[string]string{"connector": "jdbc", "url": "jdbc:postgresql://db:5432/shop", "table-name": "orders",
		"password": "hunter2-secret"}
	cases := []struct {
		set  map[string]string
		want []string
	}{
		{map[string]string{"url": "jdbc:oracle:thin:@db:1521/x"}, []string{"url", "jdbc:oracle", "supported: jdbc:postgresql, jdbc:mysql, jdbc:mariadb"}},
		// The scheme is named (it is no secret) but nothing after it: an
		// Oracle URL may hold user/password.
		{map[string]string{"url": "jdbc:sqlite:/tmp/x.db"}, []string{"url scheme 'jdbc:sqlite' is not supported"}},
		{map[string]string{"url": "jdbc:oracle:thin:scott/hunter2-secret@db:1521/x"}, []string{"url scheme 'jdbc:oracle' is not supported"}},
		{map[string]string{"url": "postgresql://db/x"}, []string{"url must start with jdbc:"}},
		{map[string]string{"url": "jdbc:postgresql://db"}, []string{"must name one database"}},
		{map[string]string{"url": "jdbc:postgresql://u:hunter2-secret@db/x"}, []string{"must not hold credentials"}},
		{map[string]string{"url": "jdbc:mysql://db/x?useSSL=false"}, []string{"useSSL not supported yet", "supported: tls"}},
		{map[string]string{"driver": "com.mysql.cj.jdbc.Driver"}, []string{"driver 'com.mysql.cj.jdbc.Driver' does not match", "org.postgresql.Driver"}},
		{map[string]string{"lookup.cache": "PARTIAL"}, []string{"'lookup.cache' = 'PARTIAL' needs 'lookup.partial-cache.max-rows'"}},
		{map[string]string{"lookup.cache": "FULL"}, []string{"'FULL' is not supported yet"}},
		{map[string]string{"lookup.cache.max-rows": "10"}, []string{"lookup.cache.max-rows is not supported yet", "lookup.partial-cache.max-rows"}},
		{map[string]string{"lookup.max-retries": "-1"}, []string{"lookup.max-retries is negative"}},
		{map[string]string{"scan.partition.column": "id"}, []string{"set all four scan.partition options"}},
		{map[string]string{"sink.delivery-guarantee": "none"}, []string{"sink.delivery-guarantee", "exactly-once"}},
		{map[string]string{"sink.parallelism": "0"}, []string{"sink.parallelism is 0"}},
	}
	for _, c := range cases {
		opts := map[string]string{}
		for k, v := range base {
			opts[k] = v
		}
		for k, v := range c.set {
			opts[k] = v
		}
		_, err := factory.Default.Validate(factory.Table{Name: "cat.db.t", Options: opts,
			Schema: factory.Schema{Columns: []factory.Column{{Name: "id", Type: types.BigInt()}}}})
		if err == nil {
			t.Errorf("%v: no error", c.set)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: error %q does not contain %q", c.set, err, w)
			}
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%v: error shows the password: %v", c.set, err)
		}
	}
	// Accepted: a matching driver, MariaDB's scheme, all partition options.
	for _, set := range []map[string]string{
		{"driver": "org.postgresql.Driver"},
		{"url": "jdbc:mariadb://db/x", "driver": "org.mariadb.jdbc.Driver"},
		{"url": "jdbc:postgresql://db/x?sslmode=disable&application_name=a", "scan.partition.column": "id", "scan.partition.num": "4",
			"scan.partition.lower-bound": "1", "scan.partition.upper-bound": "100", "sink.delivery-guarantee": "exactly-once"},
	} {
		opts := map[string]string{}
		for k, v := range base {
			opts[k] = v
		}
		for k, v := range set {
			opts[k] = v
		}
		if _, err := factory.Default.Validate(factory.Table{Name: "cat.db.t", Options: opts}); err != nil {
			t.Errorf("%v: %v", set, err)
		}
	}
}

// TestDescribe checks the traits the planner sees: the delivery guarantee,
// the prepared-transaction prefix claimed exclusively, and that it
// differs between jobs.
func TestDescribe(t *testing.T) {
	tbl := func(job, delivery string) factory.Table {
		return factory.Table{Name: "cat.db.t", Job: factory.JobContext{Name: job}, Options: map[string]string{"connector": "jdbc",
			"url": "jdbc:postgresql://db/x", "table-name": "orders", "sink.delivery-guarantee": delivery, "sink.parallelism": "3"},
			Schema: factory.Schema{Columns: []factory.Column{{Name: "id", Type: types.BigInt()}}, PrimaryKey: []string{"id"}}}
	}
	describe := func(tb factory.Table) factory.TableInfo {
		v, err := factory.Default.Validate(tb)
		if err != nil {
			t.Fatal(err)
		}
		info, err := v.Describe(factory.AsSink)
		if err != nil {
			t.Fatal(err)
		}
		return info
	}
	alo := describe(tbl("j1", "at-least-once"))
	if alo.Delivery != factory.AtLeastOnce || len(alo.Exclusive) != 0 || alo.Parallelism != 3 {
		t.Errorf("at-least-once: %+v", alo)
	}
	eo1, eo2 := describe(tbl("j1", "exactly-once")), describe(tbl("j2", "exactly-once"))
	if eo1.Delivery != factory.ExactlyOnce || len(eo1.Exclusive) != 1 {
		t.Fatalf("exactly-once: %+v", eo1)
	}
	if !strings.Contains(eo1.Exclusive[0].Key, jdbc.GIDPrefix("j1", "cat.db.t")) || eo1.Exclusive[0].Key == eo2.Exclusive[0].Key {
		t.Errorf("exclusive keys %q and %q: want the job's prefix, different per job", eo1.Exclusive[0].Key, eo2.Exclusive[0].Key)
	}
	if got := fmt.Sprint(eo1.Summary); !strings.Contains(got, "upsert by PRIMARY KEY (id)") {
		t.Errorf("summary %s", got)
	}
}

// TestSchemaMismatch checks that the sink checks the target table's
// columns at start, with an error naming the column and both types.
func TestSchemaMismatch(t *testing.T) {
	for _, srv := range dbtest.All(t) {
		t.Run(srv.Name, func(t *testing.T) {
			db := srv.Open(t)
			name := createTable(t, srv, db, true)
			tbl := jdbcTable(srv, name, true)
			tbl.Schema.Columns = []factory.Column{{Name: "id", Type: types.BigInt()}, {Name: "name", Type: types.Date()},
				{Name: "missing", Type: types.Int()}}
			sink, _, err := factory.Default.CreateSink(context.Background(), tbl)
			if err != nil {
				t.Fatal(err)
			}
			_, err = sink.Open(context.Background(), connector.TaskInfo{Job: "j"})
			if err == nil {
				t.Fatal("Open succeeded against a table of other types")
			}
			for _, w := range []string{"column name: Flink type DATE does not map to", "column missing of the Flink table has no column"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if !errors.Is(err, jdbc.ErrSchema) {
				t.Errorf("error does not wrap ErrSchema: %v", err)
			}
			if strings.Contains(err.Error(), srv.Password) {
				t.Errorf("error shows the password: %v", err)
			}
		})
	}
}
