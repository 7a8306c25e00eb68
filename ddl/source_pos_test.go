package ddl

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestPosColumnsAnyOrder: posOrig counts columns from the last position it
// computed, forwards or backwards; asked in any order, it must give what
// counting from the line start gives.
func TestPosColumnsAnyOrder(t *testing.T) {
	text := "\uFEFFSELECT 'é名' AS a,\n  x OR y OR '前' OR z -- ü\n\nlast line 名前"
	s := newSource("f.sql", text)
	var offs []int
	for off := range text {
		offs = append(offs, off)
	}
	offs = append(offs, len(text))
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 3 {
		if round > 0 {
			r.Shuffle(len(offs), func(i, j int) { offs[i], offs[j] = offs[j], offs[i] })
		}
		for _, off := range offs {
			got := s.posOrig(off)
			start := strings.LastIndexByte(text[:off], '\n') + 1
			if start == 0 && off >= len("\uFEFF") {
				start = len("\uFEFF")
			}
			want := utf8.RuneCountInString(text[start:off]) + 1
			if got.Column != want || got.Line != strings.Count(text[:off], "\n")+1 {
				t.Fatalf("round %d: offset %d at %d:%d, want %d:%d", round, off, got.Line, got.Column, strings.Count(text[:off], "\n")+1, want)
			}
		}
	}
}
