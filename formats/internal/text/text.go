// Package text holds the textual encodings that Flink's json and csv formats
// share: ISO dates, times and timestamps as java.time prints them, Java's
// Double.toString and BigDecimal.toString, and allocation-free parsers of
// numbers from bytes.
package text

import (
	"encoding/binary"
	"errors"
	"math"
	"math/big"
	"strconv"
	"unsafe"

	"github.com/streamsql/streamsql/internal/javatime"
	"github.com/streamsql/streamsql/types"
)

// Errors returned by the parsers; callers wrap them with the field and
// offset.
var (
	ErrSyntax = errors.New("invalid syntax")
	ErrRange  = errors.New("value out of range")
)

// UnsafeString returns b as a string without copying. The result must not
// outlive b's next modification; use it only for transient parsing.
func UnsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

func pad(dst []byte, v int64, width int) []byte {
	var buf [20]byte
	i := len(buf)
	for v > 0 || i == len(buf) {
		i--
		buf[i] = byte('0' + v%10)
		v /= 10
	}
	for n := len(buf) - i; n < width; n++ {
		dst = append(dst, '0')
	}
	return append(dst, buf[i:]...)
}

// AppendDate appends days since the epoch as ISO_LOCAL_DATE (yyyy-MM-dd;
// years beyond 9999 get a '+', negative years a '-', as java.time prints).
func AppendDate(dst []byte, days int64) []byte {
	y, m, d := javatime.CivilFromDays(days)
	switch {
	case y > 9999:
		dst = append(dst, '+')
		dst = pad(dst, y, 4)
	case y < 0:
		dst = append(dst, '-')
		dst = pad(dst, -y, 4)
	default:
		dst = pad(dst, y, 4)
	}
	dst = append(dst, '-')
	dst = pad(dst, m, 2)
	dst = append(dst, '-')
	return pad(dst, d, 2)
}

// AppendTime appends nanoseconds of the day as ISO_LOCAL_TIME: HH:mm:ss and,
// when the nanoseconds are not zero and fraction is set, a fraction with
// trailing zeros removed.
func AppendTime(dst []byte, nanos int64, fraction bool) []byte {
	sec := nanos / 1e9
	dst = pad(dst, sec/3600, 2)
	dst = append(dst, ':')
	dst = pad(dst, sec/60%60, 2)
	dst = append(dst, ':')
	dst = pad(dst, sec%60, 2)
	if ns := nanos % 1e9; fraction && ns != 0 {
		dst = appendFraction(dst, ns)
	}
	return dst
}

// appendFraction appends '.' and ns (0 < ns < 1e9) as nine digits
// without their trailing zeros.
func appendFraction(dst []byte, ns int64) []byte {
	dst = append(dst, '.')
	digits := 9
	for ns%10 == 0 {
		ns /= 10
		digits--
	}
	return pad(dst, ns, digits)
}

// AppendTimestamp appends ts as date, sep, time (with minimal fraction) and,
// if zone is set, a literal 'Z'.
func AppendTimestamp(dst []byte, ts types.Timestamp, sep byte, zone bool) []byte {
	days := javatime.FloorDiv(ts.Millis, javatime.MillisPerDay)
	msOfDay := ts.Millis - days*javatime.MillisPerDay
	dst = AppendDate(dst, days)
	dst = append(dst, sep)
	dst = AppendTime(dst, msOfDay*1e6+int64(ts.NanoOfMilli), true)
	if zone {
		dst = append(dst, 'Z')
	}
	return dst
}

// TimestampText remembers the text of the second AppendTimestamp printed
// last: a timestamp of the same second (rows in time order: every Nexmark
// event of a second) costs a copy of it and the fraction, not the
// calendar arithmetic. An encoder keeps one, used by one goroutine; the
// zero value is ready.
type TimestampText struct {
	sec  int64  // epoch seconds of text
	sep  byte   // the separator text was written with; 0: no second yet
	text []byte // "yyyy-MM-dd?HH:mm:ss"
}

// Append is AppendTimestamp(dst, ts, sep, zone).
func (m *TimestampText) Append(dst []byte, ts types.Timestamp, sep byte, zone bool) []byte {
	if ts.Millis < -1<<62 || ts.Millis > 1<<62 || ts.NanoOfMilli < 0 || ts.NanoOfMilli >= 1e6 {
		// Far from any second remembered, or not a nanosecond of a
		// millisecond: as it is.
		return AppendTimestamp(dst, ts, sep, zone)
	}
	sec := javatime.FloorDiv(ts.Millis, 1000)
	if m.sep != sep || m.sec != sec || sep == 0 {
		m.text = AppendTimestamp(m.text[:0], types.Timestamp{Millis: sec * 1000}, sep, false)
		m.sec, m.sep = sec, sep
	}
	dst = append(dst, m.text...)
	if ns := (ts.Millis-sec*1000)*1e6 + int64(ts.NanoOfMilli); ns != 0 {
		dst = appendFraction(dst, ns)
	}
	if zone {
		dst = append(dst, 'Z')
	}
	return dst
}

func digits(b []byte, n int) (int64, bool) {
	if len(b) < n {
		return 0, false
	}
	var v int64
	for i := 0; i < n; i++ {
		c := b[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// ParseDate parses an ISO date (yyyy-MM-dd, java.time's ISO_LOCAL_DATE)
// into days since the epoch.
func ParseDate(b []byte) (int64, error) {
	days, ok := javatime.ParseDate(UnsafeString(b), javatime.ISODate)
	if !ok {
		return 0, ErrSyntax
	}
	return days, nil
}

// ParseTime parses HH:mm:ss[.fffffffff] into nanoseconds of the day, as
// Flink's SQL time format does (seconds are required).
func ParseTime(b []byte) (int64, error) {
	return parseTimeFull(b, false)
}

func parseTimeFull(b []byte, optionalSeconds bool) (int64, error) {
	ns, n, err := parseTime(b)
	if err != nil || n != len(b) || (!optionalSeconds && n < 8) {
		return 0, ErrSyntax
	}
	return ns, nil
}

func parseTime(b []byte) (int64, int, error) {
	h, ok1 := digits(b, 2)
	if !ok1 || len(b) < 5 || b[2] != ':' {
		return 0, 0, ErrSyntax
	}
	mi, ok2 := digits(b[3:], 2)
	if !ok2 || h > 23 || mi > 59 {
		return 0, 0, ErrSyntax
	}
	n := 5
	var s, frac int64
	if n < len(b) && b[n] == ':' {
		var ok bool
		if s, ok = digits(b[n+1:], 2); !ok || s > 59 {
			return 0, 0, ErrSyntax
		}
		n += 3
		if n < len(b) && b[n] == '.' {
			n++
			k := 0
			for n < len(b) && b[n] >= '0' && b[n] <= '9' {
				if k == 9 {
					return 0, 0, ErrSyntax
				}
				frac = frac*10 + int64(b[n]-'0')
				k++
				n++
			}
			if k == 0 {
				return 0, 0, ErrSyntax
			}
			for ; k < 9; k++ {
				frac *= 10
			}
		}
	}
	return ((h*60+mi)*60+s)*1e9 + frac, n, nil
}

// ParseTimestamp parses date, sep, time and, if zone is set, a required
// trailing 'Z'. Seconds are optional with sep 'T' (java.time's
// ISO_LOCAL_TIME) and required otherwise (Flink's SQL format).
func ParseTimestamp(b []byte, sep byte, zone bool) (types.Timestamp, error) {
	if ts, ok := parseTimestampFixed(b, sep, zone); ok {
		return ts, nil
	}
	return parseTimestamp(b, sep, zone)
}

// parseTimestampFixed is ParseTimestamp's fast path for the form writers
// use (Flink's json format, the Nexmark events): a four-digit year,
// yyyy-MM-dd, sep, HH:mm:ss, then at most '.' and one to nine digits
// (and the 'Z' zone asks for), every field at a fixed place. It reports
// false for anything else, valid or not, which parseTimestamp then reads
// (FuzzParseTimestampFixed checks that both agree where it reports true).
func parseTimestampFixed(b []byte, sep byte, zone bool) (types.Timestamp, bool) {
	if zone {
		if len(b) == 0 || b[len(b)-1] != 'Z' {
			return types.Timestamp{}, false
		}
		b = b[:len(b)-1]
	}
	if len(b) < 19 || b[4] != '-' || b[7] != '-' || b[10] != sep || b[13] != ':' || b[16] != ':' {
		return types.Timestamp{}, false
	}
	y0, y1, y2, y3 := b[0]-'0', b[1]-'0', b[2]-'0', b[3]-'0'
	mo0, mo1, d0, d1 := b[5]-'0', b[6]-'0', b[8]-'0', b[9]-'0'
	h0, h1, mi0, mi1, s0, s1 := b[11]-'0', b[12]-'0', b[14]-'0', b[15]-'0', b[17]-'0', b[18]-'0'
	// Bytes below '0' wrap around to above 9.
	if y0 > 9 || y1 > 9 || y2 > 9 || y3 > 9 ||
		mo0 > 9 || mo1 > 9 || d0 > 9 || d1 > 9 || h0 > 9 || h1 > 9 || mi0 > 9 || mi1 > 9 || s0 > 9 || s1 > 9 {
		return types.Timestamp{}, false
	}
	y := int64(y0)*1000 + int64(y1)*100 + int64(y2)*10 + int64(y3)
	mo, d := int64(mo0)*10+int64(mo1), int64(d0)*10+int64(d1)
	h, mi, sec := int64(h0)*10+int64(h1), int64(mi0)*10+int64(mi1), int64(s0)*10+int64(s1)
	if mo < 1 || mo > 12 || d < 1 || d > javatime.DaysInMonth(y, mo) || h > 23 || mi > 59 || sec > 59 {
		return types.Timestamp{}, false
	}
	var frac int64
	if len(b) > 19 {
		f := b[20:]
		if b[19] != '.' || len(f) == 0 || len(f) > 9 {
			return types.Timestamp{}, false
		}
		for _, c := range f {
			if c-'0' > 9 {
				return types.Timestamp{}, false
			}
			frac = frac*10 + int64(c-'0')
		}
		frac *= pow10ns[len(f)]
	}
	ns := ((h*60+mi)*60+sec)*1e9 + frac
	return types.Timestamp{Millis: javatime.DaysFromCivil(y, mo, d)*86400000 + ns/1e6, NanoOfMilli: int32(ns % 1e6)}, true
}

// TimestampMemo is ParseTimestamp with a memory of the minute of the last
// timestamp it read in the fixed form (see parseTimestampFixed): a
// timestamp of the same "yyyy-MM-dd HH:mm" (records in time order: every
// Nexmark event of a minute) costs a 16-byte comparison and the seconds,
// not the calendar arithmetic. A decoder keeps one per field, used by one
// goroutine; the zero value is ready.
type TimestampMemo struct {
	// lo and hi are the bytes of "yyyy-MM-dd?HH:mm" of the minute
	// below, as two little-endian words.
	lo, hi uint64
	sep    byte  // the separator they were read with; 0: no minute yet
	minute int64 // epoch milliseconds of that minute
}

// Parse is ParseTimestamp(b, sep, zone), with the same results and errors.
func (m *TimestampMemo) Parse(b []byte, sep byte, zone bool) (types.Timestamp, error) {
	body := b
	if zone {
		if len(body) == 0 || body[len(body)-1] != 'Z' {
			return ParseTimestamp(b, sep, zone)
		}
		body = body[:len(body)-1]
	}
	if len(body) >= 19 && m.sep == sep && sep != 0 &&
		binary.LittleEndian.Uint64(body) == m.lo && binary.LittleEndian.Uint64(body[8:]) == m.hi {
		if ns, ok := fixedSeconds(body[16:]); ok {
			return types.Timestamp{Millis: m.minute + ns/1e6, NanoOfMilli: int32(ns % 1e6)}, nil
		}
	}
	ts, ok := parseTimestampFixed(b, sep, zone)
	if !ok {
		return ParseTimestamp(b, sep, zone)
	}
	// body is in the fixed form: its minute is ts less its seconds.
	ns, _ := fixedSeconds(body[16:])
	m.lo, m.hi = binary.LittleEndian.Uint64(body), binary.LittleEndian.Uint64(body[8:])
	m.sep = sep
	m.minute = ts.Millis - ns/1e6
	return ts, nil
}

// Quoted reads the JSON string at the start of b (its opening quote at
// b[0]) when it holds, without escapes, a timestamp without zone of the
// remembered minute: "yyyy-MM-dd?HH:mm:ss[.fraction]" and the closing
// quote. It returns the timestamp and the string's length with its
// quotes, and leaves the memory alone; ok is false for anything else
// (another minute, an escape, a malformed second), for which the caller
// takes its general path. When ok, Parse of the string's content would
// return the same timestamp: the remembered 16 bytes came from a valid
// timestamp and the seconds are digits, so the string has no escape.
func (m *TimestampMemo) Quoted(b []byte, sep byte) (ts types.Timestamp, n int, ok bool) {
	if len(b) < 21 || m.sep != sep || sep == 0 ||
		binary.LittleEndian.Uint64(b[1:]) != m.lo || binary.LittleEndian.Uint64(b[9:]) != m.hi {
		return types.Timestamp{}, 0, false
	}
	// ":ss", at most '.' and nine digits, then the quote.
	rest := b[17:min(len(b), 17+14)]
	j := 0
	for j < len(rest) && rest[j] != '"' {
		j++
	}
	if j == len(rest) {
		return types.Timestamp{}, 0, false
	}
	ns, ok := fixedSeconds(rest[:j])
	if !ok {
		return types.Timestamp{}, 0, false
	}
	return types.Timestamp{Millis: m.minute + ns/1e6, NanoOfMilli: int32(ns % 1e6)}, 17 + j + 1, true
}

// fixedSeconds reads ":ss" and at most '.' and one to nine digits, all of
// b, as parseTimestampFixed does, in nanoseconds.
func fixedSeconds(b []byte) (int64, bool) {
	if len(b) < 3 || b[0] != ':' {
		return 0, false
	}
	s0, s1 := b[1]-'0', b[2]-'0'
	if s0 > 5 || s1 > 9 {
		return 0, false
	}
	ns := (int64(s0)*10 + int64(s1)) * 1e9
	if len(b) == 3 {
		return ns, true
	}
	f := b[4:]
	if b[3] != '.' || len(f) == 0 || len(f) > 9 {
		return 0, false
	}
	var frac int64
	for _, c := range f {
		if c-'0' > 9 {
			return 0, false
		}
		frac = frac*10 + int64(c-'0')
	}
	return ns + frac*pow10ns[len(f)], true
}

// pow10ns[k] scales a fraction of k digits to nanoseconds.
var pow10ns = [10]int64{1e9, 1e8, 1e7, 1e6, 1e5, 1e4, 1e3, 1e2, 1e1, 1}

// parseTimestamp is ParseTimestamp's general path.
func parseTimestamp(b []byte, sep byte, zone bool) (types.Timestamp, error) {
	days, n, ok := javatime.ParseDatePrefix(UnsafeString(b), javatime.ISODate)
	if !ok || n >= len(b) || b[n] != sep {
		return types.Timestamp{}, ErrSyntax
	}
	rest := b[n+1:]
	if zone {
		if len(rest) == 0 || rest[len(rest)-1] != 'Z' {
			return types.Timestamp{}, ErrSyntax
		}
		rest = rest[:len(rest)-1]
	}
	ns, err := parseTimeFull(rest, sep == 'T')
	if err != nil {
		return types.Timestamp{}, err
	}
	return types.Timestamp{Millis: days*86400000 + ns/1e6, NanoOfMilli: int32(ns % 1e6)}, nil
}

// AppendJavaDouble appends f as Java's Double.toString (bits 64) or
// Float.toString (bits 32) prints it: plain notation with at least one
// fractional digit for 1e-3 <= |f| < 1e7, else computerized scientific
// notation such as 1.0E10 or 1.234E-5; NaN and Infinity by name.
func AppendJavaDouble(dst []byte, f float64, bits int) []byte {
	if bits == 64 {
		if out, ok := appendShortPlainDouble(dst, f); ok {
			return out
		}
	}
	return appendJavaDouble(dst, f, bits)
}

// appendShortPlainDouble is AppendJavaDouble's fast path for a double in
// the plain range (1e-3 <= |f| < 1e7) whose shortest decimal has at most
// 15 significant digits, such as an amount with two decimals; ok is false
// for any other f, which the general path then prints.
//
// It rounds |f| to 15 significant digits, m·10^-k, and checks that this
// decimal reads back as f (m and 10^k are exact doubles, so the division
// is the correctly rounded reading). Two different decimals of at most 15
// significant digits never read as the same double (DBL_DIG is 15), so m
// without its trailing zeros is then the shortest decimal that reads as f:
// the digits strconv's shortest formatting, and Java's, would print.
func appendShortPlainDouble(dst []byte, f float64) ([]byte, bool) {
	a := math.Abs(f)
	if !(a >= 1e-3 && a < 1e7) {
		return dst, false
	}
	// k fractional digits give 15 significant ones.
	k := 15
	switch {
	case a >= 1:
		for p := 1; p < 8 && a >= exactPow10[p]; p++ {
			k--
		}
		k--
	case a < 1e-2:
		k = 17
	case a < 1e-1:
		k = 16
	}
	m := math.Round(a * exactPow10[k])
	if m >= 1e15 || m/exactPow10[k] != a {
		return dst, false
	}
	u := uint64(m)
	// Drop the fractional trailing zeros (at most 14: m has a non-zero
	// digit); constant divisors, which compile to multiplications.
	if k >= 8 && u%1e8 == 0 {
		u /= 1e8
		k -= 8
	}
	if k >= 4 && u%1e4 == 0 {
		u /= 1e4
		k -= 4
	}
	if k >= 2 && u%100 == 0 {
		u /= 100
		k -= 2
	}
	if k >= 1 && u%10 == 0 {
		u /= 10
		k--
	}
	if f < 0 {
		dst = append(dst, '-')
	}
	var buf [20]byte
	ds := strconv.AppendUint(buf[:0], u, 10)
	if n := len(ds) - k; n > 0 {
		dst = append(dst, ds[:n]...)
		ds = ds[n:]
	} else {
		dst = append(dst, '0', '.')
		for ; n < 0; n++ {
			dst = append(dst, '0')
		}
		return append(dst, ds...), true
	}
	if k == 0 {
		return append(dst, '.', '0'), true
	}
	dst = append(dst, '.')
	return append(dst, ds...), true
}

// appendJavaDouble is AppendJavaDouble's general path.
func appendJavaDouble(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	case f == 0:
		if math.Signbit(f) {
			return append(dst, "-0.0"...)
		}
		return append(dst, "0.0"...)
	}
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, bits) // -d.dddde±XX
	neg := e[0] == '-'
	if neg {
		e = e[1:]
		dst = append(dst, '-')
	}
	ei := 0
	for e[ei] != 'e' {
		ei++
	}
	mant := e[:ei]
	exp, _ := strconv.Atoi(string(e[ei+1:]))
	var ds [24]byte
	nd := 0
	for _, c := range mant {
		if c != '.' {
			ds[nd] = c
			nd++
		}
	}
	d := ds[:nd]
	abs := math.Abs(f)
	if abs >= 1e-3 && abs < 1e7 {
		if exp >= 0 {
			intLen := exp + 1
			for i := 0; i < intLen; i++ {
				if i < len(d) {
					dst = append(dst, d[i])
				} else {
					dst = append(dst, '0')
				}
			}
			dst = append(dst, '.')
			if intLen < len(d) {
				dst = append(dst, d[intLen:]...)
			} else {
				dst = append(dst, '0')
			}
			return dst
		}
		dst = append(dst, '0', '.')
		for i := 0; i < -exp-1; i++ {
			dst = append(dst, '0')
		}
		return append(dst, d...)
	}
	dst = append(dst, d[0], '.')
	if len(d) > 1 {
		dst = append(dst, d[1:]...)
	} else {
		dst = append(dst, '0')
	}
	dst = append(dst, 'E')
	return strconv.AppendInt(dst, int64(exp), 10)
}

// AppendDecimal appends d as Java's BigDecimal.toString (plain false:
// scientific notation when the scale is negative or the adjusted exponent
// is below -6) or toPlainString (plain true).
func AppendDecimal(dst []byte, d types.Decimal, plain bool) []byte {
	var digitsBuf [40]byte
	var ds []byte
	neg := d.Sign() < 0
	if u, ok := d.UnscaledInt64(); ok {
		if u < 0 {
			ds = strconv.AppendUint(digitsBuf[:0], uint64(-u), 10)
			if u == math.MinInt64 {
				ds = strconv.AppendUint(digitsBuf[:0], 1<<63, 10)
			}
		} else {
			ds = strconv.AppendUint(digitsBuf[:0], uint64(u), 10)
		}
	} else {
		ds = new(big.Int).Abs(d.Unscaled()).Append(digitsBuf[:0], 10)
	}
	scale := d.Scale()
	if neg {
		dst = append(dst, '-')
	}
	adjusted := len(ds) - 1 - scale
	if plain || (scale >= 0 && adjusted >= -6) {
		switch {
		case scale <= 0:
			dst = append(dst, ds...)
			for i := 0; i < -scale; i++ {
				dst = append(dst, '0')
			}
		case len(ds) > scale:
			dst = append(dst, ds[:len(ds)-scale]...)
			dst = append(dst, '.')
			dst = append(dst, ds[len(ds)-scale:]...)
		default:
			dst = append(dst, '0', '.')
			for i := 0; i < scale-len(ds); i++ {
				dst = append(dst, '0')
			}
			dst = append(dst, ds...)
		}
		return dst
	}
	dst = append(dst, ds[0])
	if len(ds) > 1 {
		dst = append(dst, '.')
		dst = append(dst, ds[1:]...)
	}
	dst = append(dst, 'E')
	if adjusted >= 0 {
		dst = append(dst, '+')
	}
	return strconv.AppendInt(dst, int64(adjusted), 10)
}

// StripTrailingZeros returns d with trailing zeros of its unscaled value
// removed (the scale may become negative), and zero as 0 with scale 0, as
// Java's BigDecimal.stripTrailingZeros (which Jackson applies to decimal
// nodes).
func StripTrailingZeros(d types.Decimal) types.Decimal {
	if d.Sign() == 0 {
		return types.NewDecimal(0, 0)
	}
	scale := d.Scale()
	if u, ok := d.UnscaledInt64(); ok {
		for u%10 == 0 {
			u /= 10
			scale--
		}
		return types.NewDecimal(u, scale)
	}
	u := d.Unscaled()
	ten := big.NewInt(10)
	q, r := new(big.Int), new(big.Int)
	for {
		q.QuoRem(u, ten, r)
		if r.Sign() != 0 {
			break
		}
		u.Set(q)
		scale--
	}
	return types.NewDecimalBig(u, scale)
}

// ParseInt parses an optionally signed decimal integer within [lo, hi].
func ParseInt(b []byte, lo, hi int64) (int64, error) {
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		i = 1
	}
	if i == len(b) {
		return 0, ErrSyntax
	}
	var u uint64
	for ; i < len(b); i++ {
		c := b[i]
		if c < '0' || c > '9' {
			return 0, ErrSyntax
		}
		if u > (math.MaxUint64-9)/10 {
			return 0, ErrRange
		}
		u = u*10 + uint64(c-'0')
	}
	var v int64
	if neg {
		if u > 1<<63 {
			return 0, ErrRange
		}
		v = -int64(u)
	} else {
		if u > math.MaxInt64 {
			return 0, ErrRange
		}
		v = int64(u)
	}
	if v < lo || v > hi {
		return 0, ErrRange
	}
	return v, nil
}

var pow10 = [19]int64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18}

// ParseDecimal parses a decimal number (plain or scientific) and rescales it
// to DECIMAL(precision, scale), rounding half-up as Flink does. Numbers of up
// to 18 digits in plain notation take an allocation-free path. It returns
// ErrRange (wrapping types.ErrDecimalOverflow) when the value does not fit.
func ParseDecimal(b []byte, precision, scale int) (types.Decimal, error) {
	if d, ok := fastDecimal(b, precision, scale); ok {
		return d, nil
	}
	d, err := types.ParseDecimal(string(b))
	if err != nil {
		return types.Decimal{}, ErrSyntax
	}
	r, err := d.Rescale(precision, scale)
	if err != nil {
		return types.Decimal{}, ErrRange
	}
	return r, nil
}

func fastDecimal(b []byte, precision, scale int) (types.Decimal, bool) {
	if scale > 18 || precision > 18 {
		return types.Decimal{}, false
	}
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		i++
	}
	var u int64
	nd, frac, dot, seen := 0, 0, false, false
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			if nd == 18 {
				return types.Decimal{}, false
			}
			if u != 0 || c != '0' {
				nd++
			}
			u = u*10 + int64(c-'0')
			seen = true
			if dot {
				frac++
			}
		case c == '.' && !dot:
			dot = true
		default:
			return types.Decimal{}, false
		}
	}
	if !seen {
		return types.Decimal{}, false
	}
	if frac-scale >= len(pow10) {
		// More fraction digits (leading zeros, which nd does not count)
		// than the table covers: the slow path rounds them.
		return types.Decimal{}, false
	}
	if frac > scale {
		// Round half-up dropping frac-scale digits.
		div := pow10[frac-scale]
		q, r := u/div, u%div
		if r*2 >= div {
			q++
		}
		u = q
	} else if frac < scale {
		m := pow10[scale-frac]
		if u > math.MaxInt64/m {
			return types.Decimal{}, false
		}
		u *= m
	}
	if u >= pow10[precision] {
		return types.Decimal{}, false // the slow path reports the overflow
	}
	if neg {
		u = -u
	}
	return types.NewDecimal(u, scale), true
}

// exactPow10 are the powers of ten a float64 holds exactly.
var exactPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// ExactDecimal returns the float64 nearest to m·10^-frac (negated when
// neg), correctly rounded as strconv.ParseFloat would give it, when m is
// at most 2^53 and frac at most 22: m and the power of ten are then exact
// float64s and one IEEE division rounds their quotient correctly. ok is
// false otherwise.
func ExactDecimal(m uint64, frac int, neg bool) (f float64, ok bool) {
	if m > 1<<53 || frac < 0 || frac >= len(exactPow10) {
		return 0, false
	}
	f = float64(m) / exactPow10[frac]
	if neg {
		f = -f
	}
	return f, true
}

// ParseFloat64 returns what strconv.ParseFloat(string(b), 64) returns,
// faster for the common plain decimals ([-]digits[.digits]) whose digits,
// read as one integer, are at most 2^53 with at most 22 of them after the
// point: that integer and the power of ten are then exact float64s, and
// one IEEE division rounds their quotient correctly, as ParseFloat does.
// Everything else goes to strconv.
func ParseFloat64(b []byte) (float64, error) {
	i, neg := 0, false
	if len(b) > 0 && b[0] == '-' {
		i, neg = 1, true
	}
	var m uint64
	start, frac, point := i, 0, false
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			if m > 1<<53 {
				return strconv.ParseFloat(UnsafeString(b), 64)
			}
			m = m*10 + uint64(c-'0')
			if point {
				frac++
			}
		case c == '.' && !point:
			point = true
		default:
			return strconv.ParseFloat(UnsafeString(b), 64)
		}
	}
	digits := i - start
	if point {
		digits--
	}
	if digits == 0 {
		return strconv.ParseFloat(UnsafeString(b), 64)
	}
	if f, ok := ExactDecimal(m, frac, neg); ok {
		return f, nil
	}
	return strconv.ParseFloat(UnsafeString(b), 64)
}
