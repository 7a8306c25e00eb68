package filesystem

import (
	"fmt"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/internal/javafmt"
	"github.com/streamsql/streamsql/types"
)

// TestDatePartitionValue pins how a DATE partition directory is read: an
// ISO date, as the sink writes it; anything else is an error, not a
// wrong date.
func TestDatePartitionValue(t *testing.T) {
	v, err := parsePartitionValue("2024-01-05", types.Date())
	if err != nil || v.Date() != 19727 {
		t.Fatalf("2024-01-05 = %v, %v; want day 19727", v, err)
	}
	for _, bad := range []string{"2024-13-01", "2024-02-30", "2024-1-5", "2024-01-05x", "x"} {
		if v, err := parsePartitionValue(bad, types.Date()); err == nil {
			t.Errorf("partition value %q read as %v, want an error", bad, v)
		}
	}
}

// TestPartitionDirectories pins the directory a row's partition values
// name: each value as Java prints it (javafmt), with the characters Hive
// escapes as %XX, NULL and the empty string as the default partition, for consecutive
// rows of the same and of different partitions (split reuses the last
// directory's name).
func TestPartitionDirectories(t *testing.T) {
	cols := []types.Field{{Name: "v", Type: types.BigInt()}, {Name: "s", Type: types.String()},
		{Name: "n", Type: types.Int()}, {Name: "d", Type: types.Double()}, {Name: "day", Type: types.Date()}}
	s, err := NewSink(Config{Path: t.TempDir(), PartitionKeys: []int{1, 2, 3, 4}, Table: "t", DefaultPartitionName: "__DEFAULT_PARTITION__"}, cols, csvFormat(t))
	if err != nil {
		t.Fatal(err)
	}
	w := &writer{sink: s}
	// escape is Hive's escaping, written out independently of the sink's.
	escape := func(v string) string {
		var b strings.Builder
		for _, c := range []byte(v) {
			if c < 0x20 || c == 0x7f || strings.ContainsRune("\"#%'*/:=?\\{[]^", rune(c)) {
				fmt.Fprintf(&b, "%%%02X", c)
			} else {
				b.WriteByte(c)
			}
		}
		return b.String()
	}
	var all []byte
	for c := range 256 {
		all = append(all, byte(c))
	}
	strs := []types.Value{types.Str("2024-01-05"), types.Str("04:05"), types.Str("04:05"), types.Str("a/b=c%d"), types.Str(""), {}, types.Str(string(all)), types.Str("é x")}
	ns := []types.Value{types.Int64(-7), types.Int64(0), {}}
	ds := []types.Value{types.Float64(1.5), types.Float64(1e21), {}}
	days := []types.Value{types.DateValue(19727), {}}
	for i := range 40 {
		row := []types.Value{types.Int64(int64(i)), strs[i%len(strs)], ns[i%len(ns)], ds[i%len(ds)], days[i%len(days)]}
		var want []string
		for _, k := range []int{1, 2, 3, 4} {
			v := ""
			if !row[k].IsNull() {
				var b strings.Builder
				javafmt.AppendValue(&b, row[k], cols[k].Type)
				v = escape(b.String())
			}
			if v == "" {
				v = "__DEFAULT_PARTITION__"
			}
			want = append(want, cols[k].Name+"="+v)
		}
		dir, data := w.split(row)
		if w := strings.Join(want, "/"); dir != w {
			t.Fatalf("row %d: directory %q, want %q", i, dir, w)
		}
		if len(data) != 1 || data[0].Int64() != int64(i) {
			t.Fatalf("row %d: data fields %v, want [%d]", i, data, i)
		}
	}
}
