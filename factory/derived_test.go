package factory

import (
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/option"
)

// TestWithDerived checks that a derived option reaches the typed config
// and the table's options without touching the validated original, and
// that a key the connector does not declare or a value its type refuses
// is an error.
func TestWithDerived(t *testing.T) {
	r := NewRegistry()
	prefix := option.String("sink.prefix")
	retries := option.Int("sink.retries").Default(3)
	r.MustRegisterConnector(ConnectorFactory{
		Identifier: "mem",
		Options:    []option.Option{option.String("name").Required(), prefix, retries},
		NewSink:    func(Context) (connector.Sink, error) { return memSink{}, nil },
	})
	v, err := r.Validate(Table{Name: "t", Options: map[string]string{"connector": "mem", "name": "a"}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := v.WithDerived(map[string]string{"sink.prefix": "job-t", "sink.retries": "5"})
	if err != nil {
		t.Fatal(err)
	}
	if got := prefix.Get(d.Config); got != "job-t" {
		t.Errorf("derived prefix = %q, want job-t", got)
	}
	if got := retries.Get(d.Config); got != 5 {
		t.Errorf("derived retries = %d, want 5", got)
	}
	if got := option.String("name").Get(d.Config); got != "a" {
		t.Errorf("validated name = %q, want a", got)
	}
	if d.Table.Options["sink.prefix"] != "job-t" || d.Table.Options["name"] != "a" {
		t.Errorf("derived table options = %v", d.Table.Options)
	}
	if v.Config.Has(prefix) || v.Table.Options["sink.prefix"] != "" {
		t.Errorf("the original validated table changed: %v", v.Table.Options)
	}
	if _, err := v.WithDerived(map[string]string{"sink.other": "x"}); err == nil || !strings.Contains(err.Error(), "does not declare") {
		t.Errorf("undeclared derived option: err = %v", err)
	}
	if _, err := v.WithDerived(map[string]string{"sink.retries": "many"}); err == nil || !strings.Contains(err.Error(), "sink.retries") {
		t.Errorf("invalid derived value: err = %v", err)
	}
}
