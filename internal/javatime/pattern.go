package javatime

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/streamsql/streamsql/types"
)

// Pattern is a compiled Java date-time pattern ('yyyy-MM-dd HH:mm:ss'),
// the patterns of DATE_FORMAT, TO_TIMESTAMP, FROM_UNIXTIME and
// UNIX_TIMESTAMP. Supported letters: y (year), M (month: M, MM, MMM,
// MMMM), d (day), D (day of year), H (0-23), h (1-12), k (1-24), K (0-11),
// m, s, S (fraction of second), a (AM/PM), E (day name: E..EEE, EEEE), Z
// (+0800), X/XX/XXX (Z or +08, +0800, +08:00) and x/xx/xxx; text in single
// quotes (” for a quote) and any other non-letter is literal.
type Pattern struct {
	toks []fmtTok
	// zoned is set when the pattern prints a zone or offset (Z, X, x),
	// which DATE_FORMAT cannot do: it formats a date-time without a zone.
	zoned bool
	// dateOnly is set when every field the pattern prints is one of the
	// date's (y, u, M, L, d, D, E): two times of one day print the same.
	dateOnly bool
	// span is Span's answer.
	span int64
	// size is about the longest text Format prints (Format grows its
	// buffer once).
	size int
}

type fmtTok struct {
	letter byte // 0 for literal
	count  int
	lit    string
}

// Compile compiles a Java date-time pattern. It fails on an unterminated
// quote or a pattern letter outside the supported set.
func Compile(p string) (*Pattern, error) {
	f := &Pattern{dateOnly: true, span: 86400}
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\'':
			j := i + 1
			var sb strings.Builder
			for {
				if j >= len(p) {
					return nil, fmt.Errorf("unterminated quote in date format %q", p)
				}
				if p[j] == '\'' {
					if j+1 < len(p) && p[j+1] == '\'' {
						sb.WriteByte('\'')
						j += 2
						continue
					}
					break
				}
				sb.WriteByte(p[j])
				j++
			}
			if j == i+1 {
				sb.WriteByte('\'') // '' is a quote
			}
			f.toks = append(f.toks, fmtTok{lit: sb.String()})
			i = j + 1
		case (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'):
			j := i
			for j < len(p) && p[j] == c {
				j++
			}
			if !strings.ContainsRune("yuMLdDHhkKmsSaEZXxn", rune(c)) {
				return nil, fmt.Errorf("unsupported pattern letter %q in date format %q", c, p)
			}
			f.toks = append(f.toks, fmtTok{letter: c, count: j - i})
			f.zoned = f.zoned || c == 'Z' || c == 'X' || c == 'x'
			f.dateOnly = f.dateOnly && strings.IndexByte("yuMLdDE", c) >= 0
			switch {
			case strings.IndexByte("yuMLdDE", c) >= 0:
			case strings.IndexByte("HhkKa", c) >= 0:
				f.span = min(f.span, 3600)
			case c == 'm':
				f.span = min(f.span, 60)
			case c == 's':
				f.span = min(f.span, 1)
			default: // fractions of a second, zones
				f.span = 0
			}
			i = j
		default:
			f.toks = append(f.toks, fmtTok{lit: string(c)})
			i++
		}
	}
	for _, tk := range f.toks {
		f.size += tk.size()
	}
	return f, nil
}

// size is about the longest text the token prints.
func (tk fmtTok) size() int {
	switch tk.letter {
	case 0:
		return len(tk.lit)
	case 'y', 'u':
		return max(tk.count, 4)
	case 'M', 'L', 'E':
		if tk.count >= 3 {
			return 9 // September, Wednesday
		}
	case 'Z', 'X', 'x':
		return 6
	}
	return max(tk.count, 2)
}

// Zoned reports whether the pattern prints a zone or offset (Z, X, x),
// which DATE_FORMAT cannot do: it formats a date-time without a zone.
func (f *Pattern) Zoned() bool { return f.zoned }

// DateOnly reports whether the pattern prints fields of the date only
// (y, u, M, L, d, D, E, and literals): Format prints the same for any two
// times of one day.
func (f *Pattern) DateOnly() bool { return f.dateOnly }

// Span returns the length in seconds of the periods of wall-clock time
// (days, hours, minutes or seconds, counted from the epoch's midnight)
// within which Format prints the same text for any two times: 86400 for
// a date-only pattern, 3600 when its finest field is the hour (or AM/PM),
// 60 for minutes, 1 for seconds, and 0 when it prints fractions of a
// second or a zone.
func (f *Pattern) Span() int64 { return f.span }

// Format prints t (its wall clock and zone) with the pattern.
func (f *Pattern) Format(t time.Time) string {
	var sb strings.Builder
	sb.Grow(f.size)
	for _, tk := range f.toks {
		if tk.letter == 0 {
			sb.WriteString(tk.lit)
			continue
		}
		n := tk.count
		switch tk.letter {
		case 'y', 'u':
			if n == 2 {
				writePad(&sb, t.Year()%100, 2)
			} else {
				writePad(&sb, t.Year(), n)
			}
		case 'M', 'L':
			switch {
			case n >= 4:
				sb.WriteString(t.Month().String())
			case n == 3:
				sb.WriteString(t.Month().String()[:3])
			default:
				writePad(&sb, int(t.Month()), n)
			}
		case 'd':
			writePad(&sb, t.Day(), n)
		case 'D':
			writePad(&sb, t.YearDay(), n)
		case 'H':
			writePad(&sb, t.Hour(), n)
		case 'k':
			h := t.Hour()
			if h == 0 {
				h = 24
			}
			writePad(&sb, h, n)
		case 'h':
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			writePad(&sb, h, n)
		case 'K':
			writePad(&sb, t.Hour()%12, n)
		case 'm':
			writePad(&sb, t.Minute(), n)
		case 's':
			writePad(&sb, t.Second(), n)
		case 'S':
			fr := Pad(t.Nanosecond(), 9)
			if n <= 9 {
				sb.WriteString(fr[:n])
			} else {
				sb.WriteString(fr + strings.Repeat("0", n-9))
			}
		case 'n':
			writePad(&sb, t.Nanosecond(), n)
		case 'a':
			if t.Hour() < 12 {
				sb.WriteString("AM")
			} else {
				sb.WriteString("PM")
			}
		case 'E':
			if n >= 4 {
				sb.WriteString(t.Weekday().String())
			} else {
				sb.WriteString(t.Weekday().String()[:3])
			}
		case 'Z':
			_, off := t.Zone()
			sb.WriteString(formatOffset(off, false, false))
		case 'X', 'x':
			_, off := t.Zone()
			if off == 0 && tk.letter == 'X' {
				sb.WriteByte('Z')
				continue
			}
			if n == 1 {
				s := formatOffset(off, false, false)
				if s[3:] == "00" {
					s = s[:3]
				}
				sb.WriteString(s)
			} else {
				sb.WriteString(formatOffset(off, n >= 3, false))
			}
		}
	}
	return sb.String()
}

func formatOffset(off int, colon, _ bool) string {
	sign := "+"
	if off < 0 {
		sign = "-"
		off = -off
	}
	sep := ""
	if colon {
		sep = ":"
	}
	return sign + Pad(off/3600, 2) + sep + Pad(off/60%60, 2)
}

// Fields holds the fields read by [Pattern.Parse].
type Fields struct {
	year, month, day, yday   int
	hour, minute, sec, nanos int
	pm, hasAMPM, hasOffset   bool
	offsetSecs               int
}

func isNumericLetter(c byte) bool {
	return strings.IndexByte("yuMLdDHhkKmsSn", c) >= 0
}

// Parse reads s with the pattern; the whole of s must match.
func (f *Pattern) Parse(s string) (Fields, bool) {
	p := Fields{year: 1970, month: 1, day: 1}
	pos := 0
	for ti, tk := range f.toks {
		if tk.letter == 0 {
			if !strings.HasPrefix(s[pos:], tk.lit) {
				return p, false
			}
			pos += len(tk.lit)
			continue
		}
		if tk.letter == 'M' && tk.count >= 3 || tk.letter == 'L' && tk.count >= 3 {
			ok := false
			for m := time.January; m <= time.December; m++ {
				name := m.String()
				if tk.count == 3 {
					name = name[:3]
				}
				if strings.HasPrefix(strings.ToLower(s[pos:]), strings.ToLower(name)) {
					p.month, pos, ok = int(m), pos+len(name), true
					break
				}
			}
			if !ok {
				return p, false
			}
			continue
		}
		switch tk.letter {
		case 'a':
			switch {
			case strings.HasPrefix(strings.ToUpper(s[pos:]), "AM"):
			case strings.HasPrefix(strings.ToUpper(s[pos:]), "PM"):
				p.pm = true
			default:
				return p, false
			}
			p.hasAMPM = true
			pos += 2
			continue
		case 'E':
			ok := false
			for d := time.Sunday; d <= time.Saturday; d++ {
				name := d.String()
				if tk.count < 4 {
					name = name[:3]
				}
				if strings.HasPrefix(strings.ToLower(s[pos:]), strings.ToLower(name)) {
					pos, ok = pos+len(name), true
					break
				}
			}
			if !ok {
				return p, false
			}
			continue
		case 'Z', 'X', 'x':
			n, off, ok := parseOffset(s[pos:])
			if !ok {
				return p, false
			}
			p.hasOffset, p.offsetSecs = true, off
			pos += n
			continue
		}
		// Numeric field: fixed width when the count is at least 2 (the
		// year excepted), or when the next token is also numeric
		// (adjacent value parsing); otherwise as many digits as present.
		minW, maxW := tk.count, tk.count
		adjacent := ti+1 < len(f.toks) && f.toks[ti+1].letter != 0 && isNumericLetter(f.toks[ti+1].letter)
		if tk.count == 1 || ((tk.letter == 'y' || tk.letter == 'u') && tk.count != 2) {
			minW, maxW = tk.count, 19
			if adjacent {
				maxW = max(tk.count, 4)
				if tk.count == 1 && tk.letter != 'y' && tk.letter != 'u' {
					maxW = 2
				}
			}
		}
		if tk.letter == 'S' {
			// Flink accepts fewer fraction digits than the pattern has
			// ('.5' for SSS) unless another number follows directly.
			minW, maxW = 1, 9
			if adjacent {
				minW, maxW = tk.count, tk.count
			}
		}
		j := pos
		for j < len(s) && j-pos < maxW && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j-pos < minW {
			return p, false
		}
		digits := s[pos:j]
		pos = j
		v, err := strconv.Atoi(digits)
		if err != nil {
			return p, false
		}
		switch tk.letter {
		case 'y', 'u':
			if tk.count == 2 {
				v += 2000
			}
			p.year = v
		case 'M', 'L':
			p.month = v
		case 'd':
			p.day = v
		case 'D':
			p.yday = v
		case 'H', 'k':
			p.hour = v
			if tk.letter == 'k' && v == 24 {
				p.hour = 0
			}
		case 'h', 'K':
			p.hour = v % 12
		case 'm':
			p.minute = v
		case 's':
			p.sec = v
		case 'S':
			for k := len(digits); k < 9; k++ {
				v *= 10
			}
			p.nanos = v
		case 'n':
			p.nanos = v
		}
	}
	if pos != len(s) {
		return p, false
	}
	if p.hasAMPM && p.pm {
		p.hour += 12
	}
	if p.month < 1 || p.month > 12 || p.day < 1 || p.day > DaysInMonth(p.year, p.month) ||
		p.hour > 23 || p.minute > 59 || p.sec > 59 {
		return p, false
	}
	return p, true
}

// parseOffset reads Z, +HH, +HHMM or +HH:MM.
func parseOffset(s string) (int, int, bool) {
	if strings.HasPrefix(s, "Z") {
		return 1, 0, true
	}
	if len(s) < 3 || (s[0] != '+' && s[0] != '-') {
		return 0, 0, false
	}
	h, err := strconv.Atoi(s[1:3])
	if err != nil {
		return 0, 0, false
	}
	n, m := 3, 0
	rest := s[3:]
	if strings.HasPrefix(rest, ":") && len(rest) >= 3 {
		if m, err = strconv.Atoi(rest[1:3]); err != nil {
			return 0, 0, false
		}
		n = 6
	} else if len(rest) >= 2 && rest[0] >= '0' && rest[0] <= '9' {
		if m, err = strconv.Atoi(rest[:2]); err != nil {
			return 0, 0, false
		}
		n = 5
	}
	off := h*3600 + m*60
	if s[0] == '-' {
		off = -off
	}
	return n, off, true
}

// LocalTime returns the parsed fields as a wall-clock time in UTC (a
// TIMESTAMP value), ignoring any parsed offset.
func (p Fields) LocalTime() time.Time {
	if p.yday > 0 {
		return time.Date(p.year, 1, p.yday, p.hour, p.minute, p.sec, p.nanos, time.UTC)
	}
	return time.Date(p.year, time.Month(p.month), p.day, p.hour, p.minute, p.sec, p.nanos, time.UTC)
}

// Instant returns the parsed fields as an instant: in the parsed offset
// when there was one, otherwise in loc.
func (p Fields) Instant(loc *time.Location) time.Time {
	lt := p.LocalTime()
	if p.hasOffset {
		return lt.Add(-time.Duration(p.offsetSecs) * time.Second)
	}
	// An ambiguous wall time takes standard time, a time in a gap moves
	// forward, as Flink's UNIX_TIMESTAMP does (java.util.TimeZone rules).
	return FromLocalPick(types.TimestampFromTime(lt), loc, true).Time()
}

// writePad writes Pad(n, width) to sb without allocating.
func writePad(sb *strings.Builder, n, width int) {
	var buf [24]byte
	sb.Write(appendPad(buf[:0], n, width))
}

// appendPad appends Pad(n, width) to dst: n's decimal digits, zero-padded
// on the left to width digits, after a '-' when n is negative.
func appendPad(dst []byte, n, width int) []byte {
	u := uint64(n)
	if n < 0 {
		dst = append(dst, '-')
		u = -u
	}
	var d [20]byte
	i := len(d)
	for {
		i--
		d[i] = byte('0' + u%10)
		if u /= 10; u == 0 {
			break
		}
	}
	for k := len(d) - i; k < width; k++ {
		dst = append(dst, '0')
	}
	return append(dst, d[i:]...)
}
