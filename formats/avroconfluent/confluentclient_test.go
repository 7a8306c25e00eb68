package avroconfluent

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"flag"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/streamsql/streamsql/formats/avro"
	"github.com/streamsql/streamsql/formats/internal/formattest"
	"github.com/streamsql/streamsql/internal/testrig/srtest"
	"github.com/streamsql/streamsql/types"
)

var writeConfluentClient = flag.Bool("write-confluent-client", false,
	"run Confluent's JavaScript client (tools/confluent-client-check, after npm ci there) against srtest and rewrite "+confluentGoldenPath)

const confluentGoldenPath = "testdata/confluent-client.json"

// confluentFields and confluentRows are what streamsql writes for
// Confluent's deserializer to read, and what Confluent's serializer writes
// for streamsql to read.
var confluentFields = []types.Field{
	{Name: "id", Type: types.BigInt().NotNullable()},
	{Name: "name", Type: types.String()},
	{Name: "amount", Type: types.DecimalType(10, 2)},
	{Name: "ok", Type: types.Boolean()},
	{Name: "score", Type: types.Double()},
	{Name: "tags", Type: types.Array(types.String())},
	{Name: "day", Type: types.Date()},
}

func confluentRows() []types.Row {
	null := types.Value{}
	return []types.Row{
		{Fields: []types.Value{types.Int64(1), types.Str("ann"), types.DecimalValue(types.NewDecimal(12345, 2)),
			types.Bool(true), types.Float64(0.1), types.List([]types.Value{types.Str("a"), null, types.Str("b")}), types.DateValue(20000)}},
		{Fields: []types.Value{types.Int64(-2), types.Str("ü <b> & \u2028"), types.DecimalValue(types.NewDecimal(-505, 2)),
			types.Bool(false), types.Float64(-1e300), types.List(nil), types.DateValue(-1)}},
		{Fields: []types.Value{types.Int64(1 << 40), null, null, null, null, null, null}},
	}
}

// avscJSON renders a row as Confluent's JavaScript deserializer (avsc)
// returns it, in check.mjs's JSON: null unions unwrapped, bytes (here the
// decimal's unscaled value, big-endian two's complement, as Avro's decimal
// logical type and Java's BigInteger.toByteArray write it) as {"$bytes":
// hex}, DATE as its int of days.
func avscJSON(fields []types.Field, r types.Row) map[string]any {
	var val func(t types.Type, v types.Value) any
	val = func(t types.Type, v types.Value) any {
		if v.IsNull() {
			return nil
		}
		switch t.Kind {
		case types.KindBigInt:
			return v.Int64()
		case types.KindDouble:
			return v.Float64()
		case types.KindBoolean:
			return v.Bool()
		case types.KindDate:
			return v.Date()
		case types.KindDecimal:
			return map[string]any{"$bytes": hex.EncodeToString(twosComplement(v.Decimal().Unscaled()))}
		case types.KindArray:
			out := []any{}
			for _, e := range v.List() {
				out = append(out, val(*t.Elem, e))
			}
			return out
		default:
			return v.Str()
		}
	}
	out := map[string]any{}
	for i, f := range fields {
		out[f.Name] = val(f.Type, r.Fields[i])
	}
	return out
}

// twosComplement is x's minimal big-endian two's complement bytes.
func twosComplement(x *big.Int) []byte {
	if x.Sign() >= 0 {
		b := x.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// -x-1 has the complemented bits of x.
	m := new(big.Int).Not(x).Bytes()
	b := make([]byte, len(m))
	for i := range m {
		b[i] = ^m[i]
	}
	if len(b) == 0 || b[0]&0x80 == 0 {
		b = append([]byte{0xff}, b...)
	}
	return b
}

// exchange is one request Confluent's client sent to srtest and srtest's
// answer.
type exchange struct {
	Method            string `json:"method"`
	Path              string `json:"path"`
	ContentType       string `json:"content_type"`
	Body              string `json:"body,omitempty"`
	Status            int    `json:"status"`
	AnswerContentType string `json:"answer_content_type"`
	Answer            string `json:"answer"`
}

// confluentGolden is testdata/confluent-client.json.
type confluentGolden struct {
	Client string `json:"client"`
	Read   struct {
		Topic   string            `json:"topic"`
		Records []string          `json:"records"`
		Decoded []json.RawMessage `json:"decoded"`
	} `json:"read"`
	Write struct {
		Topic   string            `json:"topic"`
		Schema  string            `json:"schema"`
		Values  []json.RawMessage `json:"values"`
		Encoded []string          `json:"encoded"`
	} `json:"write"`
	Evolve    string          `json:"evolve"`
	Calls     json.RawMessage `json:"calls"`
	Exchanges []exchange      `json:"exchanges"`
}

// encodeRows writes confluentRows with streamsql's encoder through reg.
func encodeRows(t *testing.T, url, topic string) []string {
	t.Helper()
	f, err := resolve(t, "url", url)
	if err != nil {
		t.Fatal(err)
	}
	f.Topic = topic
	enc, err := f.NewEncoder(confluentFields)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range confluentRows() {
		b, err := enc.Encode(nil, r)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, base64.StdEncoding.EncodeToString(b))
	}
	return out
}

func jsonEqual(t *testing.T, a json.RawMessage, b any) bool {
	t.Helper()
	var x, y any
	bb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(bb, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

// TestConfluentClientGolden checks streamsql and internal/testrig/srtest against
// Confluent's own client, @confluentinc/schemaregistry (its serializer,
// deserializer and REST client), whose run is recorded in
// testdata/confluent-client.json by `go test -run TestConfluentClientGolden
// -write-confluent-client` (tools/confluent-client-check/run.sh). It checks
// that:
//   - streamsql still writes the bytes that Confluent's AvroDeserializer
//     decoded, and the deserializer's values are the rows written;
//   - srtest answers each request Confluent's client sent with the same
//     status, content type and bytes that the client then accepted (or
//     turned into the RestError recorded in calls);
//   - streamsql decodes the bytes Confluent's AvroSerializer wrote into the
//     rows the serializer was given.
func TestConfluentClientGolden(t *testing.T) {
	if *writeConfluentClient {
		writeConfluentGolden(t)
	}
	raw, err := os.ReadFile(confluentGoldenPath)
	if err != nil {
		t.Fatal(err)
	}
	var g confluentGolden
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	rows := confluentRows()
	if len(g.Read.Records) != len(rows) || len(g.Read.Decoded) != len(rows) || len(g.Write.Encoded) != len(rows) || len(g.Write.Values) != len(rows) {
		t.Fatalf("%s is stale (record counts differ from confluentRows): regenerate it", confluentGoldenPath)
	}
	reg := srtest.Start(srtest.Options{})
	defer reg.Close()

	// streamsql → Confluent's deserializer.
	for i, b := range encodeRows(t, reg.URL(), g.Read.Topic) {
		if b != g.Read.Records[i] {
			t.Errorf("record %d: streamsql writes %s, Confluent's deserializer read %s: regenerate %s", i, b, g.Read.Records[i], confluentGoldenPath)
		}
		if want := avscJSON(confluentFields, rows[i]); !jsonEqual(t, g.Read.Decoded[i], want) {
			t.Errorf("record %d: Confluent's deserializer read %s, want %v", i, g.Read.Decoded[i], want)
		}
	}

	// srtest answers Confluent's requests as recorded.
	if len(g.Exchanges) == 0 {
		t.Fatal("no exchanges recorded")
	}
	for _, x := range g.Exchanges {
		req, err := http.NewRequest(x.Method, reg.URL()+x.Path, strings.NewReader(x.Body))
		if err != nil {
			t.Fatal(err)
		}
		if x.ContentType != "" {
			req.Header.Set("Content-Type", x.ContentType)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != x.Status || resp.Header.Get("Content-Type") != x.AnswerContentType || string(body) != x.Answer {
			t.Errorf("%s %s: srtest answers %d %s %s\nConfluent's client was answered %d %s %s",
				x.Method, x.Path, resp.StatusCode, resp.Header.Get("Content-Type"), body, x.Status, x.AnswerContentType, x.Answer)
		}
	}

	// Confluent's serializer → streamsql.
	f, err := resolve(t, "url", reg.URL())
	if err != nil {
		t.Fatal(err)
	}
	f.Topic = g.Write.Topic
	dec, err := f.NewDecoder(confluentFields)
	if err != nil {
		t.Fatal(err)
	}
	for i, b64 := range g.Write.Encoded {
		if want := avscJSON(confluentFields, rows[i]); !jsonEqual(t, g.Write.Values[i], want) {
			t.Errorf("value %d given to Confluent's serializer was %s, want %v: regenerate %s", i, g.Write.Values[i], want, confluentGoldenPath)
		}
		b, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			t.Fatal(err)
		}
		var got types.Row
		if err := dec.Decode(b, &got); err != nil {
			t.Fatalf("record %d Confluent's serializer wrote (%x): %v", i, b, err)
		}
		for j, fl := range confluentFields {
			if !formattest.Equal(fl.Type, rows[i].Fields[j], got.Fields[j]) {
				t.Errorf("record %d field %s: streamsql read %s, Confluent's serializer was given %s", i, fl.Name,
					formattest.Show(fl.Type, got.Fields[j]), formattest.Show(fl.Type, rows[i].Fields[j]))
			}
		}
	}
}

// writeConfluentGolden runs tools/confluent-client-check/check.mjs against
// srtest behind a recording proxy and rewrites the golden file.
func writeConfluentGolden(t *testing.T) {
	tool, err := filepath.Abs("../../tools/confluent-client-check")
	if err != nil {
		t.Fatal(err)
	}
	lock, err := os.ReadFile(filepath.Join(tool, "node_modules/@confluentinc/schemaregistry/package.json"))
	if err != nil {
		t.Fatalf("run npm ci in %s first: %v", tool, err)
	}
	var pkg struct{ Name, Version string }
	if err := json.Unmarshal(lock, &pkg); err != nil {
		t.Fatal(err)
	}

	reg := srtest.Start(srtest.Options{})
	defer reg.Close()
	var (
		mu        sync.Mutex
		exchanges []exchange
	)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		out, err := http.NewRequest(req.Method, reg.URL()+req.URL.RequestURI(), bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		out.Header = req.Header.Clone()
		resp, err := http.DefaultClient.Do(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		answer, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		mu.Lock()
		exchanges = append(exchanges, exchange{Method: req.Method, Path: req.URL.RequestURI(), ContentType: req.Header.Get("Content-Type"),
			Body: string(body), Status: resp.StatusCode, AnswerContentType: resp.Header.Get("Content-Type"), Answer: string(answer)})
		mu.Unlock()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.WriteHeader(resp.StatusCode)
		_, _ = w.Write(answer)
	}))
	defer proxy.Close()

	var g confluentGolden
	g.Client = pkg.Name + " " + pkg.Version
	g.Read.Topic = "orders"
	g.Read.Records = encodeRows(t, reg.URL(), g.Read.Topic)
	g.Write.Topic = "payments"
	schema, _, err := avro.Schema(Identifier, confluentFields, true)
	if err != nil {
		t.Fatal(err)
	}
	g.Write.Schema = schema
	for _, r := range confluentRows() {
		b, err := json.Marshal(avscJSON(confluentFields, r))
		if err != nil {
			t.Fatal(err)
		}
		g.Write.Values = append(g.Write.Values, b)
	}
	// id becomes a string: the latest schema cannot read what it wrote.
	g.Evolve = `{"type":"record","name":"record","namespace":"org.apache.flink.avro.generated","fields":[{"name":"id","type":"string"}]}`

	in := map[string]any{
		"url":    proxy.URL,
		"read":   map[string]any{"topic": g.Read.Topic, "records": g.Read.Records},
		"write":  map[string]any{"topic": g.Write.Topic, "schema": g.Write.Schema, "values": g.Write.Values},
		"evolve": g.Evolve,
	}
	dir := t.TempDir()
	inPath, outPath := filepath.Join(dir, "in.json"), filepath.Join(dir, "out.json")
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(inPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", filepath.Join(tool, "check.mjs"), inPath, outPath)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("check.mjs: %v\n%s", err, out)
	}
	b, err = os.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Decoded []json.RawMessage `json:"decoded"`
		Encoded []string          `json:"encoded"`
		Calls   json.RawMessage   `json:"calls"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	g.Read.Decoded, g.Write.Encoded, g.Calls = out.Decoded, out.Encoded, out.Calls
	mu.Lock()
	g.Exchanges = exchanges
	mu.Unlock()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(g); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(confluentGoldenPath, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
