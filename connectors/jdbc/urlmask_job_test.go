package jdbc_test

import (
	"context"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/job"
)

// TestUnsupportedSchemeErrorNamesScheme: a job with an unsupported jdbc
// URL gets an error naming the scheme (no secret) while the rest of the
// URL, which may hold credentials, shows nowhere. The job's masking of
// the sensitive 'url' value used to hide the scheme as '******'.
func TestUnsupportedSchemeErrorNamesScheme(t *testing.T) {
	for _, url := range []string{"jdbc:sqlite:/tmp/x.db", "jdbc:oracle:thin:scott/hunter2-secret@db:1521/x"} {
		text := `CREATE TABLE src (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 't', 'properties.bootstrap.servers' = '127.0.0.1:1', 'format' = 'json');
CREATE TABLE snk (id BIGINT) WITH ('connector' = 'jdbc', 'url' = '` + url + `', 'table-name' = 't');
INSERT INTO snk SELECT id FROM src;
`
		_, err := job.Compile(context.Background(), "scheme.sql", text, job.Options{Registry: job.NewRegistry()})
		scheme := url[:strings.Index(url[5:], ":")+5]
		if err == nil || !strings.Contains(err.Error(), "url scheme '"+scheme+"' is not supported") {
			t.Fatalf("url %s: error %v; want it to name the scheme %s", url, err, scheme)
		}
		if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "/tmp/x.db") {
			t.Fatalf("url %s: error shows more of the URL than its scheme: %v", url, err)
		}
	}
}
