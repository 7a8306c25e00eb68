package cdc

import (
	"slices"
	"testing"
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
