package formats

import (
	"reflect"
	"testing"

	"github.com/streamsql/streamsql/factory"
)

func TestBuiltinsRegistered(t *testing.T) {
	if got := factory.Default.Formats(); !reflect.DeepEqual(got, []string{"avro", "avro-confluent", "canal-json", "csv", "debezium-json", "json", "maxwell-json", "raw"}) {
		t.Errorf("registered formats %v", got)
	}
}
