package filesystem_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connector/connectortest"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/internal/s3fs"
	"github.com/streamsql/streamsql/internal/s3fs/s3client"
	"github.com/streamsql/streamsql/internal/testrig/s3test"
	"github.com/streamsql/streamsql/types"
)

// conformanceTable is a filesystem table of connectortest.Fields at dir.
func conformanceTable(dir, format string) factory.Table {
	return factory.Table{Name: "cat.db.files", Schema: factory.PhysicalSchema(connectortest.Fields()),
		Options: map[string]string{"connector": "filesystem", "path": dir, "format": format}}
}

// encodeRow writes a row of connectortest.Fields in format, as an
// independent writer of input files would.
func encodeRow(format string, r types.Row) string {
	id, name := r.Fields[0].Int64(), r.Fields[1].Str()
	if format == "json" {
		return fmt.Sprintf("{\"id\":%d,\"name\":%q}\n", id, name)
	}
	return fmt.Sprintf("%d,%s\n", id, name)
}

// fileInput spreads rows over three files (and an empty one) under a new
// directory.
func fileInput(format string) func(t testing.TB, rows []types.Row) func() (connector.Source, error) {
	return func(t testing.TB, rows []types.Row) func() (connector.Source, error) {
		dir := t.TempDir()
		files := make([]strings.Builder, 3)
		for i, r := range rows {
			files[i%3].WriteString(encodeRow(format, r))
		}
		for i := range files {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("in-%d.%s", i, format)), []byte(files[i].String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "empty."+format), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		tbl := conformanceTable(dir, format)
		return func() (connector.Source, error) {
			src, _, err := factory.Default.CreateSource(context.Background(), tbl)
			return src, err
		}
	}
}

// committedFiles reads the csv part files a reader of dir sees (not the
// hidden in-progress ones) with encoding/csv, independently of the
// connector's source.
func committedFiles(t testing.TB, dir string) []types.Row {
	t.Helper()
	var out []types.Row
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		recs, err := csv.NewReader(f).ReadAll()
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for _, rec := range recs {
			id, err := strconv.ParseInt(rec[0], 10, 64)
			if err != nil || len(rec) != 2 {
				return fmt.Errorf("%s: bad record %q", path, rec)
			}
			out = append(out, types.Row{Fields: []types.Value{types.Int64(id), types.Str(rec[1])}})
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading committed files: %v", err)
	}
	return out
}

// TestConformance runs the connector conformance suite on the filesystem
// source (csv and json files) and sink.
func TestConformance(t *testing.T) {
	for _, format := range []string{"csv", "json"} {
		t.Run("source-"+format, func(t *testing.T) {
			connectortest.RunSource(t, connectortest.SourceHarness{Input: fileInput(format), N: 1000})
		})
	}
	t.Run("sink", func(t *testing.T) {
		connectortest.RunSink(t, connectortest.SinkHarness{
			New: func(t testing.TB) connectortest.SinkFixture {
				dir := filepath.Join(t.TempDir(), "out")
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				tbl := conformanceTable(dir, "csv")
				return connectortest.SinkFixture{
					NewSink: func() (connector.Sink, error) {
						sink, _, err := factory.Default.CreateSink(context.Background(), tbl)
						return sink, err
					},
					Committed: func(t testing.TB, _ int) []types.Row { return committedFiles(t, dir) },
					// The directory becomes a file: no part file can be
					// created in it.
					Break: func(t testing.TB) {
						if err := os.RemoveAll(dir); err != nil {
							t.Fatal(err)
						}
						if err := os.WriteFile(dir, nil, 0o644); err != nil {
							t.Fatal(err)
						}
					},
				}
			},
		})
	})
}

// TestS3Conformance runs the conformance suite on object storage: the
// source reads csv and json objects, the sink writes multipart uploads
// read back with the S3 SDK's own listing and reads. Break cuts the sink
// off the server (a proxy in between).
func TestS3Conformance(t *testing.T) {
	srv := s3test.Require(t)
	s3Table := func(loc s3fs.Location, cfg s3fs.Config, format string) factory.Table {
		tbl := conformanceTable(loc.String(), format)
		tbl.Job = factory.JobContext{S3: cfg}
		return tbl
	}
	for _, format := range []string{"csv", "json"} {
		t.Run("source-"+format, func(t *testing.T) {
			connectortest.RunSource(t, connectortest.SourceHarness{N: 300, Input: func(t testing.TB, rows []types.Row) func() (connector.Source, error) {
				loc := srv.Prefix(t)
				files := make([]strings.Builder, 3)
				for i, r := range rows {
					files[i%3].WriteString(encodeRow(format, r))
				}
				c := srv.Client(t)
				for i := range files {
					if _, err := c.Put(context.Background(), loc.Bucket, loc.Key(fmt.Sprintf("in-%d.%s", i, format)), []byte(files[i].String()), s3client.Cond{}); err != nil {
						t.Fatal(err)
					}
				}
				tbl := s3Table(loc, srv.Config(), format)
				return func() (connector.Source, error) {
					src, _, err := factory.Default.CreateSource(context.Background(), tbl)
					return src, err
				}
			}})
		})
	}
	t.Run("sink", func(t *testing.T) {
		connectortest.RunSink(t, connectortest.SinkHarness{
			New: func(t testing.TB) connectortest.SinkFixture {
				p := s3test.NewProxy(t, srv)
				loc := srv.Prefix(t)
				tbl := s3Table(loc, p.Config(), "csv")
				return connectortest.SinkFixture{
					NewSink: func() (connector.Sink, error) {
						sink, _, err := factory.Default.CreateSink(context.Background(), tbl)
						return sink, err
					},
					Committed: func(t testing.TB, _ int) []types.Row { return committedObjects(t, srv, loc) },
					Break:     func(testing.TB) { p.Break() },
				}
			},
		})
	})
}

// committedObjects reads the csv objects under loc with the AWS SDK's
// client and encoding/csv, independently of the connector.
func committedObjects(t testing.TB, srv s3test.Server, loc s3fs.Location) []types.Row {
	t.Helper()
	api := srv.API(t)
	list, err := api.ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String(loc.Bucket), Prefix: aws.String(loc.Dir())})
	if err != nil {
		t.Fatal(err)
	}
	var out []types.Row
	for _, o := range list.Contents {
		obj, err := api.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(loc.Bucket), Key: o.Key})
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(obj.Body).ReadAll()
		obj.Body.Close()
		if err != nil {
			t.Fatalf("%s: %v", aws.ToString(o.Key), err)
		}
		for _, rec := range recs {
			id, err := strconv.ParseInt(rec[0], 10, 64)
			if err != nil || len(rec) != 2 {
				t.Fatalf("%s: bad record %q", aws.ToString(o.Key), rec)
			}
			out = append(out, types.Row{Fields: []types.Value{types.Int64(id), types.Str(rec[1])}})
		}
	}
	return out
}
