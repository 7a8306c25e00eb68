package kafka

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/kafka/internal/txn"
	"github.com/streamsql/streamsql/types"
)

// recordingWriter records the rows written to it.
type recordingWriter struct {
	mu      sync.Mutex
	written []string // "<kind><key>=<value>"
	flushed chan struct{}
}

func (w *recordingWriter) Write(_ context.Context, rows []types.Row) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, r := range rows {
		w.written = append(w.written, r.Kind.String()+r.Fields[0].Str()+"="+r.Fields[1].Str())
	}
	if w.flushed != nil {
		select {
		case w.flushed <- struct{}{}:
		default:
		}
	}
	return nil
}

func (w *recordingWriter) PreCommit(context.Context, int64) ([]connector.Committable, error) {
	return nil, nil
}
func (w *recordingWriter) Close() error { return nil }

func (w *recordingWriter) got() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.written)
}

func kv(kind types.RowKind, k, v string) types.Row {
	return types.Row{Kind: kind, Fields: []types.Value{types.Str(k), types.Str(v)}}
}

func firstField(row *types.Row, buf []byte) []byte { return append(buf, row.Fields[0].Str()...) }

func TestUpsertBuffer(t *testing.T) {
	rw := &recordingWriter{}
	u, err := newUpsertBuffer(context.Background(), rw, firstField, 3, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	ctx := context.Background()
	in := []types.Row{kv(types.Insert, "a", "1"), kv(types.UpdateBefore, "a", "1"), kv(types.UpdateAfter, "a", "2"),
		kv(types.Insert, "b", "1"), kv(types.Delete, "b", "1")}
	if err := u.Write(ctx, in); err != nil {
		t.Fatal(err)
	}
	in[2].Fields[1] = types.Str("changed by the caller") // the buffer keeps copies
	if got := rw.got(); len(got) != 0 {
		t.Fatalf("wrote %q before the buffer was full", got)
	}
	if _, err := u.PreCommit(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if got, want := rw.got(), []string{"+Ua=2", "-Db=1"}; !slices.Equal(got, want) {
		t.Fatalf("PreCommit wrote %q, want %q", got, want)
	}
	// Three distinct keys fill the buffer.
	if err := u.Write(ctx, []types.Row{kv(types.Insert, "x", "1"), kv(types.Insert, "y", "1"), kv(types.Insert, "z", "1")}); err != nil {
		t.Fatal(err)
	}
	if got := rw.got(); len(got) != 5 {
		t.Fatalf("a full buffer was not written: %q", got)
	}
	if _, err := newUpsertBuffer(context.Background(), rw, firstField, 0, time.Second); err == nil {
		t.Fatalf("max-rows 0 with an interval accepted")
	}
}

func TestUpsertBufferInterval(t *testing.T) {
	rw := &recordingWriter{flushed: make(chan struct{}, 1)}
	u, err := newUpsertBuffer(context.Background(), rw, firstField, 100, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	if err := u.Write(context.Background(), []types.Row{kv(types.Insert, "k", "v")}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-rw.flushed:
	case <-time.After(waitLong):
		t.Fatalf("the interval flush never came")
	}
	if got := rw.got(); !slices.Equal(got, []string{"+Ik=v"}) {
		t.Fatalf("interval flush wrote %q", got)
	}
}

// TestUpsertBufferIntervalFlushEndsWithContext: once the writer's context
// (Open's) has ended, the interval timer flushes nothing more; the rows
// stay for the next PreCommit or are discarded at Close, as after a
// failure.
func TestUpsertBufferIntervalFlushEndsWithContext(t *testing.T) {
	rw := &recordingWriter{flushed: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	u, err := newUpsertBuffer(ctx, rw, firstField, 100, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	cancel()
	if err := u.Write(context.Background(), []types.Row{kv(types.Insert, "k", "v")}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-rw.flushed:
		t.Fatalf("an interval flush ran after the writer's context ended: %q", rw.got())
	case <-time.After(200 * time.Millisecond): // ten intervals
	}
}

// TestWritersForgetRows: the plain and the transactional writer encode
// each row into its record within Write, and say so (connector.RowForgetter,
// which lets the runtime reuse the rows' memory); the upsert buffer keeps
// rows and does not.
func TestWritersForgetRows(t *testing.T) {
	for _, c := range []struct {
		name string
		w    connector.Writer
		want bool
	}{{"plain", &plainWriter{}, true}, {"transactional", &txn.Writer{}, true}, {"upsert buffer", &upsertBuffer{}, false}} {
		f, ok := c.w.(connector.RowForgetter)
		if got := ok && f.ForgetsRows(); got != c.want {
			t.Errorf("%s writer forgets rows: %v, want %v", c.name, got, c.want)
		}
	}
}
