package text

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/types"
)

func TestDatesAgainstTimePackage(t *testing.T) {
	for days := int64(-800000); days <= 3000000; days += 97 {
		tm := time.Unix(days*86400, 0).UTC()
		// The calendar itself is tested in internal/javatime.
		if tm.Year() >= 1 && tm.Year() <= 9999 {
			got := string(AppendDate(nil, days))
			if want := tm.Format("2006-01-02"); got != want {
				t.Fatalf("AppendDate(%d) = %s, want %s", days, got, want)
			}
			if p, err := ParseDate([]byte(got)); err != nil || p != days {
				t.Fatalf("ParseDate(%s) = %d, %v", got, p, err)
			}
		}
	}
	for _, bad := range []string{"2021-02-29", "2020-13-01", "2020-00-10", "20-01-01", "2020-1-01", "2020-01-01x", ""} {
		if _, err := ParseDate([]byte(bad)); err == nil {
			t.Errorf("ParseDate(%q) succeeded", bad)
		}
	}
}

func TestTimestampsAgainstTimePackage(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		sec := r.Int64N(253402300800+62135596800) - 62135596800
		ns := r.Int64N(1e9)
		ts := types.Timestamp{Millis: sec*1000 + ns/1e6, NanoOfMilli: int32(ns % 1e6)}
		got := string(AppendTimestamp(nil, ts, ' ', false))
		want := ts.Time().Format("2006-01-02 15:04:05.999999999")
		if got != want {
			t.Fatalf("AppendTimestamp = %s, want %s", got, want)
		}
		back, err := ParseTimestamp([]byte(got), ' ', false)
		if err != nil || back != ts {
			t.Fatalf("ParseTimestamp(%s) = %v, %v", got, back, err)
		}
	}
	for _, bad := range []string{"2020-01-01 24:00:00", "2020-01-01 12:60:00", "2020-01-01 12:00:00.", "2020-01-01 12:00:00.1234567890", "2020-01-01 12:00"} {
		if _, err := ParseTimestamp([]byte(bad), ' ', false); err == nil {
			t.Errorf("ParseTimestamp(%q) succeeded", bad)
		}
	}
	if _, err := ParseTimestamp([]byte("2020-01-01T12:00"), 'T', false); err != nil {
		t.Errorf("ISO timestamps may omit seconds: %v", err)
	}
	if _, err := ParseTimestamp([]byte("2020-01-01 12:00:00"), ' ', true); err == nil {
		t.Error("LTZ without Z accepted")
	}
}

func TestParseInt(t *testing.T) {
	for _, c := range []struct {
		in     string
		lo, hi int64
		ok     bool
	}{
		{"127", math.MinInt8, math.MaxInt8, true}, {"128", math.MinInt8, math.MaxInt8, false},
		{"-9223372036854775808", math.MinInt64, math.MaxInt64, true}, {"9223372036854775808", math.MinInt64, math.MaxInt64, false},
		{"99999999999999999999999", math.MinInt64, math.MaxInt64, false}, {"+5", 0, 10, true}, {"-", 0, 10, false}, {"1e3", 0, 1e6, false},
	} {
		v, err := ParseInt([]byte(c.in), c.lo, c.hi)
		if (err == nil) != c.ok {
			t.Errorf("ParseInt(%q) = %d, %v", c.in, v, err)
		}
		if c.ok {
			want, _ := strconv.ParseInt(c.in, 10, 64)
			if v != want {
				t.Errorf("ParseInt(%q) = %d", c.in, v)
			}
		}
	}
}

// The allocation-free decimal path agrees with the exact one.
func TestFastDecimalMatchesSlowPath(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 20000; i++ {
		p := 1 + r.IntN(18)
		s := r.IntN(p + 1)
		intDigits := r.IntN(p + 2)
		fracDigits := r.IntN(s + 3)
		b := []byte{}
		if r.IntN(2) == 0 {
			b = append(b, '-')
		}
		for j := 0; j < intDigits; j++ {
			b = append(b, byte('0'+r.IntN(10)))
		}
		if intDigits == 0 {
			b = append(b, '0')
		}
		if fracDigits > 0 {
			b = append(b, '.')
			for j := 0; j < fracDigits; j++ {
				b = append(b, byte('0'+r.IntN(10)))
			}
		}
		fast, fok := fastDecimal(b, p, s)
		d, err := types.ParseDecimal(string(b))
		if err != nil {
			t.Fatal(err)
		}
		slow, serr := d.Rescale(p, s)
		if fok {
			if serr != nil || fast.Cmp(slow) != 0 || fast.Scale() != slow.Scale() {
				t.Fatalf("%s as DECIMAL(%d, %d): fast %s, slow %s (%v)", b, p, s, fast, slow, serr)
			}
		}
		got, err := ParseDecimal(b, p, s)
		if (err == nil) != (serr == nil) || (err == nil && got.Cmp(slow) != 0) {
			t.Fatalf("ParseDecimal(%s, %d, %d) = %s, %v; want %s, %v", b, p, s, got, err, slow, serr)
		}
	}
}

func TestAppendDecimalMatchesBigFloatText(t *testing.T) {
	// Plain notation must be exact: compare with math/big's rendering.
	r := rand.New(rand.NewPCG(9, 9))
	for i := 0; i < 5000; i++ {
		digits := make([]byte, 1+r.IntN(38))
		for j := range digits {
			digits[j] = byte('0' + r.IntN(10))
		}
		u, _ := new(big.Int).SetString(string(digits), 10)
		if r.IntN(2) == 0 {
			u.Neg(u)
		}
		scale := r.IntN(20)
		d := types.NewDecimalBig(u, scale)
		if got, want := string(AppendDecimal(nil, d, true)), d.String(); got != want {
			t.Fatalf("plain %s: got %s", want, got)
		}
	}
}

func TestAppendJavaDoubleParsesBack(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for i := 0; i < 20000; i++ {
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		s := string(AppendJavaDouble(nil, f, 64))
		back, err := strconv.ParseFloat(s, 64)
		if err != nil || back != f {
			t.Fatalf("%v printed %s parses as %v (%v)", f, s, back, err)
		}
	}
}

// Leading zeros of the fraction are not counted as digits, so a number may
// have more fraction digits than the fast path's table of powers: it used
// to index past it (a panic found by the cdc formats' fuzzing).
func TestDecimalManyFractionZeros(t *testing.T) {
	for _, s := range []string{"0.0000000000000000000000", "-0.00000000000000000000000000000001", "0.000000000000000000000000000000015"} {
		got, err := ParseDecimal([]byte(s), 10, 2)
		if err != nil || got.Cmp(types.NewDecimal(0, 2)) != 0 {
			t.Errorf("ParseDecimal(%s, 10, 2) = %s, %v; want 0.00", s, got, err)
		}
	}
}

// TestParseFloat64MatchesStrconv checks the fast path against
// strconv.ParseFloat, bit for bit: chosen edge cases, then random plain
// decimals of every length around the fast path's bounds.
func TestParseFloat64MatchesStrconv(t *testing.T) {
	check := func(s string) {
		t.Helper()
		want, werr := strconv.ParseFloat(s, 64)
		got, gerr := ParseFloat64([]byte(s))
		if (werr != nil) != (gerr != nil) || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("ParseFloat64(%q) = %v, %v; strconv: %v, %v", s, got, gerr, want, werr)
		}
	}
	for _, s := range []string{"0", "-0", "0.0", "-0.0", "1", "-1", "142.37", "37.40972181939523", "9007199254740992",
		"9007199254740993", "90071992547409921", "0.1", "0.30000000000000004", "1.7976931348623157e308", "1e22", "1e23",
		"0.0000000000000000000001", "0.00000000000000000000001", "123456789012345678901234567890", ".5", "1.", ".", "-",
		"", "+1", "1e", "1.5.5", "inf", "NaN", "0x1p-2", "1_0", "00012.5000", "-00.000001", "4.35", "2.675", "1.0000000000000002"} {
		check(s)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		intDigits, fracDigits := r.IntN(18), r.IntN(25)
		var b []byte
		if r.IntN(2) == 0 {
			b = append(b, '-')
		}
		for range intDigits + 1 {
			b = append(b, byte('0'+r.IntN(10)))
		}
		if fracDigits > 0 {
			b = append(b, '.')
			for range fracDigits {
				b = append(b, byte('0'+r.IntN(10)))
			}
		}
		check(string(b))
	}
}

func BenchmarkParseFloat64(b *testing.B) {
	in := [][]byte{[]byte("142.37"), []byte("37.40972181939523")}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := ParseFloat64(in[i%2]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseFloat64Strconv(b *testing.B) {
	in := []string{"142.37", "37.40972181939523"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := strconv.ParseFloat(in[i%2], 64); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAppendJavaDoubleFastPath checks AppendJavaDouble's fast path for
// short decimals against its general path (strconv's shortest digits laid
// out as Java does) on the doubles it takes and those next to them: short
// decimals of every scale, their neighbours one ulp away (which need 16 or
// 17 digits and must fall back), random doubles across the plain range
// and its edges.
func TestAppendJavaDoubleFastPath(t *testing.T) {
	tenth, fifth := 0.1, 0.2 // variables: the constant 0.1 + 0.2 is exactly 0.3
	r := rand.New(rand.NewPCG(7, 7))
	var fs []float64
	for i := 0; i < 200000; i++ {
		d := r.IntN(18)
		f := float64(r.Int64N(int64(exactPow10[min(15, d+7)]))) / exactPow10[d]
		fs = append(fs, f, math.Nextafter(f, 0), math.Nextafter(f, math.Inf(1)))
	}
	for i := 0; i < 200000; i++ {
		fs = append(fs, math.Float64frombits(r.Uint64()), 1e-3+r.Float64()*1e7, r.Float64(), float64(r.Int64N(20000))/100)
	}
	for _, f := range []float64{1e-3, 1e7, 9999999.999999998, 9999999.99999999, 0.001, 0.0010000000000000002, 0.009999999999999998,
		0.01, 0.1, 0.3, 1, 10, 100, 1e6, 1234567.0, 999999.9999999999, tenth + fifth, 142.37, 37.40972181939523, 5e-324} {
		fs = append(fs, f, math.Nextafter(f, 0), math.Nextafter(f, 2e7))
	}
	fast := 0
	for _, f := range fs {
		for _, f := range []float64{f, -f} {
			got, ok := appendShortPlainDouble(nil, f)
			if !ok {
				continue
			}
			fast++
			if want := appendJavaDouble(nil, f, 64); string(got) != string(want) {
				t.Fatalf("%v (bits %#x): fast path %s, general path %s", f, math.Float64bits(f), got, want)
			}
		}
	}
	if fast < len(fs)/2 {
		t.Fatalf("the fast path took %d of %d doubles; the test means to exercise it", fast, 2*len(fs))
	}
	for _, c := range []struct {
		f    float64
		want string
	}{{142.37, "142.37"}, {-0.001, "-0.001"}, {100, "100.0"}, {1e7, "1.0E7"}, {9999999.0, "9999999.0"}, {tenth + fifth, "0.30000000000000004"}, {1234567.125, "1234567.125"}} {
		if got := string(AppendJavaDouble(nil, c.f, 64)); got != c.want {
			t.Errorf("AppendJavaDouble(%v) = %s, want %s", c.f, got, c.want)
		}
	}
}

// BenchmarkAppendJavaDouble prints amounts with two decimals, as the
// benchmark job's output has them, and 16-digit doubles (the general
// path), each also through the general path alone.
func BenchmarkAppendJavaDouble(b *testing.B) {
	for _, c := range []struct {
		name string
		f    float64
	}{{"amount", 142.37}, {"long", 37.40972181939523}} {
		b.Run(c.name, func(b *testing.B) {
			var buf []byte
			for b.Loop() {
				buf = AppendJavaDouble(buf[:0], c.f, 64)
			}
		})
		b.Run(c.name+"-general", func(b *testing.B) {
			var buf []byte
			for b.Loop() {
				buf = appendJavaDouble(buf[:0], c.f, 64)
			}
		})
	}
}

// FuzzParseTimestampFixed checks ParseTimestamp's fast path against its
// general path: wherever the fast path reads a timestamp, the general
// path reads the same one.
func FuzzParseTimestampFixed(f *testing.F) {
	for _, s := range []string{"2026-12-07 01:02:03", "1970-01-01 00:00:00.001", "2020-02-29T23:59:59.123456789Z",
		"0000-01-01 00:00:00", "2021-02-29 00:00:00", "2020-01-01 24:00:00", "2020-01-01 00:00:00.", "9999-12-31 23:59:59.9999999999"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, sep := range []byte{' ', 'T'} {
			for _, zone := range []bool{false, true} {
				fast, ok := parseTimestampFixed(b, sep, zone)
				if !ok {
					continue
				}
				slow, err := parseTimestamp(b, sep, zone)
				if err != nil || slow != fast {
					t.Fatalf("%q (sep %q, zone %v): fast path %v, general path %v, %v", b, sep, zone, fast, slow, err)
				}
			}
		}
	})
}

func TestParseTimestampFixed(t *testing.T) {
	for _, c := range []struct {
		in   string
		sep  byte
		zone bool
		ok   bool
	}{
		{"2026-12-07 01:02:03", ' ', false, true}, {"1970-01-01 00:00:00.001", ' ', false, true},
		{"2020-02-29T23:59:59.123456789Z", 'T', true, true}, {"2021-02-29 00:00:00", ' ', false, false},
		{"2020-01-01 24:00:00", ' ', false, false}, {"2020-01-01 00:00:00.", ' ', false, false},
		{"2020-01-01 00:00:00.1234567890", ' ', false, false}, {"2020-01-01T00:00:00", ' ', false, false},
		{"2020-01-01 00:00:00", ' ', true, false}, {"+2020-01-01 00:00:00", ' ', false, false},
		{"2020-01-01 0:00:00", ' ', false, false}, {"2020-01-01 00:00", ' ', false, false},
	} {
		fast, ok := parseTimestampFixed([]byte(c.in), c.sep, c.zone)
		if ok != c.ok {
			t.Errorf("parseTimestampFixed(%q) ok = %v, want %v", c.in, ok, c.ok)
			continue
		}
		if ok {
			slow, err := parseTimestamp([]byte(c.in), c.sep, c.zone)
			if err != nil || slow != fast {
				t.Errorf("%q: fast %v, general %v, %v", c.in, fast, slow, err)
			}
		}
	}
}

// checkMemo feeds the timestamps of ins, in order, to one TimestampMemo
// and checks each result against ParseTimestamp's.
func checkMemo(t *testing.T, ins []string, sep byte, zone bool) {
	t.Helper()
	var m TimestampMemo
	for _, in := range ins {
		if !zone {
			checkQuoted(t, &m, in, sep)
		}
		got, gerr := m.Parse([]byte(in), sep, zone)
		want, werr := ParseTimestamp([]byte(in), sep, zone)
		if got != want || (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
			t.Fatalf("%q (sep %q, zone %v, after %q): memo %v, %v; ParseTimestamp %v, %v", in, sep, zone, ins, got, gerr, want, werr)
		}
	}
}

// checkQuoted checks Quoted on in as a JSON string (quoted, followed by
// more of a record, unterminated, with an escape in its seconds):
// when it reads one, its length must end at the first quote after the
// opening one, the content between them must need no unescaping, and
// ParseTimestamp of that content must give the same timestamp; it must
// leave the memory alone.
func checkQuoted(t *testing.T, m *TimestampMemo, in string, sep byte) {
	t.Helper()
	before := *m
	for _, q := range []string{`"` + in + `"`, `"` + in + `","k":1}`, `"` + in, `"` + strings.Replace(in, ":", `:`, 1) + `"`,
		`"` + strings.Replace(in, "5", `5`, 1) + `"`} {
		ts, n, ok := m.Quoted([]byte(q), sep)
		if *m != before {
			t.Fatalf("Quoted(%q) changed the memory", q)
		}
		if !ok {
			continue
		}
		if n < 2 || n > len(q) || q[n-1] != '"' || strings.ContainsFunc(q[1:n-1], func(r rune) bool { return r == '"' || r == '\\' || r < 0x20 }) {
			t.Fatalf("Quoted(%q) (sep %q) = %v, %d: not a string without escapes", q, sep, ts, n)
		}
		content := q[1 : n-1]
		want, err := ParseTimestamp([]byte(content), sep, false)
		if err != nil || ts != want {
			t.Fatalf("Quoted(%q) (sep %q) = %v, %d; ParseTimestamp(%q) = %v, %v", q, sep, ts, n, content, want, err)
		}
	}
}

// TestTimestampMemo runs timestamps of one minute, of the next, invalid
// ones among them (a bad second or fraction after a remembered minute,
// another separator) and the general forms through a TimestampMemo.
func TestTimestampMemo(t *testing.T) {
	ins := []string{
		"2026-12-07 01:02:03", "2026-12-07 01:02:04.5", "2026-12-07 01:02:59.999999999", "2026-12-07 01:02:60",
		"2026-12-07 01:02:5", "2026-12-07 01:02:05.", "2026-12-07 01:02:05.1234567890", "2026-12-07 01:02:05x",
		"2026-12-07T01:02:03", "2026-12-07 01:03:00", "2026-12-07 01:02:03", "1969-12-31 23:59:59.999",
		"1969-12-31 23:59:00.5", "2026-12-07 1:02:03", "2026-12-07 01:02", "", "2026-12-07 01:02:03Z",
		"2020-02-29 23:59:59", "2021-02-29 23:59:59", "0001-01-01 00:00:00.000000001",
	}
	for _, sep := range []byte{' ', 'T'} {
		for _, zone := range []bool{false, true} {
			var withZone []string
			for _, in := range ins {
				if zone {
					in += "Z"
				}
				withZone = append(withZone, in)
			}
			checkMemo(t, withZone, sep, zone)
		}
	}
	// Every second and fraction width after one remembered minute.
	var same []string
	for s := range 62 {
		for k := range 11 {
			in := fmt.Sprintf("2026-12-07 23:59:%02d", s)
			if k > 0 {
				in += "." + strings.Repeat("7", k)
			}
			same = append(same, in)
		}
	}
	checkMemo(t, same, ' ', false)
}

// FuzzTimestampMemo checks TimestampMemo.Parse against ParseTimestamp on
// sequences of timestamps (the input split at '|'), for both separators,
// with and without a zone.
func FuzzTimestampMemo(f *testing.F) {
	f.Add([]byte("2026-12-07 01:02:03|2026-12-07 01:02:04.5|2026-12-07 01:02:61|2026-12-07T01:02:03"))
	f.Add([]byte("2020-02-29T23:59:59.123456789Z|2020-02-29T23:59:00Z|2020-02-29T23:59:00.Z"))
	f.Add([]byte("1969-12-31 23:59:59.999|1969-12-31 23:59:00.000000001|1969-12-31 23:59"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ins := strings.Split(string(b), "|")
		for _, sep := range []byte{' ', 'T'} {
			for _, zone := range []bool{false, true} {
				checkMemo(t, ins, sep, zone)
			}
		}
	})
}

// benchTimestamps are timestamps of one minute, as a time-ordered
// stream's (Nexmark's events) arrive.
var benchTimestamps = [][]byte{[]byte("2015-07-15 00:00:01.123"), []byte("2015-07-15 00:00:01.124"), []byte("2015-07-15 00:00:02")}

// BenchmarkParseTimestamp and BenchmarkTimestampMemo read benchTimestamps
// in turn, without and with a memory of the minute.
func BenchmarkParseTimestamp(b *testing.B) {
	i := 0
	for b.Loop() {
		if _, err := ParseTimestamp(benchTimestamps[i%len(benchTimestamps)], ' ', false); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkTimestampMemo(b *testing.B) {
	var m TimestampMemo
	i := 0
	for b.Loop() {
		if _, err := m.Parse(benchTimestamps[i%len(benchTimestamps)], ' ', false); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
