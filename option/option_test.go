package option_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/streamsql/streamsql/option"
)

// TestValidatorFirstKeyWins checks the job settings' rule for aliases: the
// own key wins over a deprecated one without a conflict, and the use of the
// deprecated key alone is recorded.
func TestValidatorFirstKeyWins(t *testing.T) {
	dir := option.String("execution.checkpointing.dir").DeprecatedKey("state.checkpoints.dir", nil)
	v := &option.Validator{Options: map[string]string{"execution.checkpointing.dir": "/a", "state.checkpoints.dir": "/b"}, FirstKeyWins: true}
	c := v.Parse("", []option.Option{dir})
	if got := dir.Get(c); got != "/a" || len(v.Conflicts) != 0 {
		t.Fatalf("got %q, conflicts %v; want /a and none", got, v.Conflicts)
	}
	v = &option.Validator{Options: map[string]string{"execution.checkpointing.dir": "/a", "state.checkpoints.dir": "/b"}}
	v.Parse("", []option.Option{dir})
	var ce *option.ConflictError
	if len(v.Conflicts) != 1 || !errors.As(v.Conflicts[0], &ce) {
		t.Fatalf("without FirstKeyWins: conflicts %v, want one ConflictError", v.Conflicts)
	}
	v = &option.Validator{Options: map[string]string{"state.checkpoints.dir": "/b", "other": "x"}}
	c = v.Parse("", []option.Option{dir})
	if dir.Get(c) != "/b" || c.KeyUsed(dir) != "state.checkpoints.dir" || len(v.Deprecations) != 1 {
		t.Fatalf("deprecated key: %q via %q, deprecations %v", dir.Get(c), c.KeyUsed(dir), v.Deprecations)
	}
	if got := v.Unconsumed(); !slices.Equal(got, []string{"other"}) {
		t.Fatalf("Unconsumed = %v, want [other]", got)
	}
}

// TestDefaultsParseBack checks that an option's rendered default (what
// the reference shows) parses to the default itself.
func TestDefaultsParseBack(t *testing.T) {
	d := option.Duration("d").Default(10 * time.Minute)
	if info := d.Info(); !info.HasDefault || info.Default != "10 min" {
		t.Fatalf("Info = %+v", info)
	}
	if got, err := d.Parse(d.Info().Default); err != nil || got != 10*time.Minute {
		t.Fatalf("Parse(%q) = %v, %v", d.Info().Default, got, err)
	}
	f := option.Float("f").Default(1.5)
	if got, err := f.Parse(f.Format(1.5)); err != nil || got != 1.5 {
		t.Fatalf("float: %v, %v", got, err)
	}
	if _, err := option.Int("i").Parse("x"); err == nil {
		t.Fatal("Int parsed x")
	}
}

// TestInvalidValue checks that a value that does not parse is an
// *InvalidValueError naming the key written and the allowed values.
func TestInvalidValue(t *testing.T) {
	mode := option.Enum("mode", "A", "B").DeprecatedKey("old-mode", nil)
	v := &option.Validator{Options: map[string]string{"old-mode": "c"}}
	v.Parse("", []option.Option{mode})
	var ie *option.InvalidValueError
	if len(v.Invalid) != 1 || !errors.As(v.Invalid[0], &ie) || ie.Key != "old-mode" || !slices.Equal(ie.Allowed, []string{"A", "B"}) {
		t.Fatalf("Invalid = %v", v.Invalid)
	}
}
