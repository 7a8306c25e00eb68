package expr

import (
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/streamsql/streamsql/types"
)

// Numeric functions on DOUBLE (LN, EXP, trigonometry, ...), SIGN, and
// further string functions of Flink's catalogue: INSTR, STARTSWITH,
// ENDSWITH, BTRIM, base64, SHA-1/SHA-2, URL_ENCODE/URL_DECODE, REGEXP,
// REGEXP_COUNT, and IFNULL.

func unaryMath(f func(float64) float64) func(*builder, *Call, []evalFn) (evalFn, error) {
	return buildDoubleFn(func(a, _ float64) float64 { return f(a) })
}

// logBase is LOG(x) (natural) or LOG(base, x).
func buildLog(b *builder, c *Call, a []evalFn) (evalFn, error) {
	if len(a) == 1 {
		return unaryMath(math.Log)(b, c, a)
	}
	return buildDoubleFn(func(base, x float64) float64 { return math.Log(x) / math.Log(base) })(b, c, a)
}

// buildConstDouble returns a NOT NULL DOUBLE constant (PI(), E()).
func buildConstDouble(v float64) func(*builder, *Call, []evalFn) (evalFn, error) {
	return func(*builder, *Call, []evalFn) (evalFn, error) { return constFn(types.Float64(v)), nil }
}

// buildSign gives -1, 0 or 1 in the argument's type.
func buildSign(b *builder, c *Call, a []evalFn) (evalFn, error) {
	t := c.Args[0].Type()
	switch {
	case t.IsInteger():
		return strict1(a[0], func(v types.Value) (types.Value, error) {
			i := v.Int64()
			switch {
			case i > 0:
				return types.Int64(1), nil
			case i < 0:
				return types.Int64(-1), nil
			}
			return types.Int64(0), nil
		}), nil
	case t.Kind == types.KindDecimal:
		return strict1(a[0], func(v types.Value) (types.Value, error) {
			d := v.Decimal()
			r, err := types.NewDecimal(int64(d.Sign()), 0).Rescale(t.Precision, d.Scale())
			if err != nil {
				return types.Value{}, err
			}
			return types.DecimalValue(r), nil
		}), nil
	case t.Kind == types.KindNull:
		return constFn(types.Value{}), nil
	}
	return strict1(a[0], func(v types.Value) (types.Value, error) {
		f := v.Float64()
		switch {
		case f > 0:
			f = 1
		case f < 0:
			f = -1
		}
		return types.Float64(f), nil
	}), nil
}

// buildInstr gives the 1-based character position of the second argument
// in the first, 0 when absent.
func buildInstr(b *builder, c *Call, a []evalFn) (evalFn, error) {
	return strict2(a[0], a[1], func(hay, needle types.Value) (types.Value, error) {
		i := strings.Index(hay.Str(), needle.Str())
		if i < 0 {
			return types.Int64(0), nil
		}
		return types.Int64(int64(utf8.RuneCountInString(hay.Str()[:i]) + 1)), nil
	}), nil
}

func buildStartsEnds(starts bool) func(*builder, *Call, []evalFn) (evalFn, error) {
	return func(b *builder, c *Call, a []evalFn) (evalFn, error) {
		return strict2(a[0], a[1], func(s, p types.Value) (types.Value, error) {
			if starts {
				return types.Bool(strings.HasPrefix(s.Str(), p.Str())), nil
			}
			return types.Bool(strings.HasSuffix(s.Str(), p.Str())), nil
		}), nil
	}
}

func buildBTrim(b *builder, c *Call, a []evalFn) (evalFn, error) {
	if len(a) == 1 {
		return strict1(a[0], func(s types.Value) (types.Value, error) { return types.Str(strings.Trim(s.Str(), " ")), nil }), nil
	}
	return strict2(a[0], a[1], func(s, set types.Value) (types.Value, error) {
		return types.Str(strings.Trim(s.Str(), set.Str())), nil
	}), nil
}

func buildToBase64(b *builder, c *Call, a []evalFn) (evalFn, error) {
	return strict1(a[0], func(s types.Value) (types.Value, error) {
		return types.Str(base64.StdEncoding.EncodeToString([]byte(s.Str()))), nil
	}), nil
}

// buildFromBase64 decodes; text that is not base64 is an error, as in
// Flink.
func buildFromBase64(b *builder, c *Call, a []evalFn) (evalFn, error) {
	text := c.String()
	return strict1(a[0], func(s types.Value) (types.Value, error) {
		d, err := base64.StdEncoding.DecodeString(s.Str())
		if err != nil {
			return types.Value{}, &EvalError{Expr: text, Err: err}
		}
		return types.Str(string(d)), nil
	}), nil
}

func sha1Hex(b []byte) string   { h := sha1.Sum(b); return hex.EncodeToString(h[:]) }
func sha224Hex(b []byte) string { h := sha256.Sum224(b); return hex.EncodeToString(h[:]) }
func sha384Hex(b []byte) string { h := sha512.Sum384(b); return hex.EncodeToString(h[:]) }
func sha512Hex(b []byte) string { h := sha512.Sum512(b); return hex.EncodeToString(h[:]) }

func checkSHA2(c *Call) (types.Type, error) {
	if !is(c.Args[0].Type(), famString, famBinary) || !c.Args[1].Type().IsInteger() && c.Args[1].Type().Kind != types.KindNull {
		return types.Type{}, errArgs
	}
	return withNull(types.VarChar(128), allNotNull(c)), nil
}

// buildSHA2 hashes with the SHA-2 function of the bit length (224, 256,
// 384 or 512); another length is an error, as in Flink.
func buildSHA2(b *builder, c *Call, a []evalFn) (evalFn, error) {
	text := c.String()
	return strict2(a[0], a[1], func(s, n types.Value) (types.Value, error) {
		var h func([]byte) string
		switch n.Int64() {
		case 224:
			h = sha224Hex
		case 256:
			h = sha256Hex
		case 384:
			h = sha384Hex
		case 512:
			h = sha512Hex
		default:
			return types.Value{}, &EvalError{Expr: text, Err: fmt.Errorf("unsupported SHA-2 bit length %d (224, 256, 384 or 512)", n.Int64())}
		}
		return types.Str(h(s.Bytes())), nil
	}), nil
}

// urlEncode is java.net.URLEncoder.encode(s, UTF-8): letters, digits and
// ".-*_" stay, a space becomes '+', every other byte %XX.
func urlEncode(s string) string {
	const hexDigits = "0123456789ABCDEF"
	var sb strings.Builder
	sb.Grow(len(s))
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch >= 'a' && ch <= 'z', ch >= 'A' && ch <= 'Z', ch >= '0' && ch <= '9', ch == '.', ch == '-', ch == '*', ch == '_':
			sb.WriteByte(ch)
		case ch == ' ':
			sb.WriteByte('+')
		default:
			sb.WriteByte('%')
			sb.WriteByte(hexDigits[ch>>4])
			sb.WriteByte(hexDigits[ch&15])
		}
	}
	return sb.String()
}

// urlDecode is java.net.URLDecoder.decode(s, UTF-8); false for a bad
// escape.
func urlDecode(s string) (string, bool) {
	if !strings.ContainsAny(s, "%+") {
		return s, true
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '+':
			out = append(out, ' ')
		case '%':
			if i+2 >= len(s) {
				return "", false
			}
			hi, ok1 := unhex(s[i+1])
			lo, ok2 := unhex(s[i+2])
			if !ok1 || !ok2 {
				return "", false
			}
			out = append(out, hi<<4|lo)
			i += 2
		default:
			out = append(out, s[i])
		}
	}
	return strings.ToValidUTF8(string(out), "\uFFFD"), true
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func buildURLEncode(b *builder, c *Call, a []evalFn) (evalFn, error) {
	return strict1(a[0], func(s types.Value) (types.Value, error) { return types.Str(urlEncode(s.Str())), nil }), nil
}

// buildURLDecode decodes; a bad escape gives NULL.
func buildURLDecode(b *builder, c *Call, a []evalFn) (evalFn, error) {
	return strict1(a[0], func(s types.Value) (types.Value, error) {
		d, ok := urlDecode(s.Str())
		if !ok {
			return types.Value{}, nil
		}
		return types.Str(d), nil
	}), nil
}

// buildRegexp reports whether the Java regex finds a match; an empty or
// invalid pattern gives FALSE, as in Flink.
func buildRegexp(b *builder, c *Call, a []evalFn) (evalFn, error) {
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
		if err != nil || null {
			return types.Value{}, err
		}
		if r == nil || r.Regexp().String() == "" {
			return types.Bool(false), nil
		}
		return types.Bool(r.MatchString(s.Str())), nil
	}, nil
}

// buildRegexpCount counts the matches as Java's Matcher.find does, an
// empty match right after a match included (Go's FindAll skips those); an
// invalid pattern gives NULL.
func buildRegexpCount(b *builder, c *Call, a []evalFn) (evalFn, error) {
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
		return types.Int64(int64(javaFindCount(r.Regexp(), s.Str()))), nil
	}, nil
}

// checkIfNull types IFNULL: the common type, nullable only when the
// replacement is.
func checkIfNull(c *Call) (types.Type, error) {
	t, ok := commonType(argTypes(c)...)
	if !ok {
		return t, errArgs
	}
	coerceArgs(c, t)
	return withNull(t, c.Args[1].Type().NotNull), nil
}

func buildIfNull(b *builder, c *Call, a []evalFn) (evalFn, error) {
	return func(row []types.Value) (types.Value, error) {
		v, err := a[0](row)
		if err != nil || !v.IsNull() {
			return v, err
		}
		return a[1](row)
	}, nil
}

// javaFindCount counts the matches of re in s as a java.util.regex.Matcher
// find loop does: Go's FindAll drops an empty match that abuts the
// previous match, Java counts it.
func javaFindCount(re *regexp.Regexp, s string) int {
	locs := re.FindAllStringIndex(s, -1)
	n := len(locs)
	for _, l := range locs {
		if l[1] > l[0] {
			if next := re.FindStringIndex(s[l[1]:]); next != nil && next[0] == 0 && next[1] == 0 {
				n++
			}
		}
	}
	return n
}
