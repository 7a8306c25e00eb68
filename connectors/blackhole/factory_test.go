package blackhole_test

import (
	"context"
	"errors"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/blackhole"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/types"
)

func TestBlackholeThroughFactory(t *testing.T) {
	reg := factory.Default.Clone()
	ctx := context.Background()
	schema := factory.Schema{Columns: []factory.Column{{Name: "id", Type: types.BigInt()}}}
	sink, _, err := reg.CreateSink(ctx, factory.Table{Name: "bh", Schema: schema, Options: map[string]string{"connector": "blackhole"}})
	if err != nil {
		t.Fatal(err)
	}
	w, err := sink.Open(ctx, connector.TaskInfo{Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, make([]types.Row, 5)); err != nil {
		t.Fatal(err)
	}
	if got := sink.(*blackhole.Sink).Rows(); got != 5 {
		t.Fatalf("discarded %d rows, want 5", got)
	}

	var unsup *option.UnsupportedOptionsError
	_, _, err = reg.CreateSink(ctx, factory.Table{Name: "bh", Schema: schema, Options: map[string]string{"connector": "blackhole", "path": "/tmp"}})
	if !errors.As(err, &unsup) || len(unsup.Keys) != 1 || unsup.Keys[0] != "path" || len(unsup.Supported) != 1 {
		t.Errorf("an option on blackhole: %v, want UnsupportedOptionsError with only 'connector' supported", err)
	}
	_, _, err = reg.CreateSource(ctx, factory.Table{Name: "bh", Schema: schema, Options: map[string]string{"connector": "blackhole"}})
	if !errors.As(err, new(*factory.CapabilityError)) {
		t.Errorf("blackhole as a source: %v, want CapabilityError", err)
	}
}
