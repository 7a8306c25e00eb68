package exactlyonce

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// A row is a sink's row as the tests compare it: its columns' values as
// text, joined by "|". Numbers are written as JSON writes them, NULL as
// "null", and timestamps as "2006-01-02 15:04:05.000", whatever precision
// the sink's encoding printed.
type row = string

// tsLayout is how rows write timestamps.
const tsLayout = "2006-01-02 15:04:05.000"

// rowOf reads the columns cols of the JSON object data as a row.
func rowOf(data []byte, cols []string) (row, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return "", fmt.Errorf("%q: %w", data, err)
	}
	return rowOfObject(obj, cols)
}

// rowOfObject reads the columns cols of a decoded JSON object as a row.
func rowOfObject(obj map[string]any, cols []string) (row, error) {
	parts := make([]string, len(cols))
	for i, c := range cols {
		v, ok := obj[c]
		if !ok {
			return "", fmt.Errorf("%v has no column %q", obj, c)
		}
		switch v := v.(type) {
		case nil:
			parts[i] = "null"
		case json.Number:
			parts[i] = v.String()
		case string:
			if ts, err := time.Parse("2006-01-02 15:04:05.999999999", v); err == nil {
				parts[i] = ts.Format(tsLayout)
			} else {
				parts[i] = v
			}
		default:
			parts[i] = fmt.Sprint(v)
		}
	}
	return strings.Join(parts, "|"), nil
}

// keyOf returns the first n columns of r: the key of a keyed table.
func keyOf(r row, n int) string {
	parts := strings.SplitN(r, "|", n+1)
	return strings.Join(parts[:n], "|")
}

// table is a keyed table: key → row.
type table map[string]row

// diff describes how got differs from want (at most a few keys each way);
// "" when they are equal.
func (got table) diff(want table) string {
	var missing, extra, wrong []string
	for _, k := range slices.Sorted(maps.Keys(want)) {
		g, ok := got[k]
		switch {
		case !ok:
			missing = append(missing, want[k])
		case g != want[k]:
			wrong = append(wrong, fmt.Sprintf("%s (want %s)", g, want[k]))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[k]; !ok {
			extra = append(extra, got[k])
		}
	}
	if len(missing)+len(extra)+len(wrong) == 0 {
		return ""
	}
	first := func(s []string) []string { return s[:min(3, len(s))] }
	return fmt.Sprintf("%d rows, want %d: %d missing %q, %d unexpected %q, %d wrong %q",
		len(got), len(want), len(missing), first(missing), len(extra), first(extra), len(wrong), first(wrong))
}

// applyDebezium applies the committed records of a Kafka topic written
// with 'format' = 'debezium-json' (each partition in offset order) to an
// empty table keyed by the first keyCols of cols, and returns it. The
// changelog must be well-formed: an insert or update-after ('c') only for
// a key the table does not hold, an update-before or delete ('d') only of
// the row the table holds. A duplicated or lost change breaks one of
// these, or the final table.
func applyDebezium(recs map[int32][]*kgo.Record, cols []string, keyCols int) (table, error) {
	t := table{}
	for _, p := range slices.Sorted(maps.Keys(recs)) {
		for _, rec := range recs[p] {
			dec := json.NewDecoder(bytes.NewReader(rec.Value))
			dec.UseNumber()
			var env struct {
				Before, After map[string]any
				Op            string
			}
			if err := dec.Decode(&env); err != nil {
				return nil, fmt.Errorf("partition %d offset %d: %q: %w", p, rec.Offset, rec.Value, err)
			}
			switch env.Op {
			case "c":
				r, err := rowOfObject(env.After, cols)
				if err != nil {
					return nil, fmt.Errorf("partition %d offset %d: %w", p, rec.Offset, err)
				}
				k := keyOf(r, keyCols)
				if old, ok := t[k]; ok {
					return nil, fmt.Errorf("partition %d offset %d: +I/+U %s while the table holds %s: a retraction is missing or a change is duplicated", p, rec.Offset, r, old)
				}
				t[k] = r
			case "d":
				r, err := rowOfObject(env.Before, cols)
				if err != nil {
					return nil, fmt.Errorf("partition %d offset %d: %w", p, rec.Offset, err)
				}
				k := keyOf(r, keyCols)
				if old, ok := t[k]; !ok || old != r {
					return nil, fmt.Errorf("partition %d offset %d: -U/-D of %s, which the table does not hold (it holds %q)", p, rec.Offset, r, old)
				}
				delete(t, k)
			default:
				return nil, fmt.Errorf("partition %d offset %d: op %q", p, rec.Offset, env.Op)
			}
		}
	}
	return t, nil
}

// applyUpsert applies the committed records of an upsert-kafka topic (each
// partition in offset order; a record's Kafka key is its row's key) to an
// empty table, and returns it. A tombstone must delete a key the table
// holds. With insertOnly, a key may be written once only: the sink's
// input was insert-only, so a second value is a duplicate.
func applyUpsert(recs map[int32][]*kgo.Record, cols []string, keyCols int, insertOnly bool) (table, error) {
	t := table{}
	for _, p := range slices.Sorted(maps.Keys(recs)) {
		for _, rec := range recs[p] {
			if rec.Value == nil {
				k, err := rowOf(rec.Key, cols[:keyCols])
				if err != nil {
					return nil, fmt.Errorf("partition %d offset %d: key: %w", p, rec.Offset, err)
				}
				if _, ok := t[k]; !ok {
					return nil, fmt.Errorf("partition %d offset %d: a tombstone of key %s, which the table does not hold", p, rec.Offset, k)
				}
				delete(t, k)
				continue
			}
			r, err := rowOf(rec.Value, cols)
			if err != nil {
				return nil, fmt.Errorf("partition %d offset %d: %w", p, rec.Offset, err)
			}
			k := keyOf(r, keyCols)
			if old, ok := t[k]; ok && insertOnly {
				return nil, fmt.Errorf("partition %d offset %d: %s written again (first %s): a duplicate", p, rec.Offset, r, old)
			}
			t[k] = r
		}
	}
	return t, nil
}

// checkTable fails t when got (or its error) is not want.
func checkTable(t *testing.T, what string, got table, err error, want table) {
	t.Helper()
	if err != nil {
		t.Errorf("%s: %v", what, err)
		return
	}
	if d := got.diff(want); d != "" {
		t.Errorf("%s: %s", what, d)
	}
}
