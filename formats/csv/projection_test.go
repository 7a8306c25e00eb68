package csv

import (
	"testing"

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
