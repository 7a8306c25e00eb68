package all_test

import (
	"slices"
	"strings"
	"testing"

	_ "github.com/streamsql/streamsql/connectors/all"
	"github.com/streamsql/streamsql/factory"
)

func TestEveryBuiltinIsRegistered(t *testing.T) {
	for _, id := range []string{"blackhole", "datagen", "filesystem", "nexmark", "print"} {
		if !slices.Contains(factory.Default.Connectors(), id) {
			t.Errorf("connector %s is not registered; have %v", id, factory.Default.Connectors())
		}
	}
	for _, id := range []string{"avro", "avro-confluent", "csv", "json", "raw"} {
		if !slices.Contains(factory.Default.Formats(), id) {
			t.Errorf("format %s is not registered; have %v", id, factory.Default.Formats())
		}
	}
}

// TestReferenceDocumentsEveryOption checks that the generated
// configuration reference has a section per connector with its options.
func TestReferenceDocumentsEveryOption(t *testing.T) {
	var b strings.Builder
	if err := factory.Default.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	doc := b.String()
	for _, want := range []string{
		"## Connector `blackhole`", "## Connector `datagen`", "## Connector `filesystem`", "## Connector `nexmark`", "## Connector `print`",
		"`first-event.rate`", "`events.num`", "`bid.proportion`",
		"`rows-per-second`", "`number-of-rows`", "`fields.*`", "`seed`",
		"`print-identifier`", "`standard-error`", "`sink.parallelism`",
		"`path`", "`sink.rolling-policy.file-size`", "`sink.rolling-policy.rollover-interval`",
		"`sink.rolling-policy.check-interval`", "`partition.default-name`",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("reference lacks %s", want)
		}
	}
}
