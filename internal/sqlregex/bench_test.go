package sqlregex

import (
	"math/rand/v2"
	"regexp"
	"strconv"
	"testing"
)

// nexmarkURLs returns URLs shaped as the Nexmark generator's bids have
// them: https://www.nexmark.com/ and three words of 3 or 4 characters
// (one in 13 a '_') then item.htm?query=1; half of them (the channels
// other than the four hot ones) go on, 9 times in 10, with
// &channel_id= and a number.
func nexmarkURLs(n int) []string {
	r := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		b := make([]byte, 3+r.IntN(2))
		for i := range b {
			if r.IntN(13) == 0 {
				b[i] = '_'
			} else {
				b[i] = byte('a' + r.IntN(26))
			}
		}
		return string(b)
	}
	out := make([]string, n)
	for i := range out {
		u := "https://www.nexmark.com/" + word() + "/" + word() + "/" + word() + "/item.htm?query=1"
		if i%2 == 1 && r.IntN(10) > 0 {
			u += "&channel_id=" + strconv.Itoa(r.IntN(1<<31))
		}
		out[i] = u
	}
	return out
}

// BenchmarkExtract is q21's REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)',
// 2) over Nexmark-shaped URLs: Go's regexp alone ("regexp"), and with
// Regexp's prefilter and anchor ("sqlregex"). One op is one URL.
func BenchmarkExtract(b *testing.B) {
	urls := nexmarkURLs(1000)
	const pattern = `(&|^)channel_id=([^&]*)`
	for _, c := range []struct {
		name string
		find func(string) []int
	}{
		{"regexp", regexp.MustCompile(pattern).FindStringSubmatchIndex},
		{"sqlregex", must(Compile(pattern)).FindStringSubmatchIndex},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			start := cpuNanos()
			i, found := 0, 0
			for b.Loop() {
				if m := c.find(urls[i]); m != nil && m[4] >= 0 {
					found++
				}
				if i++; i == len(urls) {
					i = 0
				}
			}
			b.ReportMetric(float64(cpuNanos()-start)/float64(b.N), "cpu-ns/op")
			if b.N >= len(urls) && found == 0 {
				b.Fatal("no URL has a channel_id")
			}
		})
	}
}

func must(r *Regexp, err error) *Regexp {
	if err != nil {
		panic(err)
	}
	return r
}
