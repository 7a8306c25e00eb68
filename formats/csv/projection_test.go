package csv

import (
	"reflect"
	"testing"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/formats/internal/flinkgolden"
	"github.com/streamsql/streamsql/types"
)

// TestFlinkProjectionGolden compares the decoder made with
// FormatContext.ReadFields with what Flink's csv format decodes when the
// Kafka source pushes a projection into it (testdata/flink/projection.txt,
// from tools/flink-formats-gen's ProjectGen): an unread field is NULL and
// its text is not converted, so a bad value there fails no record; the
// record's shape (its number of fields) is still checked.
func TestFlinkProjectionGolden(t *testing.T) {
	blocks, err := flinkgolden.Read("testdata/flink/projection.txt", false)
	if err != nil {
		t.Fatal(err)
	}
	projected, rescued := 0, 0
	for _, b := range blocks {
		f, err := resolve(t, strip(b.Options))
		if err != nil {
			t.Fatal(err)
		}
		fullErr := false
		for _, c := range b.Cases {
			dec, err := f.NewProjectedDecoder(c.Type.Fields, flinkgolden.ReadFlags(c), nil)
			if err != nil {
				t.Fatalf("line %d: %v", c.Line, err)
			}
			var row types.Row
			err = dec.Decode(c.Input, &row)
			if c.Project == nil {
				fullErr = c.Error != ""
			} else if projected++; fullErr && c.Error == "" && !c.Skip {
				rescued++
			}
			if p := flinkgolden.ProjectedProblem(c, row, err); p != "" {
				t.Errorf("line %d %v project %v: %s", c.Line, b.Options, c.Project, p)
			}
		}
	}
	if projected < 30 || rescued < 3 {
		t.Fatalf("only %d projected golden cases, %d where only the full decode fails", projected, rescued)
	}
}

// TestNestedProjection: with FormatContext.ReadRows the unread fields of
// a ROW column are NULL and their text is not converted, so a bad value
// there fails no record; the ROW's shape (its number of fields) is still
// checked, and a bad value in a read nested field still fails.
func TestNestedProjection(t *testing.T) {
	fields := []types.Field{{Name: "id", Type: types.BigInt()},
		{Name: "r", Type: types.RowType(types.Field{Name: "x", Type: types.Int()}, types.Field{Name: "y", Type: types.Int()})}}
	f, err := resolve(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	rows := []*factory.RowRead{nil, {Fields: []bool{true, false}}}
	full, err := f.NewNestedDecoder(fields, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	proj, err := f.NewNestedDecoder(fields, nil, rows, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		in                 string
		fullFail, projFail bool
		want               []types.Value
	}{
		{in: "1,2;3", want: []types.Value{types.Int64(1), types.List([]types.Value{types.Int64(2), {}})}},
		{in: "1,2;abc", fullFail: true, want: []types.Value{types.Int64(1), types.List([]types.Value{types.Int64(2), {}})}},
		{in: "1,abc;3", fullFail: true, projFail: true},
		{in: "1,2", fullFail: true, projFail: true},
		{in: "1,2;3;4", fullFail: true, projFail: true},
	} {
		var fr, pr types.Row
		if err := full.Decode([]byte(c.in), &fr); (err != nil) != c.fullFail {
			t.Errorf("%s: full decode: %v, want failure %v", c.in, err, c.fullFail)
		}
		err := proj.Decode([]byte(c.in), &pr)
		if (err != nil) != c.projFail {
			t.Errorf("%s: projected decode: %v, want failure %v", c.in, err, c.projFail)
			continue
		}
		if err == nil && !reflect.DeepEqual(pr.Fields, c.want) {
			t.Errorf("%s: got %v, want %v", c.in, pr.Fields, c.want)
		}
	}
}
