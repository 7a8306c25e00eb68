package nexmark

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestPriceNearTies checks the prices at their hardest: the public
// generator's own prices (Java's Math.round(Math.pow(10, 6d) * 100)) for
// values of d within a few ulps of a rounding tie
// (testdata/reference/prices.txt, written by tools/nexmark-reference),
// where the last bits of the power decide the cent. Go's math.Pow alone
// gets some of them wrong (which shows the file holds such cases); price
// must get them all.
func TestPriceNearTies(t *testing.T) {
	f, err := os.Open("testdata/reference/prices.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n, naiveWrong := 0, 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		bits, want, ok := strings.Cut(line, " ")
		if !ok {
			t.Fatalf("bad line %q", line)
		}
		b, err1 := strconv.ParseUint(bits, 16, 64)
		p, err2 := strconv.ParseInt(want, 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("bad line %q", line)
		}
		d := math.Float64frombits(b)
		if got := price(d); got != p {
			t.Errorf("price(%v) = %d, the reference %d", d, got, p)
		}
		if javaRound(math.Pow(10, d*6)*100) != p {
			naiveWrong++
		}
		n++
	}
	if n < 1000 || naiveWrong == 0 {
		t.Fatalf("%d reference prices, %d of which math.Pow alone gets wrong: the file does not exercise rounding ties", n, naiveWrong)
	}
	t.Logf("%d near-tie prices; Go's math.Pow alone would get %d wrong", n, naiveWrong)
}

// TestJavaRound checks javaRound at the edges of Java's Math.round.
func TestJavaRound(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want int64
	}{
		{0.5, 1}, {-0.5, 0}, {1.5, 2}, {-1.5, -1}, {2.4999999999999996, 2}, {0.49999999999999994, 0},
		{4503599627370495.5, 4503599627370496}, {1e20, math.MaxInt64}, {-1e20, math.MinInt64}, {math.NaN(), 0},
	} {
		if got := javaRound(c.in); got != c.want {
			t.Errorf("javaRound(%v) = %d, want %d", c.in, got, c.want)
		}
	}
}
