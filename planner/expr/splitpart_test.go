package expr

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"github.com/streamsql/streamsql/types"
)

// TestSplitPart checks SPLIT_INDEX's splitPart against strings.Split, on
// every index up to past the last part, over strings and separators made
// to overlap and repeat ("aa" in "aaaaa"), empty parts, multi-byte runes
// and URLs like Nexmark's.
func TestSplitPart(t *testing.T) {
	cases := [][2]string{
		{"https://www.nexmark.com/abc/def/ghi/item.htm?query=1", "/"},
		{"", "/"}, {"/", "/"}, {"//", "/"}, {"a/b/", "/"}, {"/a", "/"},
		{"aaaaa", "aa"}, {"abababa", "aba"}, {"x", "xyz"}, {"日本/語", "/"}, {"日本語日本", "本"},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "/", "ab", "日"}
	for range 2000 {
		var sb strings.Builder
		for range rng.IntN(12) {
			sb.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		cases = append(cases, [2]string{sb.String(), alphabet[rng.IntN(len(alphabet))] + strings.Repeat("a", rng.IntN(2))})
	}
	for _, c := range cases {
		parts := strings.Split(c[0], c[1])
		for n := range len(parts) + 2 {
			got, ok := splitPart(c[0], c[1], int64(n))
			if want := n < len(parts); ok != want || (ok && got != parts[n]) {
				t.Fatalf("splitPart(%q, %q, %d) = %q, %v; strings.Split gives %q", c[0], c[1], n, got, ok, parts)
			}
		}
	}
}

// TestSplitIndexConstantArgs checks SPLIT_INDEX with a constant delimiter
// and index (compiled without evaluating them per row) against the same
// call with the delimiter and index read from columns, which takes the
// general path: values, NULLs and negative or missing indexes, over one-
// and multi-byte delimiters and a string read from a ROW field.
func TestSplitIndexConstantArgs(t *testing.T) {
	s := Col(0, "s", types.String())
	r := Col(3, "r", types.RowType(types.Field{Name: "url", Type: types.String()}))
	general := Fn("SPLIT_INDEX", s, Col(1, "d", types.String()), Col(2, "i", types.Int()))
	strs := []types.Value{types.Str("https://www.nexmark.com/abc/def/ghi/item.htm?query=1"), types.Str(""), types.Str("//"),
		types.Str("a::b::c"), types.Str("日本/語/"), {}}
	for _, sep := range []string{"/", "::", "本", ""} {
		for n := int64(-1); n <= 7; n++ {
			for _, arg := range []Expr{s, Fn("FIELD", r, ls("url"))} {
				p, err := Compile(Fn("SPLIT_INDEX", arg, ls(sep), li(n)), Options{})
				if err != nil {
					t.Fatal(err)
				}
				g, err := Compile(general, Options{})
				if err != nil {
					t.Fatal(err)
				}
				for _, v := range strs {
					row := []types.Value{v, types.Str(sep), types.Int64(n), types.List([]types.Value{v})}
					got, err1 := p.Eval(row)
					want, err2 := g.Eval(row)
					if err1 != nil || err2 != nil || show(got) != show(want) {
						t.Fatalf("SPLIT_INDEX(%s, %q, %d) over %s = %s (%v), want %s (%v)", arg, sep, n, show(v), show(got), err1, show(want), err2)
					}
				}
			}
		}
	}
}

// TestJavaLower checks LOWER's javaLower: an ASCII string as
// strings.ToLower gives it (the fast path), İ and a final Σ as Java
// lower-cases them, other non-ASCII text by Go's simple mapping.
func TestJavaLower(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		b := make([]byte, rng.IntN(20))
		for i := range b {
			b[i] = byte(rng.IntN(0x80))
		}
		if s := string(b); javaLower(s) != strings.ToLower(s) {
			t.Fatalf("javaLower(%q) = %q, want %q", s, javaLower(s), strings.ToLower(s))
		}
	}
	for in, want := range map[string]string{"Google": "google", "apple": "apple", "İx": "i\u0307x", "ΟΔΟΣ": "οδος", "ΣΑ": "σα", "ÄÖ": "äö", "": ""} {
		if got := javaLower(in); got != want {
			t.Errorf("javaLower(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestStrUnopOperands checks strUnop, which hands a string function its
// operand's string read in place: LOWER and SPLIT_INDEX over a column, a
// ROW's field (the ROW or the field NULL), a constant (NULL too) and a
// nested call give what they give when every argument is read through its
// evaluator (viaArgs).
func TestStrUnopOperands(t *testing.T) {
	s := Col(0, "s", types.String())
	r := Col(1, "r", types.RowType(types.Field{Name: "n", Type: types.Int()}, types.Field{Name: "url", Type: types.String()}))
	args := []Expr{s, Fn("FIELD", r, ls("url")), ls("https://x.org/a/b"), Lit(types.String(), types.Value{}), Fn("UPPER", s)}
	strs := []types.Value{types.Str("https://www.Nexmark.com/abc/DEF/ghi/item.htm?query=1"), types.Str(""), types.Str("A/b"), {}}
	for _, arg := range args {
		for _, e := range []Expr{Fn("LOWER", arg), Fn("SPLIT_INDEX", arg, ls("/"), li(3)), Fn("SPLIT_INDEX", arg, ls("::"), li(0))} {
			rs, err := Resolve(e)
			if err != nil {
				t.Fatal(err)
			}
			got, err := newBuilder(Options{}).compile(rs)
			if err != nil {
				t.Fatal(err)
			}
			ref := newBuilder(Options{})
			ref.viaArgs = true
			want, err := ref.compile(rs)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range strs {
				for _, rv := range []types.Value{{}, types.List([]types.Value{types.Int64(1), v})} {
					row := []types.Value{v, rv}
					g, err1 := got(row)
					w, err2 := want(row)
					if err1 != nil || err2 != nil || show(g) != show(w) {
						t.Fatalf("%s over %s, %s = %s (%v), want %s (%v)", e, show(v), show(rv), show(g), err1, show(w), err2)
					}
				}
			}
		}
	}
}

// TestSplitIndexShared checks SPLIT_INDEX calls that share one split of
// their string per row (CompileFlow's splitGroups: q22's three
// SPLIT_INDEX(url, '/', k)) against their separate compilations, row by
// row: indexes within and past the string's tokens, empty tokens, a NULL
// string, two groups on one string with different delimiters, a
// lone call, a string from a nested call, and a string whose bytes are
// rewritten in place between rows (a reused buffer: same pointer and
// length, new content), which must be split again.
func TestSplitIndexShared(t *testing.T) {
	s := Col(0, "s", types.String())
	r := Col(1, "r", types.RowType(types.Field{Name: "url", Type: types.String()}))
	url := func() Expr { return Fn("FIELD", r, ls("url")) }
	split := func(x Expr, d string, k int64) Expr { return Fn("SPLIT_INDEX", x, ls(d), li(k)) }
	proj := []Expr{split(url(), "/", 3), split(url(), "/", 4), split(url(), "/", 5), split(url(), "/", 0),
		split(s, "/", 1), split(s, "-", 1), split(s, "-", 0), split(s, "/", 7), split(s, "::", 1),
		split(Fn("UPPER", s), "/", 2), split(Fn("UPPER", s), "/", 1)}
	_, ps, memo, err := CompileFlow(nil, [][]Expr{proj}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if memo == nil || len(memo.splits) != 4 {
		t.Fatalf("memo %v: want 4 split groups (url '/', s '/', s '-', UPPER(s) '/')", memo)
	}
	ref, err := CompileProjection(proj, Options{})
	if err != nil {
		t.Fatal(err)
	}
	buf := []byte("https://www.nexmark.com/abc/def/ghi/item.htm?query=1")
	inPlace := unsafe.String(&buf[0], len(buf))
	strs := []types.Value{types.Str("https://www.nexmark.com/abc/def/ghi/item.htm?query=1"), types.Str(""), types.Str("a/b"),
		types.Str("//-/"), types.Str("x-y/z-w/v"), {}, types.Str("a::b/c::d"), types.Str(inPlace), types.Str(inPlace)}
	for i, v := range strs {
		if i == len(strs)-1 {
			copy(buf, "https://w/x/yy/zzz/-1-2-3-4-5/item.htm?query=2/3/4/5/6/7")
		}
		for _, rv := range []types.Value{{}, types.List([]types.Value{v})} {
			row := []types.Value{v, rv}
			memo.Next()
			got, want := make([]types.Value, len(proj)), make([]types.Value, len(proj))
			if err := ps[0].Project(row, got); err != nil {
				t.Fatal(err)
			}
			if err := ref.Project(row, want); err != nil {
				t.Fatal(err)
			}
			for k := range proj {
				if show(got[k]) != show(want[k]) {
					t.Fatalf("row %d (%s, %s): %s = %s, want %s", i, show(v), show(rv), proj[k], show(got[k]), show(want[k]))
				}
			}
		}
	}
}
