package expr

import (
	"testing"

	"github.com/streamsql/streamsql/types"
)

// TestConvertTZNullable: CONVERT_TZ gives NULL for text that does not
// parse even when every argument is NOT NULL, so its type is nullable, as
// Flink declares it (STRING, forced nullable).
func TestConvertTZNullable(t *testing.T) {
	e := Fn("CONVERT_TZ", ls("not a time"), ls("UTC"), ls("Asia/Shanghai"))
	r, err := Resolve(e)
	if err != nil {
		t.Fatal(err)
	}
	if r.Type().NotNull {
		t.Fatalf("type %s, want a nullable STRING", r.Type())
	}
	p, err := Compile(e, Options{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := p.Eval([]types.Value{})
	if err != nil || !v.IsNull() {
		t.Fatalf("got %v, %v; want NULL", v, err)
	}
}
