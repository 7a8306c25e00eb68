package s3store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/internal/s3fs"
	"github.com/streamsql/streamsql/internal/s3fs/s3client"
	"github.com/streamsql/streamsql/internal/testrig/s3test"
	"github.com/streamsql/streamsql/runtime/checkpoint"
	"github.com/streamsql/streamsql/runtime/checkpoint/s3store"
	"github.com/streamsql/streamsql/runtime/checkpoint/storagetest"
)

func open(t *testing.T, srv s3test.Server, base s3fs.Location, job string) *s3store.Store {
	t.Helper()
	st, err := s3store.Open(context.Background(), base.String(), job, checkpoint.OpenOptions{S3: srv.Config()})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestConformance runs the storage contract against the real server.
func TestConformance(t *testing.T) {
	srv := s3test.Require(t)
	base := srv.Prefix(t)
	storagetest.Run(t, func(t *testing.T, job string) checkpoint.Storage { return open(t, srv, base, job) })
}

// TestOpenThroughTheRegistry opens s3:// through package checkpoint, as
// the runtime does, and restores through LoadFrom.
func TestOpenThroughTheRegistry(t *testing.T) {
	srv := s3test.Require(t)
	base := srv.Prefix(t)
	opts := checkpoint.OpenOptions{S3: srv.Config()}
	st, err := checkpoint.Open(base.String(), "job", opts)
	if err != nil {
		t.Fatal(err)
	}
	if st.Location() != base.String()+"/job" {
		t.Fatalf("Location = %s", st.Location())
	}
	md := &checkpoint.Metadata{Version: checkpoint.FormatVersion, Job: "job", ID: 7, Run: "r"}
	if _, err := st.Write(md); err != nil {
		t.Fatal(err)
	}
	for _, uri := range []string{base.String() + "/job", base.String() + "/job/" + checkpoint.FileName(7)} {
		got, err := checkpoint.LoadFrom(uri, "job", opts)
		if err != nil || got.ID != 7 {
			t.Fatalf("LoadFrom(%s): %+v, %v", uri, got, err)
		}
	}
	if _, err := checkpoint.LoadFrom(base.String()+"/job", "other", opts); err == nil {
		t.Fatal("LoadFrom of another job's checkpoint succeeded")
	}
	// Finished record.
	if f, err := st.Finished(); err != nil || f != nil {
		t.Fatalf("Finished before: %v, %v", f, err)
	}
	if err := st.MarkFinished(checkpoint.Finished{Time: time.Now().UTC(), LastCheckpoint: 7}); err != nil {
		t.Fatal(err)
	}
	if f, err := st.Finished(); err != nil || f == nil || f.LastCheckpoint != 7 || f.Job != "job" {
		t.Fatalf("Finished: %+v, %v", f, err)
	}
	if err := st.Clear(); err != nil {
		t.Fatal(err)
	}
	if f, err := st.Finished(); err != nil || f == nil {
		t.Fatalf("Clear deleted the finished record: %v, %v", f, err)
	}
	if _, err := st.Write(md); err != nil {
		t.Fatal(err)
	}
	if dropped, err := st.DropFinished(); err != nil || !dropped {
		t.Fatalf("DropFinished: %v, %v", dropped, err)
	}
	if keys := srv.Keys(t, base.Join("job")); len(keys) != 0 {
		t.Fatalf("left after DropFinished: %q", keys)
	}
	if dropped, err := st.DropFinished(); err != nil || dropped {
		t.Fatalf("DropFinished without a record: %v, %v", dropped, err)
	}
}

// TestCreateIsExclusive checks the commit point without rename: a
// checkpoint object is created once; the run that wrote it may replace it
// (a write it retries), another run may not.
func TestCreateIsExclusive(t *testing.T) {
	srv := s3test.Require(t)
	base := srv.Prefix(t)
	a, b := open(t, srv, base, "job"), open(t, srv, base, "job")
	md := &checkpoint.Metadata{Version: checkpoint.FormatVersion, Job: "job", ID: 3, Run: "run-a"}
	if _, err := a.Write(md); err != nil {
		t.Fatal(err)
	}
	again := *md
	again.Time = time.Now().UTC() // different content, same run
	if _, err := a.Write(&again); err != nil {
		t.Fatalf("rewriting a checkpoint of the same run: %v", err)
	}
	other := *md
	other.Run = "run-b"
	_, err := b.Write(&other)
	if !errors.Is(err, checkpoint.ErrLocked) || !strings.Contains(err.Error(), "run-a") {
		t.Fatalf("another run writing an existing checkpoint: %v; want ErrLocked naming run-a", err)
	}
	got, err := b.Read(checkpoint.Ref{ID: 3})
	if err != nil || !got.Time.Equal(again.Time) || got.Run != "run-a" {
		t.Fatalf("the checkpoint after the refused write: %+v, %v", got, err)
	}
}

// TestLockInProcessAndAcrossProcesses: a second Lock fails at once while
// the holder lives (in this process, and in another process on this
// machine, naming its pid); the lock of a SIGKILLed process is taken over
// at once.
func TestLockInProcessAndAcrossProcesses(t *testing.T) {
	if os.Getenv("S3STORE_LOCK_CHILD") != "" {
		lockChild()
		return
	}
	srv := s3test.Require(t)
	base := srv.Prefix(t)
	a := open(t, srv, base, "job")
	unlock, err := a.Lock()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := open(t, srv, base, "job").Lock(); !errors.Is(err, checkpoint.ErrLocked) {
		t.Fatalf("a second Lock in the process: %v; want ErrLocked", err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	if keys := srv.Keys(t, base.Join("job")); len(keys) != 0 {
		t.Fatalf("left after unlock: %q", keys)
	}

	// Another process takes the lock.
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockInProcessAndAcrossProcesses$")
	cmd.Env = append(os.Environ(), "S3STORE_LOCK_CHILD=1", "S3STORE_LOCK_BASE="+base.String())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	buf := make([]byte, 6)
	if _, err := out.Read(buf); err != nil || string(buf[:6]) != "locked" {
		t.Fatalf("child: %q, %v", buf, err)
	}
	start := time.Now()
	_, err = open(t, srv, base, "job").Lock()
	if !errors.Is(err, checkpoint.ErrLocked) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", cmd.Process.Pid)) {
		t.Fatalf("Lock while another process holds it: %v; want ErrLocked naming pid %d", err, cmd.Process.Pid)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("failing against a live holder on this machine took %v; it should not wait for the lease", d)
	}
	if err := cmd.Process.Signal(os.Kill); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	b := open(t, srv, base, "job")
	unlock, err = b.Lock()
	if err != nil {
		t.Fatalf("Lock after the holder was killed: %v", err)
	}
	defer unlock()
	if _, err := b.Write(&checkpoint.Metadata{Version: checkpoint.FormatVersion, Job: "job", ID: 1, Run: "r"}); err != nil {
		t.Fatal(err)
	}
}

// lockChild takes the lock, says so and waits to be killed.
func lockChild() {
	srv := s3test.Server{Endpoint: os.Getenv(s3test.EnvEndpoint), AccessKey: os.Getenv(s3test.EnvAccessKey), SecretKey: os.Getenv(s3test.EnvSecretKey)}
	st, err := s3store.Open(context.Background(), os.Getenv("S3STORE_LOCK_BASE"), "job", checkpoint.OpenOptions{S3: srv.Config()})
	if err == nil {
		_, err = st.Lock()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	fmt.Print("locked")
	time.Sleep(time.Minute)
	os.Exit(0)
}

// TestLockOfAnotherMachine: a holder the process cannot see is waited
// for; one that renews is live (ErrLocked), one that does not is taken
// over after the lease.
func TestLockOfAnotherMachine(t *testing.T) {
	srv := s3test.Require(t)
	base := srv.Prefix(t)
	c := srv.Client(t)
	key := base.Join("job").Key(checkpoint.LockFile)
	foreign := func(n int) []byte {
		b, _ := json.Marshal(map[string]any{"owner": fmt.Sprint("elsewhere-", n), "pid": 1, "host": "other-host", "boot_id": "another-kernel",
			"since": time.Now().UTC(), "lease_ms": 1000})
		return b
	}
	if _, err := c.Put(context.Background(), base.Bucket, key, foreign(0), s3client.Cond{}); err != nil {
		t.Fatal(err)
	}
	st := open(t, srv, base, "job")
	st.LeaseDuration = 2 * time.Second
	// The foreign holder renews while we wait: live.
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 1; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(300 * time.Millisecond):
			}
			_, _ = c.Put(context.Background(), base.Bucket, key, foreign(i), s3client.Cond{})
		}
	}()
	_, err := st.Lock()
	close(stop)
	<-done
	if !errors.Is(err, checkpoint.ErrLocked) || !strings.Contains(err.Error(), "other-host") {
		t.Fatalf("Lock against a renewing holder: %v; want ErrLocked naming other-host", err)
	}
	// It stops renewing: taken over after the lease.
	start := time.Now()
	unlock, err := st.Lock()
	if err != nil {
		t.Fatalf("Lock after the holder stopped renewing: %v", err)
	}
	if d := time.Since(start); d < st.LeaseDuration {
		t.Fatalf("took over after %v, before the lease of %v passed", d, st.LeaseDuration)
	}
	// Now someone takes it from us (a holder that took over wrongly, or
	// an operator): the next renewal notices, and writes stop.
	if _, err := c.Put(context.Background(), base.Bucket, key, foreign(99), s3client.Cond{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := st.Write(&checkpoint.Metadata{Version: checkpoint.FormatVersion, Job: "job", ID: time.Now().UnixNano(), Run: "r"})
		if errors.Is(err, checkpoint.ErrLocked) {
			break
		}
		if err != nil {
			t.Fatalf("write while the lock is being lost: %v", err)
		}
		if time.Now().After(deadline) {
			t.Fatal("writes go on after the lock was taken over")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	if data, _, err := c.GetAll(context.Background(), base.Bucket, key); err != nil || !strings.Contains(string(data), "elsewhere-99") {
		t.Fatalf("unlock of a lost lock touched the new holder's object: %s, %v", data, err)
	}
}

// TestLockRefusedWithoutConditionalWrites: against a server that ignores
// If-None-Match (a fake here: no real server is that old), Lock refuses
// rather than lock nothing.
func TestLockRefusedWithoutConditionalWrites(t *testing.T) {
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPut:
			w.Header().Set("ETag", `"0123"`)
		case http.MethodDelete:
			w.WriteHeader(http.StatusNoContent)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer fake.Close()
	st, err := s3store.Open(context.Background(), "s3://bucket/ckpt", "job", checkpoint.OpenOptions{S3: s3fs.Config{
		Endpoint: fake.URL, PathStyle: true, AccessKey: "a", SecretKey: "b", Region: "us-east-1"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.Lock()
	if !errors.Is(err, s3client.ErrNoConditionalWrites) || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("Lock without conditional writes: %v; want ErrNoConditionalWrites, refused", err)
	}
}

// TestLockSurvivesAnOutage cuts the store off while the lock is held (a
// proxy between the process and the real server): once the lease runs out
// writes stop (not lost: nobody took it); once the store answers again the
// renewal succeeds and writes go on.
func TestLockSurvivesAnOutage(t *testing.T) {
	p := s3test.NewProxy(t, s3test.Require(t))
	base := p.Prefix(t)
	st := open(t, p.Server, base, "job")
	st.LeaseDuration = 3 * time.Second
	unlock, err := st.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	write := func(id int64) error {
		_, err := st.Write(&checkpoint.Metadata{Version: checkpoint.FormatVersion, Job: "job", ID: id, Run: "r"})
		return err
	}
	if err := write(1); err != nil {
		t.Fatal(err)
	}
	p.Break()
	time.Sleep(st.LeaseDuration + 500*time.Millisecond)
	err = write(2)
	if err == nil || errors.Is(err, checkpoint.ErrLocked) || !strings.Contains(err.Error(), "not renewed") {
		t.Fatalf("write with an expired lease: %v; want a not-renewed error, not ErrLocked", err)
	}
	p.Heal(t)
	deadline := time.Now().Add(30 * time.Second)
	for err := write(3); err != nil; err = write(3) {
		if time.Now().After(deadline) {
			t.Fatalf("writes did not resume after the store came back: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
