package nexmark_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/nexmark"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/types"
)

// referenceCase is one golden file of testdata/reference, written by
// tools/nexmark-reference from the public generator's own code.
type referenceCase struct {
	name        string
	options     map[string]string // the connector's options, with seed, base-time and scan.parallelism
	parallelism int
	splits      []referenceSplit
}

type referenceSplit struct {
	total  int64 // -1 when the case is unbounded
	events []string
}

func readReference(t *testing.T, path string) referenceCase {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := referenceCase{options: map[string]string{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	settings := map[string]string{
		"num-in-flight-auctions": "auction.in-flight", "num-active-people": "person.active",
		"out-of-order-group-size": "out-of-order.group-size", "first-event.rate": "first-event.rate",
	}
	for sc.Scan() {
		line := sc.Text()
		key, rest, _ := strings.Cut(line, " ")
		switch key {
		case "#":
		case "case":
			c.name = rest
		case "seed":
			c.options["seed"] = rest
		case "base-time":
			c.options["base-time"] = rest
		case "parallelism":
			c.options["scan.parallelism"] = rest
			c.parallelism, _ = strconv.Atoi(rest)
		case "option":
			k, v, _ := strings.Cut(rest, "=")
			c.options[k] = v
		case "setting":
			k, v, _ := strings.Cut(rest, " ")
			c.options[settings[k]] = v
		case "split":
			sp := referenceSplit{total: -1}
			if _, n, ok := strings.Cut(rest, " total "); ok {
				sp.total, _ = strconv.ParseInt(n, 10, 64)
			}
			c.splits = append(c.splits, sp)
		default:
			if !strings.HasPrefix(line, "{") || len(c.splits) == 0 {
				t.Fatalf("%s: unexpected line %q", path, line)
			}
			sp := &c.splits[len(c.splits)-1]
			sp.events = append(sp.events, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(c.splits) != c.parallelism {
		t.Fatalf("%s: %d splits, want %d", path, len(c.splits), c.parallelism)
	}
	return c
}

// TestReference compares the connector's events, field by field, with the
// first events of the public generator for the same configuration (its
// seed being the value the reference program gave the JVM's default
// SplittableRandom sequence, its base time the one the reference's
// factory took from the clock): every split's first events, and for
// bounded cases how many events each split produces.
func TestReference(t *testing.T) {
	all, err := filepath.Glob("testdata/reference/*.txt")
	var files []string
	for _, f := range all {
		// prices.txt and unseeded.txt are TestPriceNearTies' and
		// TestUnseededReference's.
		if b := filepath.Base(f); b != "prices.txt" && b != "unseeded.txt" {
			files = append(files, f)
		}
	}
	if err != nil || len(files) < 5 {
		t.Fatalf("reference files: %v %v", files, err)
	}
	for _, file := range files {
		c := readReference(t, file)
		t.Run(c.name, func(t *testing.T) {
			src := createSource(t, c.options, nexmark.Schema)
			for i, sp := range c.splits {
				r, err := src.Open(context.Background(), connector.TaskInfo{Parallelism: 1},
					[]connector.SplitState{{ID: fmt.Sprintf("nexmark-%d-of-%d", i, c.parallelism)}})
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				var total int64
				for {
					rows, err := r.Read(context.Background())
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					for _, row := range rows {
						if len(got) < len(sp.events) {
							got = append(got, referenceJSON(t, row))
						}
					}
					total += int64(len(rows))
					if sp.total < 0 && len(got) >= len(sp.events) {
						break
					}
				}
				if sp.total >= 0 && total != sp.total {
					t.Errorf("split %d: %d events, the reference %d", i, total, sp.total)
				}
				if len(got) != len(sp.events) {
					t.Fatalf("split %d: %d events, the reference's file has %d", i, len(got), len(sp.events))
				}
				mismatches := 0
				for n := range got {
					if d := diffEvent(got[n], sp.events[n]); d != "" {
						t.Errorf("split %d event %d: %s", i, n, d)
						if mismatches++; mismatches > 5 {
							t.FailNow()
						}
					}
				}
				if err := r.Close(); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func createSource(t testing.TB, opts map[string]string, schema []types.Field) connector.Source {
	t.Helper()
	all := map[string]string{"connector": "nexmark"}
	for k, v := range opts {
		all[k] = v
	}
	var cols []factory.Column
	for _, f := range schema {
		cols = append(cols, factory.Column{Name: f.Name, Type: f.Type})
	}
	src, _, err := factory.Default.CreateSource(context.Background(),
		factory.Table{Name: "cat.db.nexmark", Schema: factory.Schema{Columns: cols}, Options: all})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// referenceJSON writes a row as the reference program writes an event:
// event_type and the event's nested row, times in epoch milliseconds.
func referenceJSON(t testing.TB, row types.Row) string {
	t.Helper()
	typ := row.Fields[0].Int64()
	names := [][]string{
		{"id", "name", "emailAddress", "creditCard", "city", "state", "dateTime", "extra"},
		{"id", "itemName", "description", "initialBid", "reserve", "dateTime", "expires", "seller", "category", "extra"},
		{"auction", "bidder", "price", "channel", "url", "dateTime", "extra"},
	}
	for i := 1; i <= 3; i++ {
		if (int64(i) == typ+1) == row.Fields[i].IsNull() {
			t.Fatalf("event of type %d: field %d null = %v", typ, i, row.Fields[i].IsNull())
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `{"event_type":%d,"%s":{`, typ, []string{"person", "auction", "bid"}[typ])
	for i, v := range row.Fields[typ+1].List() {
		if i > 0 {
			b.WriteByte(',')
		}
		name := names[typ][i]
		b.WriteString(`"` + name + `":`)
		switch {
		case name == "dateTime" || name == "expires":
			b.WriteString(strconv.FormatInt(v.Timestamp().Millis, 10))
		case v.Str() != "" || strings.Contains("name emailAddress creditCard city state extra itemName description channel url", name):
			b.WriteByte('"')
			for _, ch := range []byte(v.Str()) {
				switch {
				case ch == '"' || ch == '\\':
					b.WriteByte('\\')
					b.WriteByte(ch)
				case ch < 0x20 || ch > 0x7e:
					fmt.Fprintf(&b, `\u%04x`, ch)
				default:
					b.WriteByte(ch)
				}
			}
			b.WriteByte('"')
		default:
			b.WriteString(strconv.FormatInt(v.Int64(), 10))
		}
	}
	b.WriteString("}}")
	return b.String()
}

// diffEvent names the fields in which two events differ, "" when they
// are equal.
func diffEvent(got, want string) string {
	if got == want {
		return ""
	}
	var g, w map[string]any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		return fmt.Sprintf("bad JSON %q: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		return fmt.Sprintf("bad reference JSON %q: %v", want, err)
	}
	var diffs []string
	var walk func(prefix string, g, w map[string]any)
	walk = func(prefix string, g, w map[string]any) {
		keys := map[string]bool{}
		for k := range g {
			keys[k] = true
		}
		for k := range w {
			keys[k] = true
		}
		var sorted []string
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			gm, gok := g[k].(map[string]any)
			wm, wok := w[k].(map[string]any)
			if gok && wok {
				walk(prefix+k+".", gm, wm)
				continue
			}
			if !reflect.DeepEqual(g[k], w[k]) {
				diffs = append(diffs, fmt.Sprintf("%s%s = %v, the reference %v", prefix, k, g[k], w[k]))
			}
		}
	}
	walk("", g, w)
	return strings.Join(diffs, "; ")
}
