package cdc

import (
	stdjson "encoding/json"
	"slices"
	"testing"

	"github.com/streamsql/streamsql/formats/internal/flinkgolden"
)

// TestOldKeys covers what the Flink goldens do not: where "old" is in the
// record, repeated or spelled with escapes, and malformed records.
func TestOldKeys(t *testing.T) {
	names := []string{"id", "name", "city"}
	index := map[string]int{"id": 0, "name": 1, "city": 2}
	for _, c := range []struct {
		in   string
		want []bool
		err  bool
	}{
		{in: `{"data":[{"id":1}],"old":[{"name":"a"}],"type":"UPDATE"}`, want: []bool{false, true, false}},
		{in: ` { "old" : [ { "x" : { "city" : null } } ] } `, want: []bool{false, false, true}},
		// Keys outside "old" do not count.
		{in: `{"name":1,"data":[{"city":1}],"old":[{}]}`, want: []bool{false, false, false}},
		// The last "old" counts, as the envelope decoder and Jackson keep it.
		{in: `{"old":[{"id":1}],"old":[{"name":2}]}`, want: []bool{false, true, false}},
		{in: `{"o\u006cd":{"n\u0061me":[{"id":"}"}]}}`, want: []bool{true, true, false}},
		// Values named like fields are not keys.
		{in: `{"old":{"x":"name","y":["city"]}}`, want: []bool{false, false, false}},
		{in: `{"old":null}`, want: []bool{false, false, false}},
		{in: `{"old":[{"id":1}`, err: true},
		{in: `{"old":[{"id" 1}]}`, err: true},
		{in: `[1]`, err: true},
		{in: ``, err: true},
	} {
		listed := make([]bool, len(names))
		err := oldKeys([]byte(c.in), index, listed)
		if (err != nil) != c.err {
			t.Errorf("%s: error %v, want error %v", c.in, err, c.err)
			continue
		}
		if !c.err && !slices.Equal(listed, c.want) {
			t.Errorf("%s: listed %v, want %v", c.in, listed, c.want)
		}
	}
}

// FuzzOldKeys compares oldKeys with a plain reading of the same record:
// encoding/json into generic values, then a search of every object key
// under "old", as Jackson's findValue does in Flink. Seeds: every input
// of the Flink golden file.
func FuzzOldKeys(f *testing.F) {
	blocks, err := flinkgolden.Read("testdata/flink/deserialize.txt", false)
	if err != nil {
		f.Fatal(err)
	}
	for _, b := range blocks {
		for _, c := range b.Cases {
			f.Add(c.Input)
		}
	}
	names := []string{"id", "name", "price", "ts", "city", "addr", "old"}
	index := map[string]int{}
	for i, n := range names {
		index[n] = i
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		listed := make([]bool, len(names))
		err := oldKeys(data, index, listed)
		var root map[string]any
		if stdjson.Unmarshal(data, &root) != nil || root == nil {
			return // malformed, or not an object (the decoder refuses null first): only no panic is asked
		}
		if err != nil {
			t.Fatalf("%q: %v", data, err)
		}
		want := make([]bool, len(names))
		var find func(v any)
		find = func(v any) {
			switch v := v.(type) {
			case map[string]any:
				for k, e := range v {
					if i, ok := index[k]; ok {
						want[i] = true
					}
					find(e)
				}
			case []any:
				for _, e := range v {
					find(e)
				}
			}
		}
		if old, ok := root["old"]; ok {
			find(old)
		}
		if !slices.Equal(listed, want) {
			t.Fatalf("%q: listed %v, want %v", data, listed, want)
		}
	})
}
