package s3client_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamsql/streamsql/internal/s3fs/s3client"
	"github.com/streamsql/streamsql/internal/testrig/s3test"
)

// TestClient runs every operation against the real server: puts
// (conditional and not), reads from an offset, listing, deletes, and a
// multipart upload that is invisible until completed.
func TestClient(t *testing.T) {
	srv := s3test.Require(t)
	c := srv.Client(t)
	loc := srv.Prefix(t)
	ctx := context.Background()
	b := loc.Bucket

	etag, err := c.Put(ctx, b, loc.Key("a"), []byte("hello world"), s3client.Cond{IfNoneMatch: true})
	if err != nil || etag == "" {
		t.Fatalf("put: %q, %v", etag, err)
	}
	if _, err := c.Put(ctx, b, loc.Key("a"), []byte("again"), s3client.Cond{IfNoneMatch: true}); !errors.Is(err, s3client.ErrPrecondition) {
		t.Fatalf("put If-None-Match of an existing object: %v; want ErrPrecondition", err)
	}
	if _, err := c.Put(ctx, b, loc.Key("a"), []byte("again"), s3client.Cond{IfMatch: `"0123456789abcdef0123456789abcdef"`}); !errors.Is(err, s3client.ErrPrecondition) {
		t.Fatalf("put If-Match of another ETag: %v; want ErrPrecondition", err)
	}
	etag2, err := c.Put(ctx, b, loc.Key("a"), []byte("hello again"), s3client.Cond{IfMatch: etag})
	if err != nil || etag2 == etag {
		t.Fatalf("put If-Match of the current ETag: %q, %v", etag2, err)
	}
	data, got, err := c.GetAll(ctx, b, loc.Key("a"))
	if err != nil || string(data) != "hello again" || got != etag2 {
		t.Fatalf("get all: %q %q %v", data, got, err)
	}
	rc, err := c.Get(ctx, b, loc.Key("a"), 6)
	if err != nil {
		t.Fatal(err)
	}
	rest, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || string(rest) != "again" {
		t.Fatalf("get from offset 6: %q, %v", rest, err)
	}
	rc, err = c.Get(ctx, b, loc.Key("a"), int64(len("hello again")))
	if err != nil {
		t.Fatalf("get from the end: %v", err)
	}
	if rest, _ := io.ReadAll(rc); len(rest) != 0 {
		t.Fatalf("get from the end read %q", rest)
	}
	rc.Close()
	if _, err := c.Get(ctx, b, loc.Key("missing"), 0); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("get of a missing object: %v; want fs.ErrNotExist", err)
	}
	if _, err := c.Head(ctx, b, loc.Key("missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("head of a missing object: %v; want fs.ErrNotExist", err)
	}
	if obj, err := c.Head(ctx, b, loc.Key("a")); err != nil || obj.Size != 11 || obj.ETag != etag2 {
		t.Fatalf("head: %+v, %v", obj, err)
	}

	// A multipart upload: parts, invisible until completed.
	key := loc.Key("dir/multi")
	id, err := c.CreateUpload(ctx, b, key)
	if err != nil {
		t.Fatal(err)
	}
	part1 := bytes.Repeat([]byte("x"), s3client.MinPartSize)
	p1, err := c.UploadPart(ctx, b, key, id, 1, part1)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := c.UploadPart(ctx, b, key, id, 2, []byte("tail"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Head(ctx, b, key); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("an uncompleted upload is visible: %v", err)
	}
	ups, err := c.ListUploads(ctx, b, loc.Dir())
	if err != nil || len(ups) != 1 || ups[0].ID != id || ups[0].Key != key {
		t.Fatalf("list uploads: %+v, %v", ups, err)
	}
	if err := c.CompleteUpload(ctx, b, key, id, []s3client.Part{p1, p2}); err != nil {
		t.Fatal(err)
	}
	if obj, err := c.Head(ctx, b, key); err != nil || obj.Size != int64(len(part1))+4 {
		t.Fatalf("completed upload: %+v, %v", obj, err)
	}
	// Completing again: S3 answers NoSuchUpload, or (SeaweedFS, and AWS
	// for a while after the completion) success; the object stays whole.
	if err := c.CompleteUpload(ctx, b, key, id, []s3client.Part{p1, p2}); err != nil && !errors.Is(err, s3client.ErrNoSuchUpload) {
		t.Fatalf("completing a completed upload: %v; want success or ErrNoSuchUpload", err)
	}
	if obj, err := c.Head(ctx, b, key); err != nil || obj.Size != int64(len(part1))+4 {
		t.Fatalf("the upload completed twice: %+v, %v", obj, err)
	}
	if ups, err := c.ListUploads(ctx, b, loc.Dir()); err != nil || len(ups) != 0 {
		t.Fatalf("uploads after the completion: %+v, %v", ups, err)
	}
	// An aborted upload leaves nothing.
	id2, err := c.CreateUpload(ctx, b, loc.Key("dir/aborted"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.UploadPart(ctx, b, loc.Key("dir/aborted"), id2, 1, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := c.AbortUpload(ctx, b, loc.Key("dir/aborted"), id2); err != nil {
		t.Fatal(err)
	}
	if err := c.AbortUpload(ctx, b, loc.Key("dir/aborted"), id2); err != nil {
		t.Fatalf("aborting an aborted upload: %v", err)
	}
	if err := c.CompleteUpload(ctx, b, loc.Key("dir/aborted"), id2, nil); !errors.Is(err, s3client.ErrNoSuchUpload) {
		t.Fatalf("completing an aborted upload: %v; want ErrNoSuchUpload", err)
	}

	// PutStream: small (one put) and large (multipart).
	big := bytes.Repeat([]byte("0123456789"), s3client.MinPartSize/10*2+7)
	if n, err := c.PutStream(ctx, b, loc.Key("dir/big"), bytes.NewReader(big), s3client.MinPartSize); err != nil || n != int64(len(big)) {
		t.Fatalf("put stream: %d, %v", n, err)
	}
	if data, _, err := c.GetAll(ctx, b, loc.Key("dir/big")); err != nil || !bytes.Equal(data, big) {
		t.Fatalf("read back the streamed object: %d bytes, %v", len(data), err)
	}
	if _, err := c.PutStream(ctx, b, loc.Key("dir/broken"), io.MultiReader(bytes.NewReader(big), failing{}), s3client.MinPartSize); err == nil {
		t.Fatal("put stream with a failing reader succeeded")
	}
	if _, err := c.Head(ctx, b, loc.Key("dir/broken")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a failed put stream left an object: %v", err)
	}

	objs, err := c.List(ctx, b, loc.Dir())
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range objs {
		keys = append(keys, strings.TrimPrefix(o.Key, loc.Dir()))
	}
	if strings.Join(keys, " ") != "a dir/big dir/multi" {
		t.Fatalf("list: %q", keys)
	}
	if err := c.Delete(ctx, b, loc.Key("a"), ""); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, b, loc.Key("a"), ""); err != nil {
		t.Fatalf("deleting a missing object: %v", err)
	}
	if err := c.DeleteAll(ctx, b, []string{loc.Key("dir/big"), loc.Key("dir/multi"), loc.Key("never")}); err != nil {
		t.Fatal(err)
	}
	if keys := srv.Keys(t, loc); len(keys) != 0 {
		t.Fatalf("left after deleting: %q", keys)
	}
}

type failing struct{}

func (failing) Read([]byte) (int, error) { return 0, errors.New("reader broke") }

// TestConditionalWritesRace checks what the checkpoint storage's lock
// relies on: of writers racing to create one object with If-None-Match,
// exactly one succeeds, and the server honours the condition (the probe).
func TestConditionalWritesRace(t *testing.T) {
	srv := s3test.Require(t)
	c := srv.Client(t)
	loc := srv.Prefix(t)
	ctx := context.Background()
	if err := c.ProbeConditionalWrites(ctx, loc.Bucket, loc.Key("probe")); err != nil {
		t.Fatalf("the test server does not honour conditional writes: %v", err)
	}
	for round := range 5 {
		key := loc.Key("race-" + string(rune('a'+round)))
		var won, lost atomic.Int32
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Go(func() {
				_, err := c.Put(ctx, loc.Bucket, key, []byte{byte(i)}, s3client.Cond{IfNoneMatch: true})
				switch {
				case err == nil:
					won.Add(1)
				case errors.Is(err, s3client.ErrPrecondition) || strings.Contains(err.Error(), "409"):
					lost.Add(1)
				default:
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if won.Load() != 1 {
			t.Fatalf("round %d: %d of 4 racing creates succeeded; want exactly 1", round, won.Load())
		}
	}
}

// TestBadCredentials checks that a wrong secret fails with an error that
// does not show it.
func TestBadCredentials(t *testing.T) {
	srv := s3test.Require(t)
	cfg := srv.Config()
	cfg.SecretKey = "wrong-secret-do-not-print"
	c, err := s3client.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	loc := srv.Prefix(t)
	_, err = c.Put(context.Background(), loc.Bucket, loc.Key("x"), []byte("x"), s3client.Cond{})
	if err == nil {
		t.Fatal("a put with a wrong secret succeeded")
	}
	if strings.Contains(err.Error(), string(cfg.SecretKey)) || strings.Contains(err.Error(), srv.SecretKey) {
		t.Fatalf("the error shows a secret: %v", err)
	}
	if !strings.Contains(err.Error(), loc.URI(loc.Key("x"))) {
		t.Fatalf("the error does not name the object: %v", err)
	}
}

// TestCredentialChain connects with neither s3.access-key nor
// s3.secret-key: the AWS credential chain finds the keys in the
// environment, then in a shared credentials file. Wrong keys in the
// environment are refused by the server, so the chain's keys are the ones
// the requests are signed with (not anonymous access).
func TestCredentialChain(t *testing.T) {
	srv := s3test.Require(t)
	loc := srv.Prefix(t)
	cfg := srv.Config()
	cfg.AccessKey, cfg.SecretKey = "", ""
	// Only what the test sets takes part: no profile, files or instance
	// role of the machine's own.
	dir := t.TempDir()
	for k, v := range map[string]string{"AWS_CONFIG_FILE": filepath.Join(dir, "config"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"),
		"AWS_PROFILE": "", "AWS_DEFAULT_PROFILE": "", "AWS_SESSION_TOKEN": "", "AWS_WEB_IDENTITY_TOKEN_FILE": "", "AWS_ROLE_ARN": "",
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "", "AWS_CONTAINER_CREDENTIALS_FULL_URI": "", "AWS_EC2_METADATA_DISABLED": "true"} {
		t.Setenv(k, v)
	}
	put := func(name string) error {
		t.Helper()
		c, err := s3client.New(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Config().String(); !strings.Contains(got, "the AWS credential chain") {
			t.Fatalf("the client's description %q does not say it uses the credential chain", got)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err = c.Put(ctx, loc.Bucket, loc.Key(name), []byte(name), s3client.Cond{})
		return err
	}

	t.Setenv("AWS_ACCESS_KEY_ID", srv.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", srv.SecretKey)
	if err := put("from-env"); err != nil {
		t.Fatalf("a put with the keys in AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: %v", err)
	}
	t.Setenv("AWS_SECRET_ACCESS_KEY", "wrong-secret-do-not-print")
	if err := put("from-wrong-env"); err == nil {
		t.Fatal("a put with a wrong AWS_SECRET_ACCESS_KEY succeeded: the requests are not signed with the chain's keys")
	}

	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	creds := fmt.Sprintf("[default]\naws_access_key_id = %s\naws_secret_access_key = %s\n", srv.AccessKey, srv.SecretKey)
	if err := os.WriteFile(filepath.Join(dir, "credentials"), []byte(creds), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := put("from-file"); err != nil {
		t.Fatalf("a put with the keys in the shared credentials file: %v", err)
	}
	keys := srv.Keys(t, loc)
	if !slices.Equal(keys, []string{"from-env", "from-file"}) {
		t.Fatalf("objects %q, want from-env and from-file", keys)
	}
}
