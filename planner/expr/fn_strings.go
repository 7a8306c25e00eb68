package expr

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/streamsql/streamsql/internal/sqlregex"
	"github.com/streamsql/streamsql/types"
)

// String functions. Positions are 1-based and count characters (Unicode
// code points), as Flink's BinaryStringData does.

func buildReplace(b *builder, c *Call, a []evalFn) (evalFn, error) {
	return strict3(a[0], a[1], a[2], func(s, old, nw types.Value) (types.Value, error) {
		return types.Str(strings.ReplaceAll(s.Str(), old.Str(), nw.Str())), nil
	}), nil
}

func buildCharLength(b *builder, c *Call, a []evalFn) (evalFn, error) {
	return strict1(a[0], func(s types.Value) (types.Value, error) {
		return types.Int64(int64(utf8.RuneCountInString(s.Str()))), nil
	}), nil
}

// buildPosition gives the 1-based character position of the first
// argument in the second, 0 when absent.
func buildPosition(b *builder, c *Call, a []evalFn) (evalFn, error) {
	return strict2(a[0], a[1], func(needle, hay types.Value) (types.Value, error) {
		i := strings.Index(hay.Str(), needle.Str())
		if i < 0 {
			return types.Int64(0), nil
		}
		return types.Int64(int64(utf8.RuneCountInString(hay.Str()[:i]) + 1)), nil
	}), nil
}

func md5Hex(b []byte) string    { h := md5.Sum(b); return hex.EncodeToString(h[:]) }
func sha256Hex(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }

func checkUUID(*Call) (types.Type, error) { return types.Char(36).NotNullable(), nil }

func buildUUID(b *builder, c *Call, a []evalFn) (evalFn, error) {
	return func([]types.Value) (types.Value, error) { return types.Str(newUUID()), nil }, nil
}

// javaUpper upper-cases like Java's String.toUpperCase: Go's simple case
// mapping plus the characters whose upper case is several characters.
func javaUpper(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToUpper(s)
	}
	u := strings.ToUpper(s)
	if !strings.ContainsAny(u, "ßŉǰΐΰևﬀﬁﬂﬃﬄﬅﬆ") {
		return u
	}
	return javaUpperSpecial.Replace(u)
}

var javaUpperSpecial = strings.NewReplacer("ß", "SS", "ŉ", "ʼN", "ǰ", "J̌", "ΐ", "Ϊ́", "ΰ", "Ϋ́", "և", "ԵՒ",
	"ﬀ", "FF", "ﬁ", "FI", "ﬂ", "FL", "ﬃ", "FFI", "ﬄ", "FFL", "ﬅ", "ST", "ﬆ", "ST")

// javaLower lower-cases like Java's String.toLowerCase(Locale.ROOT): Go's
// simple case mapping, plus İ to "i̇" and a word-final Σ to ς.
func javaLower(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	// An ASCII string holds no İ or Σ (Nexmark q21's LOWER(channel)
	// spent more in that search than in lowering).
	if ascii || !strings.ContainsAny(s, "İΣ") {
		return strings.ToLower(s)
	}
	rs := []rune(s)
	var sb strings.Builder
	for i, r := range rs {
		switch r {
		case 'İ':
			sb.WriteString("i\u0307")
		case 'Σ':
			before := i > 0 && unicode.IsLetter(rs[i-1])
			after := i+1 < len(rs) && unicode.IsLetter(rs[i+1])
			if before && !after {
				sb.WriteRune('ς')
			} else {
				sb.WriteRune('σ')
			}
		default:
			sb.WriteRune(unicode.ToLower(r))
		}
	}
	return sb.String()
}

func stringLen(t types.Type) int {
	if t.IsString() {
		return t.Length
	}
	return types.MaxLength
}

// checkSameString: the result has the argument's type (UPPER, LOWER).
func checkSameString(c *Call) (types.Type, error) {
	t := c.Args[0].Type()
	if !is(t, famString) {
		return t, errArgs
	}
	if t.Kind == types.KindNull {
		return types.String(), nil
	}
	return t, nil
}

// checkStrings accepts string arguments and returns result, nullable when
// any argument is.
func checkStrings(result types.Type) func(c *Call) (types.Type, error) {
	return func(c *Call) (types.Type, error) {
		for _, a := range c.Args {
			if !is(a.Type(), famString) {
				return types.Type{}, errArgs
			}
		}
		return withNull(result, allNotNull(c)), nil
	}
}

// checkStringsNullable is checkStrings with an always nullable result.
func checkStringsNullable(result types.Type) func(c *Call) (types.Type, error) {
	return func(c *Call) (types.Type, error) {
		if _, err := checkStrings(result)(c); err != nil {
			return types.Type{}, err
		}
		return result.Nullable(), nil
	}
}

func mapString(f func(string) string) func(*builder, *Call, []evalFn) (evalFn, error) {
	return func(b *builder, c *Call, a []evalFn) (evalFn, error) {
		return b.strUnop(c, b.operandOf(c.Args[0], a[0]), func(s string) (string, bool) { return f(s), false }), nil
	}
}

func checkTrim(c *Call) (types.Type, error) {
	t := c.Args[0].Type()
	for _, a := range c.Args {
		if !is(a.Type(), famString) {
			return types.Type{}, errArgs
		}
	}
	return withNull(types.VarChar(stringLen(t)), allNotNull(c)), nil
}

// buildTrim removes spaces, or the characters of the optional second
// argument, from the chosen ends.
func buildTrim(left, right bool) func(*builder, *Call, []evalFn) (evalFn, error) {
	return func(b *builder, c *Call, a []evalFn) (evalFn, error) {
		trim := func(s, set string) string {
			if left {
				s = strings.TrimLeft(s, set)
			}
			if right {
				s = strings.TrimRight(s, set)
			}
			return s
		}
		if len(a) == 1 {
			return strict1(a[0], func(s types.Value) (types.Value, error) { return types.Str(trim(s.Str(), " ")), nil }), nil
		}
		return strict2(a[0], a[1], func(s, set types.Value) (types.Value, error) {
			return types.Str(trim(s.Str(), set.Str())), nil
		}), nil
	}
}

func checkConcat(c *Call) (types.Type, error) {
	n := 0
	for _, a := range c.Args {
		t := a.Type()
		if !is(t, famString) {
			return types.Type{}, errArgs
		}
		n += stringLen(t)
		if n > types.MaxLength || n < 0 {
			n = types.MaxLength
		}
	}
	if c.Name == "CONCAT_WS" {
		// NULL arguments are skipped; only a NULL separator gives NULL.
		return withNull(types.String(), c.Args[0].Type().NotNull), nil
	}
	return withNull(types.String(), allNotNull(c)), nil
}

// checkConcatOp types a || b: VARCHAR of the summed lengths (CHAR when
// both are CHAR).
func checkConcatOp(c *Call) (types.Type, error) {
	a, b := c.Args[0].Type(), c.Args[1].Type()
	if !is(a, famString) || !is(b, famString) {
		return types.Type{}, errArgs
	}
	n := stringLen(a) + stringLen(b)
	if n > types.MaxLength || n < 0 {
		n = types.MaxLength
	}
	t := types.VarChar(n)
	if a.Kind == types.KindChar && b.Kind == types.KindChar {
		t = types.Char(n)
	}
	return withNull(t, allNotNull(c)), nil
}

// buildConcat: CONCAT and || give NULL when any argument is NULL.
func buildConcat(b *builder, c *Call, a []evalFn) (evalFn, error) {
	if len(a) == 2 {
		return strict2(a[0], a[1], func(x, y types.Value) (types.Value, error) {
			return types.Str(x.Str() + y.Str()), nil
		}), nil
	}
	return func(row []types.Value) (types.Value, error) {
		var sb strings.Builder
		for _, f := range a {
			v, err := f(row)
			if err != nil || v.IsNull() {
				return types.Value{}, err
			}
			sb.WriteString(v.Str())
		}
		return types.Str(sb.String()), nil
	}, nil
}

// buildConcatWS joins the non-NULL arguments with the separator.
func buildConcatWS(b *builder, c *Call, a []evalFn) (evalFn, error) {
	return func(row []types.Value) (types.Value, error) {
		sep, err := a[0](row)
		if err != nil || sep.IsNull() {
			return types.Value{}, err
		}
		var sb strings.Builder
		first := true
		for _, f := range a[1:] {
			v, err := f(row)
			if err != nil {
				return v, err
			}
			if v.IsNull() {
				continue
			}
			if !first {
				sb.WriteString(sep.Str())
			}
			first = false
			sb.WriteString(v.Str())
		}
		return types.Str(sb.String()), nil
	}, nil
}

func checkSubstring(c *Call) (types.Type, error) {
	t := c.Args[0].Type()
	if !is(t, famString) {
		return types.Type{}, errArgs
	}
	for _, a := range c.Args[1:] {
		if !is(a.Type(), famNumeric) || a.Type().Kind == types.KindDecimal {
			return types.Type{}, errArgs
		}
	}
	return types.VarChar(stringLen(t)), nil // always nullable in Flink
}

// substring is Flink's SUBSTRING: 1-based start; a negative start counts
// from the end; 0 is treated as 1; a negative length gives NULL.
func substring(s string, pos, length int64, hasLen bool) (string, bool) {
	if hasLen && length < 0 {
		return "", false
	}
	r := []rune(s)
	n := int64(len(r))
	var start int64
	switch {
	case pos > 0:
		start = pos - 1
		if start >= n {
			return "", true
		}
	case pos < 0:
		start = n + pos
		if start < 0 {
			return "", true
		}
	}
	end := n
	if hasLen && n-start > length {
		end = start + length
	}
	return string(r[start:end]), true
}

func buildSubstring(b *builder, c *Call, a []evalFn) (evalFn, error) {
	if len(a) == 2 {
		return strict2(a[0], a[1], func(s, p types.Value) (types.Value, error) {
			r, _ := substring(s.Str(), p.Int64(), 0, false)
			return types.Str(r), nil
		}), nil
	}
	return strict3(a[0], a[1], a[2], func(s, p, l types.Value) (types.Value, error) {
		r, ok := substring(s.Str(), p.Int64(), l.Int64(), true)
		if !ok {
			return types.Value{}, nil
		}
		return types.Str(r), nil
	}), nil
}

func checkPad(c *Call) (types.Type, error) {
	if !is(c.Args[0].Type(), famString) || !is(c.Args[1].Type(), famNumeric) || !is(c.Args[2].Type(), famString) ||
		c.Args[1].Type().Kind == types.KindDecimal {
		return types.Type{}, errArgs
	}
	return withNull(types.String(), allNotNull(c)), nil
}

// buildPad is LPAD/RPAD: a negative length or an empty pad gives NULL; a
// length below the string's truncates it.
func buildPad(left bool) func(*builder, *Call, []evalFn) (evalFn, error) {
	return func(b *builder, c *Call, a []evalFn) (evalFn, error) {
		return strict3(a[0], a[1], a[2], func(s, l, p types.Value) (types.Value, error) {
			n := l.Int64()
			pad := []rune(p.Str())
			if n < 0 || len(pad) == 0 {
				return types.Value{}, nil
			}
			base := []rune(s.Str())
			if int64(len(base)) >= n {
				return types.Str(string(base[:n])), nil
			}
			fill := make([]rune, 0, n-int64(len(base)))
			for int64(len(fill)) < n-int64(len(base)) {
				fill = append(fill, pad[len(fill)%len(pad)])
			}
			if left {
				return types.Str(string(fill) + string(base)), nil
			}
			return types.Str(string(base) + string(fill)), nil
		}), nil
	}
}

// regex compiles constant patterns once; others per call. A pattern is
// compiled with its prefilter and anchor (sqlregex.Regexp), which reject
// most strings that cannot match without running the engine.
func (b *builder) regex(pattern evalFn, isConst bool) (func(row []types.Value) (*sqlregex.Regexp, bool, error), error) {
	if isConst {
		v, err := pattern(nil)
		if err != nil {
			return nil, err
		}
		var re *sqlregex.Regexp
		if !v.IsNull() {
			re, _ = sqlregex.Compile(v.Str())
		}
		return func([]types.Value) (*sqlregex.Regexp, bool, error) { return re, v.IsNull(), nil }, nil
	}
	return func(row []types.Value) (*sqlregex.Regexp, bool, error) {
		v, err := pattern(row)
		if err != nil || v.IsNull() {
			return nil, true, err
		}
		re, _ := sqlregex.Compile(v.Str())
		return re, false, nil
	}, nil
}

// buildRegexpReplace: an invalid pattern gives NULL (Flink logs and returns
// null).
func buildRegexpReplace(b *builder, c *Call, a []evalFn) (evalFn, error) {
	re, err := b.regex(a[1], isConstant(c.Args[1]))
	if err != nil {
		return nil, err
	}
	return func(row []types.Value) (types.Value, error) {
		s, err := a[0](row)
		if err != nil || s.IsNull() {
			return types.Value{}, err
		}
		r, null, err := re(row)
		if err != nil || null || r == nil {
			return types.Value{}, err
		}
		rep, err := a[2](row)
		if err != nil || rep.IsNull() {
			return types.Value{}, err
		}
		// Flink quotes the replacement: $1 is literal text, not a group.
		return types.Str(r.ReplaceAllLiteralString(s.Str(), rep.Str())), nil
	}, nil
}

func checkRegexpExtract(c *Call) (types.Type, error) {
	if !is(c.Args[0].Type(), famString) || !is(c.Args[1].Type(), famString) {
		return types.Type{}, errArgs
	}
	if len(c.Args) == 3 && (!is(c.Args[2].Type(), famNumeric) || c.Args[2].Type().Kind == types.KindDecimal) {
		return types.Type{}, errArgs
	}
	return types.String(), nil
}

// buildRegexpExtract returns group idx (default 0, the whole match) of the
// first match, or NULL when nothing matches or the group does not exist.
func buildRegexpExtract(b *builder, c *Call, a []evalFn) (evalFn, error) {
	re, err := b.regex(a[1], isConstant(c.Args[1]))
	if err != nil {
		return nil, err
	}
	idx := constFn(types.Int64(0))
	if len(a) == 3 {
		idx = a[2]
	}
	return func(row []types.Value) (types.Value, error) {
		s, err := a[0](row)
		if err != nil || s.IsNull() {
			return types.Value{}, err
		}
		r, null, err := re(row)
		if err != nil || null || r == nil {
			return types.Value{}, err
		}
		i, err := idx(row)
		if err != nil || i.IsNull() {
			return types.Value{}, err
		}
		g := i.Int64()
		if g < 0 || g > int64(r.NumSubexp()) {
			return types.Value{}, nil
		}
		m := r.FindStringSubmatchIndex(s.Str())
		if m == nil || m[2*g] < 0 {
			return types.Value{}, nil
		}
		return types.Str(s.Str()[m[2*g]:m[2*g+1]]), nil
	}, nil
}

func checkSplitIndex(c *Call) (types.Type, error) {
	if !is(c.Args[0].Type(), famString) || !is(c.Args[1].Type(), famString) || !c.Args[2].Type().IsInteger() && c.Args[2].Type().Kind != types.KindNull {
		return types.Type{}, errArgs
	}
	return types.String(), nil
}

// buildSplitIndex splits by the whole delimiter and returns the 0-based
// index-th token, or NULL when out of range.
func buildSplitIndex(b *builder, c *Call, a []evalFn) (evalFn, error) {
	if b.constant(c.Args[1]) && b.constant(c.Args[2]) && !b.viaArgs {
		// Constant delimiter and index (Nexmark q22's SPLIT_INDEX(url,
		// '/', 3)): the string is read as an operand and the constants are
		// not evaluated per row.
		d, derr := a[1](nil)
		i, ierr := a[2](nil)
		if derr == nil && ierr == nil && !d.IsNull() && !i.IsNull() && d.Str() != "" {
			sep, n := d.Str(), i.Int64()
			if sl, ok := b.splitSlots[c]; ok && b.memo != nil && len(sep) == 1 && n >= 0 {
				// One split of the string per row for the calls of its
				// group (CompileFlow's splitGroups).
				m, j, sepb := b.memo, sl.cell, sep[0]
				return b.strUnop(c, b.operandOf(c.Args[0], a[0]), func(s string) (string, bool) { return m.splitPart(j, s, sepb, n) }), nil
			}
			return b.strUnop(c, b.operandOf(c.Args[0], a[0]), func(s string) (string, bool) {
				if n < 0 {
					return "", true
				}
				part, ok := splitPart(s, sep, n)
				return part, !ok
			}), nil
		}
	}
	return strict3(a[0], a[1], a[2], func(s, d, i types.Value) (types.Value, error) {
		n := i.Int64()
		if n < 0 {
			return types.Value{}, nil
		}
		if d.Str() == "" {
			parts := strings.Fields(s.Str())
			if n >= int64(len(parts)) {
				return types.Value{}, nil
			}
			return types.Str(parts[n]), nil
		}
		part, ok := splitPart(s.Str(), d.Str(), n)
		if !ok {
			return types.Value{}, nil
		}
		return types.Str(part), nil
	}), nil
}

// splitPart returns strings.Split(s, sep)[n] and true, or false when that
// has no element n, without building the slice (Nexmark q22 takes three
// parts of every URL). sep is not empty and n not negative.
func splitPart(s, sep string, n int64) (string, bool) {
	if len(sep) == 1 {
		return splitPartByte(s, sep[0], n)
	}
	for ; n > 0; n-- {
		i := strings.Index(s, sep)
		if i < 0 {
			return "", false
		}
		s = s[i+len(sep):]
	}
	if i := strings.Index(s, sep); i >= 0 {
		s = s[:i]
	}
	return s, true
}

// splitPartByte is splitPart with a one-byte separator.
func splitPartByte(s string, sep byte, n int64) (string, bool) {
	for ; n > 0; n-- {
		i := strings.IndexByte(s, sep)
		if i < 0 {
			return "", false
		}
		s = s[i+1:]
	}
	if i := strings.IndexByte(s, sep); i >= 0 {
		s = s[:i]
	}
	return s, true
}

func checkHash(n int) func(c *Call) (types.Type, error) {
	return func(c *Call) (types.Type, error) {
		if !is(c.Args[0].Type(), famString, famBinary) {
			return types.Type{}, errArgs
		}
		return withNull(types.Char(n), allNotNull(c)), nil
	}
}

func buildHash(h func([]byte) string) func(*builder, *Call, []evalFn) (evalFn, error) {
	return func(b *builder, c *Call, a []evalFn) (evalFn, error) {
		return strict1(a[0], func(s types.Value) (types.Value, error) { return types.Str(h(s.Bytes())), nil }), nil
	}
}

func newUUID() string {
	var u [16]byte
	_, _ = rand.Read(u[:]) // crypto/rand.Read never fails (Go 1.24+)
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	h := hex.EncodeToString(u[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// ---- LIKE ----

func checkLike(c *Call) (types.Type, error) {
	for _, a := range c.Args {
		if !is(a.Type(), famString) {
			return types.Type{}, errArgs
		}
	}
	return withNull(types.Boolean(), allNotNull(c)), nil
}

// likeMatcher compiles a LIKE pattern; errors wrap ErrInvalidArgument.
func likeMatcher(pattern, escape string) (func(string) bool, error) {
	m, err := sqlregex.Like(pattern, escape)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
	}
	return m, nil
}

func buildLike(negated bool) func(*builder, *Call, []evalFn) (evalFn, error) {
	return func(b *builder, c *Call, a []evalFn) (evalFn, error) {
		escFn := constFn(types.Value{})
		escConst := true
		if len(a) == 3 {
			escFn, escConst = a[2], isConstant(c.Args[2])
		}
		if isConstant(c.Args[1]) && escConst {
			p, err := a[1](nil)
			if err != nil {
				return nil, err
			}
			e, err := escFn(nil)
			if err != nil {
				return nil, err
			}
			if p.IsNull() || (len(a) == 3 && e.IsNull()) {
				return constFn(types.Value{}), nil
			}
			m, err := likeMatcher(p.Str(), e.Str())
			if err != nil {
				return nil, err
			}
			return strict1(a[0], func(s types.Value) (types.Value, error) {
				return types.Bool(m(s.Str()) != negated), nil
			}), nil
		}
		args := a
		if len(a) == 2 {
			args = []evalFn{a[0], a[1]}
		}
		return strictN(args, func(xs []types.Value) (types.Value, error) {
			esc := ""
			if len(xs) == 3 {
				esc = xs[2].Str()
			}
			m, err := likeMatcher(xs[1].Str(), esc)
			if err != nil {
				return types.Value{}, err
			}
			return types.Bool(m(xs[0].Str()) != negated), nil
		}), nil
	}
}
