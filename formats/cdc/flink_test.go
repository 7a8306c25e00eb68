package cdc

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/formats/internal/flinkgolden"
	"github.com/streamsql/streamsql/formats/internal/formattest"
	"github.com/streamsql/streamsql/types"
)

// The golden files are written by Flink's own DebeziumJson*, CanalJson* and
// MaxwellJsonDeserializationSchema (flink-json, see tools/flink-formats-gen):
// every row Flink emits for an input, with its kind, or that it skipped the
// input or failed.

// blockFormat returns the format and its options (without prefix) of a
// golden block.
func blockFormat(b flinkgolden.Block) (string, []string) {
	id := b.Options["format"]
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(b.Options)) {
		if k != "format" {
			kv = append(kv, strings.TrimPrefix(k, id+"."), b.Options[k])
		}
	}
	return id, kv
}

// cdcDeviations are the inputs streamsql decodes differently from Flink on
// purpose, keyed by format, options and input, with the reason.
var cdcDeviations = flinkgolden.Deviations{}

// TestFlinkChangelogGolden decodes every golden input and compares the rows
// (kinds and values), skips and failures with Flink's.
func TestFlinkChangelogGolden(t *testing.T) {
	blocks, err := flinkgolden.Read("testdata/flink/deserialize.txt", false)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	n := 0
	for _, b := range blocks {
		id, kv := blockFormat(b)
		f, err := resolve(t, id, kv...)
		if err != nil {
			t.Fatalf("options %v: %v", b.Options, err)
		}
		for _, c := range b.Cases {
			n++
			dec, err := f.NewDecoder(c.Type.Fields)
			if err != nil {
				t.Fatalf("line %d: %v", c.Line, err)
			}
			key := fmt.Sprintf("%s %v %s", id, kv, c.Input)
			cdcDeviations.Check(t, seen, c.Line, key, changelogProblem(c, dec.(factory.MultiRowDecoder)))
		}
	}
	cdcDeviations.Unseen(t, seen)
	if n < 100 {
		t.Fatalf("only %d golden cases", n)
	}
}

// changelogProblem describes how the decoder's rows for c differ from
// Flink's; "" when they agree.
func changelogProblem(c flinkgolden.Case, dec factory.MultiRowDecoder) string {
	var got []types.Row
	var row types.Row
	err := dec.Decode(c.Input, &row)
	if err == nil {
		got = append(got, row.Clone())
		for dec.Next(&row) {
			got = append(got, row.Clone())
		}
	}
	switch {
	case c.Error != "":
		if err == nil || errors.Is(err, factory.ErrSkipRecord) {
			return fmt.Sprintf("Flink fails (%s), we got %v", c.Error, describe(c.Type, got, err))
		}
		return ""
	case c.Skip:
		if !errors.Is(err, factory.ErrSkipRecord) {
			return fmt.Sprintf("Flink skips the record, we got %s", describe(c.Type, got, err))
		}
		return ""
	case err != nil:
		return fmt.Sprintf("Flink reads %s, we failed: %v", describe(c.Type, c.Rows, nil), err)
	}
	if len(got) != len(c.Rows) {
		return fmt.Sprintf("Flink reads %s, we read %s", describe(c.Type, c.Rows, nil), describe(c.Type, got, nil))
	}
	for i, want := range c.Rows {
		if got[i].Kind != want.Kind {
			return fmt.Sprintf("row %d: Flink reads %s, we read %s", i, describe(c.Type, c.Rows, nil), describe(c.Type, got, nil))
		}
		for j, ft := range c.Type.Fields {
			if !formattest.Equal(ft.Type, want.Fields[j], got[i].Fields[j]) {
				return fmt.Sprintf("row %d: Flink reads %s, we read %s", i, describe(c.Type, c.Rows, nil), describe(c.Type, got, nil))
			}
		}
	}
	return ""
}

func describe(t types.Type, rows []types.Row, err error) string {
	if err != nil {
		return err.Error()
	}
	var parts []string
	for _, r := range rows {
		parts = append(parts, r.Kind.String()+formattest.Show(t, types.List(r.Fields)))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// TestFlinkDebeziumSerializeGolden encodes every golden row with its kind
// and compares the bytes with Flink's DebeziumJsonSerializationSchema.
func TestFlinkDebeziumSerializeGolden(t *testing.T) {
	blocks, err := flinkgolden.Read("testdata/flink/serialize.txt", false)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, b := range blocks {
		id, kv := blockFormat(b)
		f, err := resolve(t, id, kv...)
		if err != nil {
			t.Fatalf("options %v: %v", b.Options, err)
		}
		for _, c := range b.Cases {
			n++
			enc, err := f.NewEncoder(c.Type.Fields)
			if err != nil {
				t.Fatalf("line %d: %v", c.Line, err)
			}
			row := *c.Row
			row.Kind = c.Kind
			got, err := enc.Encode(nil, row)
			if c.Error != "" {
				if err == nil {
					t.Errorf("line %d: Flink fails (%s), we wrote %s", c.Line, c.Error, got)
				}
				continue
			}
			if err != nil || !bytes.Equal(got, c.Bytes) {
				t.Errorf("line %d %v %v:\n got %s (%v)\nwant %s", c.Line, kv, c.Kind, got, err, c.Bytes)
			}
		}
	}
	if n < 30 {
		t.Fatalf("only %d golden cases", n)
	}
}
