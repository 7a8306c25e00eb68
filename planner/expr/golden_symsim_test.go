package expr

import (
	"github.com/streamsql/streamsql/types"
)

// symsimCases cover BETWEEN SYMMETRIC and SIMILAR TO. Ids start with
// "more/symsim/" so that the generator can evaluate them alone
// (ONLY=more/symsim/).
func symsimCases() []gcase {
	fn := func(name string) func(a, b, c Expr) Expr {
		return func(a, b, c Expr) Expr { return Fn(name, a, b, c) }
	}
	// x, low, high: ordered and reversed bounds, NULL in each place.
	betweenRows := [][]types.Value{
		{vi(5), vi(1), vi(10)}, {vi(5), vi(10), vi(1)}, {vi(0), vi(10), vi(1)}, {vi(11), vi(1), vi(10)},
		{vi(1), vi(1), vi(1)}, {vi(10), vi(10), vi(1)}, {vi(1), vi(10), vi(1)},
		{vi(5), null, vi(1)}, {vi(0), null, vi(1)}, {vi(1), null, vi(1)}, {vi(5), vi(1), null}, {vi(5), vi(10), null},
		{vi(0), vi(1), null}, {null, vi(1), vi(10)}, {vi(5), null, null},
	}
	stringIntRows := [][]types.Value{{vs("1"), vi(1), vi(2)}, {vs("3"), vi(2), vi(1)}, {vs(" 2 "), vi(1), vi(3)}, {vs("x"), vi(1), vi(2)}, {null, vi(1), vi(2)}}
	// s, pattern: each metacharacter, anchoring, classes, invalid patterns.
	similarRows := [][]types.Value{
		{vs("abc"), vs("abc")}, {vs("abc"), vs("ab")}, {vs("xabcx"), vs("abc")}, {vs("abc"), vs("b")},
		{vs("abc"), vs("a%")}, {vs("abc"), vs("%c")}, {vs("a\nc"), vs("a%")},
		{vs("abc"), vs("a_c")}, {vs("ac"), vs("a_c")}, {vs("a\nc"), vs("a_c")},
		{vs("abc"), vs("a.c")}, {vs("a.c"), vs("a.c")}, {vs("a\nc"), vs("a.c")},
		{vs("abc"), vs("a|abc")}, {vs("a"), vs("a|abc")}, {vs("ab"), vs("a|abc")}, {vs("abcab"), vs("(a|b|c)+")},
		{vs("aaa"), vs("a*")}, {vs(""), vs("a*")}, {vs(""), vs("a+")}, {vs("aa"), vs("a+")},
		{vs("ab"), vs("ab?")}, {vs("a"), vs("ab?")}, {vs("abb"), vs("ab?")},
		{vs("aaa"), vs("a{2,3}")}, {vs("aaaa"), vs("a{2,3}")}, {vs("aa"), vs("a{2}")}, {vs("aaaaa"), vs("a{2,}")},
		{vs("abab"), vs("(ab){2}")}, {vs("b"), vs("[a-c]")}, {vs("d"), vs("[a-c]")}, {vs("d"), vs("[^a-c]")},
		{vs("-"), vs("[a-]")}, {vs("."), vs("[.]")}, {vs("x"), vs("[.]")}, {vs("$"), vs("[$]")},
		{vs("x1"), vs("[[:ALPHA:]][[:DIGIT:]]")}, {vs("A"), vs("[[:lower:]]")}, {vs("a"), vs("[[:lower:]]")},
		{vs("AB"), vs("[[:UPPER:]]*")}, {vs("Ab1"), vs("[[:ALNUM:]]+")}, {vs("a b"), vs("a[[:SPACE:]]b")},
		{vs("a\tb"), vs("a[[:SPACE:]]b")}, {vs("a\tb"), vs("a[[:WHITESPACE:]]b")}, {vs("a\vb"), vs("a[[:whitespace:]]b")},
		{vs("é"), vs("[[:alpha:]]")}, {vs("a1"), vs("[[:alpha:][:digit:]]+")}, {vs(":"), vs("[:ALPHA:]")},
		{vs("a$b"), vs("a$b")}, {vs(`a\b`), vs(`a\b`)}, {vs("ab"), vs("^ab")}, {vs("a-b"), vs("a-b")},
		{vs("ABC"), vs("abc")}, {vs("日本"), vs("__")}, {vs("a"), vs("")}, {vs(""), vs("")},
		{vs("a"), vs("(a")}, {vs("a"), vs("a)")}, {vs("a"), vs("a[")}, {vs("a"), vs("a]")}, {vs("a"), vs("[]")},
		{vs("a"), vs("*a")}, {vs("a"), vs("a**")}, {vs("a{"), vs("a{")}, {vs("a"), vs("a{,2}")}, {vs("a"), vs("{2}")},
		{vs("a"), vs("[[:FOO:]]")}, {vs("a"), vs("[a(]")}, {vs("a"), vs("[a%]")}, {vs("a"), vs("[a|b]")},
		{null, vs("a")}, {vs("a"), null}, {null, vs("(")},
	}
	// s, pattern, escape.
	escapeRows := [][]types.Value{
		{vs("a%"), vs("a#%"), vs("#")}, {vs("ab"), vs("a#%"), vs("#")}, {vs("a_"), vs("a#_"), vs("#")}, {vs("ab"), vs("a#_"), vs("#")},
		{vs("a#"), vs("a##"), vs("#")}, {vs("a*"), vs("a#*"), vs("#")}, {vs("(a)"), vs("#(a#)"), vs("#")}, {vs("[a]"), vs("#[a#]"), vs("#")},
		{vs("a|b"), vs("a#|b"), vs("#")}, {vs("a{2}"), vs("a#{2#}"), vs("#")}, {vs("%"), vs("[#%]"), vs("#")}, {vs("-"), vs("[a#-z]"), vs("#")},
		{vs("a."), vs("a#."), vs("#")}, {vs("a"), vs("a#"), vs("#")}, {vs("ab"), vs("a#b"), vs("#")}, {vs("a"), vs("a"), vs("##")},
		{vs("a"), vs("a"), vs("")}, {vs("a"), vs("a"), null}, {null, vs("a"), vs("#")}, {vs("a"), null, vs("#")},
		{vs("a%"), vs(`a\%`), vs(`\`)}, {vs(`a\`), vs(`a\\`), vs(`\`)}, {vs("a(b"), vs(`a\(b`), vs(`\`)},
		{vs("a|"), vs("a||"), vs("|")}, {vs("ab"), vs("a|b"), vs("|")}, {vs("a%"), vs("a%%"), vs("%")}, {vs("a"), vs("[:a"), vs(":")},
		{vs("a"), vs("[a"), vs("#")}, {vs("a"), vs("[a#"), vs("#")},
	}
	return []gcase{
		ternary("more/symsim/between/int", tInt, tInt, tInt, betweenRows, fn("BETWEEN SYMMETRIC")),
		ternary("more/symsim/between/not-int", tInt, tInt, tInt, betweenRows, fn("NOT BETWEEN SYMMETRIC")),
		ternary("more/symsim/between/mixed", tInt, tDec102, tDbl, [][]types.Value{
			{vi(5), decimalIn("10.50", 10, 2), vf(1.5)}, {vi(1), decimalIn("10.50", 10, 2), vf(1.5)}, {vi(11), decimalIn("10.50", 10, 2), vf(1.5)},
			{vi(2), decimalIn("1.99", 10, 2), vf(2)}, {vi(2), null, vf(1.5)}, {vi(2), decimalIn("1.5", 10, 2), null},
		}, fn("BETWEEN SYMMETRIC")),
		ternary("more/symsim/between/bigint-int-dec", tBig, tInt, tDec102, [][]types.Value{
			{vi(10000000000), vi(1), decimalIn("5.00", 10, 2)}, {vi(3), vi(5), decimalIn("2.50", 10, 2)}, {vi(3), vi(2), decimalIn("2.50", 10, 2)},
		}, fn("NOT BETWEEN SYMMETRIC")),
		ternary("more/symsim/between/strings", tStr, tStr, tStr, [][]types.Value{{vs("b"), vs("c"), vs("a")}, {vs("d"), vs("c"), vs("a")}, {vs("b"), null, vs("a")}}, fn("BETWEEN SYMMETRIC")),
		unary("more/symsim/between/null-low", tInt, rows1(vi(5), vi(0), vi(1), null), func(x Expr) Expr { return Fn("BETWEEN SYMMETRIC", x, NullLit(), li(1)) }),
		unary("more/symsim/between/not-null-low", tInt, rows1(vi(5), vi(0), vi(1), null), func(x Expr) Expr { return Fn("NOT BETWEEN SYMMETRIC", x, NullLit(), li(1)) }),
		unary("more/symsim/between/literals", tInt, rows1(vi(5), vi(0), null), func(x Expr) Expr { return Fn("BETWEEN SYMMETRIC", x, li(10), li(1)) }),
		ternary("more/symsim/between/string-int", tStr, tInt, tInt, stringIntRows, fn("BETWEEN SYMMETRIC")),
		ternary("more/symsim/between/plain-string-int", tStr, tInt, tInt, stringIntRows, fn("BETWEEN")),
		ternary("more/symsim/between/int-string-dec", tInt, tStr, tDec102, [][]types.Value{{vi(2), vs("3"), decimalIn("1.50", 10, 2)}, {vi(2), vs("1.5"), decimalIn("1.50", 10, 2)}}, fn("BETWEEN SYMMETRIC")),
		ternary("more/symsim/between/reject-date-int", tDate, tInt, tInt, [][]types.Value{{vdate("2024-01-01"), vi(1), vi(2)}}, fn("BETWEEN SYMMETRIC")),
		binary("more/symsim/similar/patterns", tStr, tStr, similarRows, op("SIMILAR TO")),
		binary("more/symsim/similar/not", tStr, tStr, [][]types.Value{
			{vs("abc"), vs("a%")}, {vs("abc"), vs("b%")}, {null, vs("a")}, {vs("a"), null}, {vs("a"), vs("(a")}, {vs("a.c"), vs("a.c")},
		}, op("NOT SIMILAR TO")),
		ternary("more/symsim/similar/escape", tStr, tStr, tStr, escapeRows, fn("SIMILAR TO")),
		ternary("more/symsim/similar/not-escape", tStr, tStr, tStr, escapeRows[:6], fn("NOT SIMILAR TO")),
		unary("more/symsim/similar/const", tStr, rows1(vs("ab1"), vs("ab"), vs("AB1"), null), func(x Expr) Expr { return Fn("SIMILAR TO", x, ls("(a|b)+[[:DIGIT:]]?1")) }),
		unary("more/symsim/similar/const-escape", tStr, rows1(vs("50%"), vs("500"), null), func(x Expr) Expr { return Fn("SIMILAR TO", x, ls("5_!%"), ls("!")) }),
		unary("more/symsim/similar/const-invalid", tStr, rows1(vs("a"), null), func(x Expr) Expr { return Fn("SIMILAR TO", x, ls("a[")) }),
		unary("more/symsim/similar/const-bad-escape", tStr, rows1(vs("a"), null), func(x Expr) Expr { return Fn("SIMILAR TO", x, ls("a"), ls("!!")) }),
		unary("more/symsim/similar/char", types.Char(3), rows1(vs("ab "), vs("abc"), vs("a  "), null), func(x Expr) Expr { return Fn("SIMILAR TO", x, ls("ab_")) }),
		// Java's reading of {n,m} after nothing: a repetition of the empty string.
		binary("more/symsim/similar/java-repeat", tStr, tStr, [][]types.Value{
			{vs(""), vs("{2}")}, {vs("a"), vs("{2}")}, {vs("aa"), vs("a{2}{3}")}, {vs("aaaaaa"), vs("a{2}{3}")}, {vs("aaa"), vs("a*{2}")},
			{vs(""), vs("(|{2})")}, {vs("b"), vs("({2}?b)")}, {vs("a"), vs("a{3,2}")}, {vs("aaa"), vs("a{2,}?")}, {vs("a"), vs("a+?")},
		}, op("SIMILAR TO")),
		// What RE2 cannot express: each is a known deviation.
		unary("more/symsim/dev/possessive", tStr, rows1(vs("aa")), func(x Expr) Expr { return Fn("SIMILAR TO", x, ls("a*+")) }),
		unary("more/symsim/dev/intersection", tStr, rows1(vs("c")), func(x Expr) Expr { return Fn("SIMILAR TO", x, ls("[a-z&&b]")) }),
		unary("more/symsim/dev/repeat-1001", tStr, rows1(vs("a")), func(x Expr) Expr { return Fn("SIMILAR TO", x, ls("a{1,1001}")) }),
		unary("more/symsim/dev/lookahead", tStr, rows1(vs("a")), func(x Expr) Expr { return Fn("SIMILAR TO", x, ls("(?=a)a")) }),
		unary("more/symsim/dev/inline-dotall", tStr, rows1(vs("\n")), func(x Expr) Expr { return Fn("SIMILAR TO", x, ls("(?s)_")) }),
		unary("more/symsim/similar/reject-int", tInt, rows1(vi(1)), func(x Expr) Expr { return Fn("SIMILAR TO", x, ls("1")) }),
	}
}
