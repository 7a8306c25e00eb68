package suggest

import (
	"slices"
	"strings"
	"testing"
)

func TestDistance(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"STRIN", "STRING", 1}, {"kitten", "sitting", 3},
		{strings.Repeat("a", 300), "a", 1 << 30},
	}
	for _, c := range cases {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestNearest(t *testing.T) {
	cands := []string{"topic", "topic-pattern", "format"}
	if got := Nearest("topc", cands, 2); got != "topic" {
		t.Errorf("Nearest(topc) = %q", got)
	}
	if got := Nearest("zzzzzz", cands, 2); got != "" {
		t.Errorf("Nearest(zzzzzz) = %q, want none", got)
	}
	if got := Nearest("format", cands, 0); got != "format" {
		t.Errorf("exact match with maxDist 0 = %q", got)
	}
}

func TestDistanceCountsRunes(t *testing.T) {
	if got := Distance("größe", "grösse"); got != 2 {
		t.Errorf("Distance(größe, grösse) = %d, want 2", got)
	}
}

func TestTypo(t *testing.T) {
	cands := []string{"UPPER", "LOWER", "CHAR_LENGTH"}
	cases := []struct{ word, want string }{
		{"UPPR", "UPPER"},              // one edit
		{"CHAR_LENGHT", "CHAR_LENGTH"}, // two edits
		{"XYZ", ""},                    // too far
		{"upper", ""},                  // case counts
	}
	for _, c := range cases {
		if got := Typo(c.word, cands); got != c.want {
			t.Errorf("Typo(%q) = %q, want %q", c.word, got, c.want)
		}
	}
}

func TestTypoFold(t *testing.T) {
	cands := []string{"Orders", "orderz", "customers"}
	cases := []struct{ word, want string }{
		{"ORDERS", "Orders"},      // equal but for case wins over the earlier-tied
		{"orderx", "Orders"},      // first of equally close, as written
		{"CUSTOMER", "customers"}, // case ignored in the distance
		{"products", ""},
	}
	for _, c := range cases {
		if got := TypoFold(c.word, cands); got != c.want {
			t.Errorf("TypoFold(%q) = %q, want %q", c.word, got, c.want)
		}
	}
}

func TestClosest(t *testing.T) {
	opts := []string{"connector", "format", "scan.startup.mode", "scan.startup.timestamp-millis", "scan.bounded.mode",
		"sink.partitioner", "topic", "topic-pattern", "properties.group.id"}
	if got := Closest("scan.startup.mdoe", opts, 3); !slices.Equal(got, []string{"scan.startup.mode", "scan.startup.timestamp-millis", "scan.bounded.mode"}) {
		t.Errorf("Closest(scan.startup.mdoe) = %q", got)
	}
	if got := Closest("topik", opts, 2); !slices.Equal(got, []string{"topic", "format"}) {
		t.Errorf("Closest(topik) = %q", got)
	}
	if got := Closest("x", opts[:1], 5); !slices.Equal(got, []string{"connector"}) {
		t.Errorf("Closest with one candidate = %q", got)
	}
}
