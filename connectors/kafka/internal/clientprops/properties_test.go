package clientprops

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseProperties(t *testing.T) {
	s, err := Parse(map[string]string{
		"bootstrap.servers": "a:9092, b:9092", "group.id": "g", "isolation.level": "read_committed",
		"auto.offset.reset": "latest", "transaction.timeout.ms": "60000", "linger.ms": "10", "batch.size": "65536",
		"compression.type": "zstd", "acks": "all", "enable.idempotence": "true", "fetch.min.bytes": "1",
		"fetch.max.bytes": "1048576", "max.partition.fetch.bytes": "1048576", "fetch.max.wait.ms": "100",
		"request.timeout.ms": "30000", "max.in.flight.requests.per.connection": "5", "client.id": "c",
		"enable.auto.commit": "false", "security.protocol": "PLAINTEXT", "max.poll.records": "500",
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(s.Seeds, ",") != "a:9092,b:9092" || s.GroupID != "g" || !s.ReadCommitted || s.AutoOffsetReset != "latest" ||
		s.TransactionTimeout != time.Minute || s.MaxPollRecords != 500 {
		t.Fatalf("parsed %+v", s)
	}
	if len(s.Producer) == 0 || len(s.Consumer) == 0 || len(s.Common) == 0 {
		t.Fatalf("options not split by role: %+v", s)
	}
}

func TestParsePropertiesErrors(t *testing.T) {
	for _, tc := range []struct {
		props    map[string]string
		key      string
		security bool // a *SecurityError from the security mapping
	}{
		{map[string]string{}, "bootstrap.servers", false},
		{map[string]string{"bootstrap.servers": "a", "no.such.property": "1"}, "no.such.property", false},
		{map[string]string{"bootstrap.servers": "a", "sasl.jaas.config": "secret"}, "sasl.jaas.config", true},
		{map[string]string{"bootstrap.servers": "a", "security.protocol": "SASL_SSL"}, "sasl.mechanism", true},
		{map[string]string{"bootstrap.servers": "a", "transactional.id": "x"}, "transactional.id", false},
		{map[string]string{"bootstrap.servers": "a", "isolation.level": "serializable"}, "isolation.level", false},
		{map[string]string{"bootstrap.servers": "a", "linger.ms": "soon"}, "linger.ms", false},
		{map[string]string{"bootstrap.servers": "a", "acks": "1", "enable.idempotence": "true"}, "acks", false},
		{map[string]string{"bootstrap.servers": "a", "enable.auto.commit": "true"}, "enable.auto.commit", false},
		{map[string]string{"bootstrap.servers": "a", "max.in.flight.requests.per.connection": "6"}, "max.in.flight.requests.per.connection", false},
	} {
		_, err := Parse(tc.props)
		var pe *PropertyError
		var se *SecurityError
		switch {
		case tc.security && (!errors.As(err, &se) || se.Key != tc.key):
			t.Errorf("Parse(%v) = %v, want a SecurityError for %s", tc.props, err, tc.key)
			continue
		case !tc.security && (!errors.As(err, &pe) || pe.Key != tc.key):
			t.Errorf("Parse(%v) = %v, want a PropertyError for %s", tc.props, err, tc.key)
			continue
		}
		if !strings.Contains(err.Error(), "properties."+tc.key) {
			t.Errorf("error %q does not name properties.%s", err, tc.key)
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("error %q shows a secret", err)
		}
	}
}
