package javafmt

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/types"
)

// TestJavaToString compares the formatting with what Java 17 prints, read
// from testdata/java_tostring.tsv (made by testdata/gen/JavaToString.java).
func TestJavaToString(t *testing.T) {
	f, err := os.Open("testdata/java_tostring.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		parts := strings.Split(sc.Text(), "\t")
		if len(parts) != 3 {
			t.Fatalf("bad line %q", sc.Text())
		}
		kind, in, want := parts[0], parts[1], parts[2]
		var got string
		switch kind {
		case "double", "float":
			bits := 64
			if kind == "float" {
				bits = 32
			}
			v, err := strconv.ParseFloat(in, bits)
			if err != nil {
				t.Fatalf("%s: %v", in, err)
			}
			got = Float(v, bits)
		case "decimal":
			d, err := types.ParseDecimal(in)
			if err != nil {
				t.Fatalf("%s: %v", in, err)
			}
			got = BigDecimal(d)
		case "instant", "localdatetime", "localdate":
			sec, nano, _ := strings.Cut(in, ",")
			s, _ := strconv.ParseInt(sec, 10, 64)
			ns, _ := strconv.ParseInt(nano, 10, 64)
			ms := s*1000 + ns/1e6
			ts := types.TimestampValue(types.Timestamp{Millis: ms, NanoOfMilli: int32(ns % 1e6)})
			var b strings.Builder
			switch kind {
			case "instant":
				AppendValue(&b, ts, types.TimestampLTZ(9))
			case "localdatetime":
				AppendValue(&b, ts, types.TimestampType(9))
			default:
				days := s / 86400
				if s < 0 && s%86400 != 0 {
					days--
				}
				AppendValue(&b, types.DateValue(int32(days)), types.Date())
			}
			got = b.String()
		case "localtime":
			ns, _ := strconv.ParseInt(in, 10, 64)
			var b strings.Builder
			AppendValue(&b, types.TimeValue(ns), types.Time(9))
			got = b.String()
		default:
			t.Fatalf("unknown kind %q", kind)
		}
		if got != want {
			t.Errorf("%s %s: got %q, Java prints %q", kind, in, got, want)
		}
		n++
	}
	if n < 50 {
		t.Fatalf("only %d vectors read", n)
	}
}

func TestFormatRow(t *testing.T) {
	colTypes := []types.Type{types.BigInt(), types.String(), types.Bytes(), types.Array(types.Int()),
		types.Map(types.String(), types.Int()), types.RowType(types.Field{Name: "a", Type: types.Boolean()}), types.Double()}
	row := types.Row{Kind: types.Delete, Fields: []types.Value{
		types.Int64(1), types.Str("foo"), types.BytesValue([]byte{1, 255}),
		types.List([]types.Value{types.Int64(1), {}}),
		types.MapValue(&types.MapData{Keys: []types.Value{types.Str("k")}, Values: []types.Value{types.Int64(2)}}),
		types.List([]types.Value{types.Bool(true)}),
		{},
	}}
	want := "-D[1, foo, [1, -1], [1, null], {k=2}, +I[true], null]"
	if got := FormatRow(row, colTypes); got != want {
		t.Fatalf("FormatRow = %q, want %q", got, want)
	}
}
