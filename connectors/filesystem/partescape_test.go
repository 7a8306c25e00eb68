package filesystem

import (
	"fmt"
	"strings"
	"testing"
)

// TestEscapedPartitionValueEveryByte checks appendEscapedPartitionValue
// against Hive's rule written byte by byte (control characters, DEL and
// "#%'*/:=?\{[]^ become %XX, every other byte stays) for every byte alone,
// between kept characters and in runs, and that unescapePartitionValue
// reverses it.
func TestEscapedPartitionValueEveryByte(t *testing.T) {
	plain := func(s string) string {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c < 0x20 || c == 0x7f || strings.IndexByte("\"#%'*/:=?\\{[]^", c) >= 0 {
				fmt.Fprintf(&b, "%%%02X", c)
				continue
			}
			b.WriteByte(c)
		}
		return b.String()
	}
	var all []byte
	for c := range 256 {
		all = append(all, byte(c))
		for _, s := range []string{string([]byte{byte(c)}), "ab" + string([]byte{byte(c)}) + "cd",
			string([]byte{byte(c), byte(c)}) + "x" + string([]byte{byte(c)})} {
			got := string(appendEscapedPartitionValue([]byte("k="), s))
			if want := "k=" + plain(s); got != want {
				t.Errorf("%q: got %q, want %q", s, got, want)
			}
		}
	}
	s := string(all) + "2015-07-15" + string(all)
	got := string(appendEscapedPartitionValue(nil, s))
	if want := plain(s); got != want {
		t.Errorf("every byte: got %q, want %q", got, want)
	}
	if back := unescapePartitionValue(got); back != s {
		t.Errorf("unescaped %q, want %q", back, s)
	}
}
