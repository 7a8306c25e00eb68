package expr

import (
	"errors"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/streamsql/streamsql/internal/javatime"
	"github.com/streamsql/streamsql/internal/sqlregex"
	"github.com/streamsql/streamsql/types"
)

// String, conditional and date functions added with Flink 2.x's
// catalogue: INITCAP, REPEAT, REVERSE, LEFT, RIGHT, LOCATE, ASCII, CHR,
// SPLIT, STR_TO_MAP, GREATEST, LEAST, TO_DATE, CONVERT_TZ.

// initcap upper-cases the first ASCII letter of each word and lower-cases
// the other ASCII letters; a word is a run of ASCII letters and digits,
// everything else (non-ASCII letters included) separates words.
func initcap(s string) string {
	b := []byte(s)
	start := true
	for i, c := range b {
		switch {
		case c >= '0' && c <= '9':
			start = false
		case c >= 'A' && c <= 'Z':
			if !start {
				b[i] = c + 32
			}
			start = false
		case c >= 'a' && c <= 'z':
			if start {
				b[i] = c - 32
			}
			start = false
		default:
			start = true
		}
	}
	return string(b)
}

// checkStringInt accepts (STRING, INT) and returns result, nullable when
// an argument is.
func checkStringInt(result types.Type) func(c *Call) (types.Type, error) {
	return func(c *Call) (types.Type, error) {
		if !is(c.Args[0].Type(), famString) || !c.Args[1].Type().IsInteger() && c.Args[1].Type().Kind != types.KindNull {
			return types.Type{}, errArgs
		}
		return withNull(result, allNotNull(c)), nil
	}
}

func buildRepeat(b *builder, c *Call, a []evalFn) (evalFn, error) {
	text := c.String()
	return strict2(a[0], a[1], func(s, n types.Value) (types.Value, error) {
		k := n.Int64()
		if k <= 0 || s.Str() == "" {
			return types.Str(""), nil
		}
		if int64(len(s.Str()))*k > maxStringBytes {
			return types.Value{}, &EvalError{Expr: text, Err: errRepeatTooLong}
		}
		return types.Str(strings.Repeat(s.Str(), int(k))), nil
	}), nil
}

// maxStringBytes bounds the strings REPEAT builds (Java's arrays stop at
// 2^31-1 elements).
const maxStringBytes = 1<<31 - 1

var errRepeatTooLong = errors.New("the result exceeds the maximum string length")

// checkReverse types REVERSE: STRING, always nullable, as Flink's SQL
// operator declares it.
func checkReverse(c *Call) (types.Type, error) {
	if !is(c.Args[0].Type(), famString) {
		return types.Type{}, errArgs
	}
	return types.String().Nullable(), nil
}

func reverseString(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// checkLeftRight types LEFT and RIGHT: a VARCHAR as long as the string
// argument, always nullable (Flink's SQL operator forces it, as for CHR,
// REVERSE and SPLIT_INDEX: more/const/split-index is STRING over NOT NULL
// literals).
func checkLeftRight(c *Call) (types.Type, error) {
	if _, err := checkStringInt(types.String())(c); err != nil {
		return types.Type{}, err
	}
	return types.VarChar(stringLen(c.Args[0].Type())).Nullable(), nil
}

// buildLeftRight keeps the first (left) or last n characters; none for
// n <= 0, all when n exceeds the length.
func buildLeftRight(left bool) func(*builder, *Call, []evalFn) (evalFn, error) {
	return func(b *builder, c *Call, a []evalFn) (evalFn, error) {
		return strict2(a[0], a[1], func(sv, nv types.Value) (types.Value, error) {
			s, n := sv.Str(), nv.Int64()
			if n <= 0 {
				return types.Str(""), nil
			}
			cnt := int64(utf8.RuneCountInString(s))
			if n >= cnt {
				return sv, nil
			}
			if left {
				return types.Str(s[:runeOffset(s, int(n))]), nil
			}
			return types.Str(s[runeOffset(s, int(cnt-n)):]), nil
		}), nil
	}
}

// runeOffset returns the byte offset of the n-th character of s.
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

func checkLocate(c *Call) (types.Type, error) {
	if !is(c.Args[0].Type(), famString) || !is(c.Args[1].Type(), famString) {
		return types.Type{}, errArgs
	}
	if len(c.Args) == 3 && !c.Args[2].Type().IsInteger() && c.Args[2].Type().Kind != types.KindNull {
		return types.Type{}, errArgs
	}
	return withNull(types.Int(), allNotNull(c)), nil
}

// buildLocate gives the 1-based character position of the first argument
// in the second at or after the start position (default 1; a start below
// 1 counts as 1); 0 when absent or the start is past the end.
func buildLocate(b *builder, c *Call, a []evalFn) (evalFn, error) {
	locate := func(needle, hay string, from int64) types.Value {
		if from < 1 {
			from = 1
		}
		if from > int64(utf8.RuneCountInString(hay))+1 {
			return types.Int64(0)
		}
		off := runeOffset(hay, int(from-1))
		i := strings.Index(hay[off:], needle)
		if i < 0 {
			return types.Int64(0)
		}
		return types.Int64(from + int64(utf8.RuneCountInString(hay[off:off+i])))
	}
	if len(a) == 2 {
		return strict2(a[0], a[1], func(n, h types.Value) (types.Value, error) { return locate(n.Str(), h.Str(), 1), nil }), nil
	}
	return strict3(a[0], a[1], a[2], func(n, h, f types.Value) (types.Value, error) {
		return locate(n.Str(), h.Str(), f.Int64()), nil
	}), nil
}

// buildASCII gives the first byte of the UTF-8 text as a signed byte
// (Flink reads the first byte: 'é' gives -61), 0 for the empty string.
func buildASCII(b *builder, c *Call, a []evalFn) (evalFn, error) {
	return strict1(a[0], func(s types.Value) (types.Value, error) {
		if s.Str() == "" {
			return types.Int64(0), nil
		}
		return types.Int64(int64(int8(s.Str()[0]))), nil
	}), nil
}

func checkChr(c *Call) (types.Type, error) {
	if !c.Args[0].Type().IsInteger() && c.Args[0].Type().Kind != types.KindNull {
		return types.Type{}, errArgs
	}
	return types.String().Nullable(), nil
}

// chrTable holds CHR's 256 one-character results, so that CHR allocates
// nothing.
var chrTable = func() [256]types.Value {
	var t [256]types.Value
	for i := range t {
		t[i] = types.Str(string(rune(i)))
	}
	return t
}()

// buildChr gives the character of the code modulo 256; the empty string for a negative
// code.
func buildChr(b *builder, c *Call, a []evalFn) (evalFn, error) {
	return strict1(a[0], func(n types.Value) (types.Value, error) {
		if n.Int64() < 0 {
			return types.Str(""), nil
		}
		return chrTable[n.Int64()&0xff], nil
	}), nil
}

func checkSplit(c *Call) (types.Type, error) {
	if _, err := checkStrings(types.String())(c); err != nil {
		return types.Type{}, err
	}
	return withNull(types.Array(types.String()), allNotNull(c)), nil
}

// buildSplit splits at every occurrence of the delimiter, keeping empty
// parts; an empty delimiter splits into characters, an empty string gives
// an empty array.
func buildSplit(b *builder, c *Call, a []evalFn) (evalFn, error) {
	return strict2(a[0], a[1], func(s, d types.Value) (types.Value, error) {
		if s.Str() == "" {
			return types.List([]types.Value{}), nil
		}
		var parts []string
		if d.Str() == "" {
			parts = strings.Split(s.Str(), "")
		} else {
			parts = strings.Split(s.Str(), d.Str())
		}
		out := make([]types.Value, len(parts))
		for i, p := range parts {
			out[i] = types.Str(p)
		}
		return types.List(out), nil
	}), nil
}

func checkStrToMap(c *Call) (types.Type, error) {
	if _, err := checkStrings(types.String())(c); err != nil || len(c.Args) == 2 {
		return types.Type{}, errArgs
	}
	return withNull(types.Map(types.String(), types.String()), allNotNull(c)), nil
}

// buildStrToMap splits the text into entries at the list delimiter (','
// by default) and each entry into key and value at the first key-value
// delimiter ('=' by default); both delimiters are Java regular
// expressions, as in Flink. An entry without a key-value delimiter maps
// to NULL; a later entry replaces an earlier one of the same key.
func buildStrToMap(b *builder, c *Call, a []evalFn) (evalFn, error) {
	parse := func(s string, ld, kd splitter) types.Value {
		m := &types.MapData{}
		if s == "" {
			return types.MapValue(m)
		}
		for _, kv := range ld(s, -1) {
			parts := kd(kv, 2)
			val := types.Value{}
			if len(parts) == 2 {
				val = types.Str(parts[1])
			}
			k := parts[0]
			replaced := false
			for i, o := range m.Keys {
				if o.Str() == k {
					m.Values[i], replaced = val, true
					break
				}
			}
			if !replaced {
				m.Keys = append(m.Keys, types.Str(k))
				m.Values = append(m.Values, val)
			}
		}
		return types.MapValue(m)
	}
	if len(a) == 1 {
		ld, kd := literalSplitter(","), literalSplitter("=")
		return strict1(a[0], func(s types.Value) (types.Value, error) { return parse(s.Str(), ld, kd), nil }), nil
	}
	ld, kd := splitterArg(c, 1, a[1]), splitterArg(c, 2, a[2])
	return func(row []types.Value) (types.Value, error) {
		s, err := a[0](row)
		if err != nil || s.IsNull() {
			return types.Value{}, err
		}
		l, null, err := ld(row)
		if err != nil || null {
			return types.Value{}, err
		}
		k, null, err := kd(row)
		if err != nil || null {
			return types.Value{}, err
		}
		return parse(s.Str(), l, k), nil
	}, nil
}

// splitter splits s at a delimiter into at most n parts (all when n < 0).
type splitter func(s string, n int) []string

func literalSplitter(d string) splitter {
	return func(s string, n int) []string { return strings.SplitN(s, d, n) }
}

// regexSplitter splits at the matches of a Java regular expression; a
// delimiter without regex syntax splits as plain text. An invalid
// pattern splits nothing.
func regexSplitter(d string) splitter {
	if regexp.QuoteMeta(d) == d && d != "" {
		return literalSplitter(d)
	}
	re, err := sqlregex.Compile(d)
	if err != nil {
		return func(s string, n int) []string { return []string{s} }
	}
	return func(s string, n int) []string { return re.Regexp().Split(s, n) }
}

// splitterArg returns the splitter of argument i: built once when it is a
// literal, otherwise per row.
func splitterArg(c *Call, i int, f evalFn) func(row []types.Value) (splitter, bool, error) {
	if l, ok := c.Args[i].(*Literal); ok && !l.Val.IsNull() {
		sp := regexSplitter(l.Val.Str())
		return func([]types.Value) (splitter, bool, error) { return sp, false, nil }
	}
	return func(row []types.Value) (splitter, bool, error) {
		v, err := f(row)
		if err != nil || v.IsNull() {
			return nil, true, err
		}
		return regexSplitter(v.Str()), false, nil
	}
}

// checkGreatest types GREATEST and LEAST: the arguments' common type,
// nullable when any argument is.
func checkGreatest(c *Call) (types.Type, error) {
	for _, x := range c.Args {
		if x.Type().Kind == types.KindNull {
			// Flink plans GREATEST(1, NULL) but fails when the job
			// runs (its code generator cannot cast the NULL literal);
			// it is refused here when planning.
			return types.Type{}, errArgs
		}
	}
	t, ok := leastRestrictive(argTypes(c)...)
	if !ok {
		return types.Type{}, errArgs
	}
	for _, x := range c.Args[1:] {
		if !comparableTypes(c.Args[0].Type(), x.Type()) {
			return types.Type{}, errArgs
		}
	}
	coerceArgs(c, t)
	return withNull(t, allNotNull(c)), nil
}

// buildGreatest gives the largest (greatest) or smallest argument, NULL
// when any is NULL.
func buildGreatest(greatest bool) func(*builder, *Call, []evalFn) (evalFn, error) {
	return func(b *builder, c *Call, a []evalFn) (evalFn, error) {
		cmp := types.Comparator(c.Type())
		return func(row []types.Value) (types.Value, error) {
			var best types.Value
			for i, f := range a {
				v, err := f(row)
				if err != nil || v.IsNull() {
					return types.Value{}, err
				}
				if i == 0 || (cmp(v, best) > 0) == greatest && cmp(v, best) != 0 {
					best = v
				}
			}
			return best, nil
		}, nil
	}
}

func checkToDate(c *Call) (types.Type, error) {
	if _, err := checkStrings(types.Date())(c); err != nil {
		return types.Type{}, err
	}
	return types.Date().Nullable(), nil
}

// buildToDate parses a date, 'yyyy-MM-dd' or the given Java pattern; NULL
// when the text does not parse.
func buildToDate(b *builder, c *Call, a []evalFn) (evalFn, error) {
	if len(a) == 1 {
		return strict1(a[0], func(v types.Value) (types.Value, error) {
			d, ok := javatime.ParseDate(strings.TrimSpace(v.Str()), javatime.SQLDate)
			if !ok {
				return types.Value{}, nil
			}
			return types.DateValue(int32(d)), nil
		}), nil
	}
	fmtFn, err := b.format(c, 1, a, "yyyy-MM-dd")
	if err != nil {
		return nil, err
	}
	return parseWithPattern(a[0], fmtFn, func(p javatime.Fields) types.Value {
		t := p.LocalTime()
		return types.DateValue(javatime.EpochDays(t.Year(), int(t.Month()), t.Day()))
	}), nil
}

// zoneArg returns the zone of argument i: loaded once when it is a
// literal, otherwise per row.
func zoneArg(c *Call, i int, f evalFn) func(row []types.Value) (*time.Location, bool, error) {
	if l, ok := c.Args[i].(*Literal); ok && !l.Val.IsNull() {
		loc, err := javatime.LoadZone(l.Val.Str())
		return func([]types.Value) (*time.Location, bool, error) { return loc, false, err }
	}
	return func(row []types.Value) (*time.Location, bool, error) {
		v, err := f(row)
		if err != nil || v.IsNull() {
			return nil, true, err
		}
		loc, err := javatime.LoadZone(v.Str())
		return loc, false, err
	}
}

// buildConvertTZ reads 'yyyy-MM-dd HH:mm:ss' as a wall-clock time of the
// first zone and prints the same instant in the second.
func buildConvertTZ(b *builder, c *Call, a []evalFn) (evalFn, error) {
	from, to := zoneArg(c, 1, a[1]), zoneArg(c, 2, a[2])
	return func(row []types.Value) (types.Value, error) {
		v, err := a[0](row)
		if err != nil || v.IsNull() {
			return types.Value{}, err
		}
		fl, null, err := from(row)
		if err != nil || null {
			return types.Value{}, err
		}
		tl, null, err := to(row)
		if err != nil || null {
			return types.Value{}, err
		}
		ts, ok := javatime.ParseSQLTimestamp(strings.TrimSpace(v.Str()))
		if !ok {
			return types.Value{}, nil
		}
		inst := javatime.FromLocal(ts, fl)
		return types.Str(javatime.FormatTimestamp(javatime.ToLocal(inst, tl).Truncate(0), 0)), nil
	}, nil
}
