package kafkatest

import (
	"context"
	"testing"
	"time"
)

// TestStartSecure checks that the security options of scripts/kafka.sh give
// a broker whose PLAINTEXT listener answers and that prints the addresses
// of its three security listeners. (connectors/kafka tests the listeners
// themselves with the client's security configuration.)
func TestStartSecure(t *testing.T) {
	sb := StartSecure(t, SecureOptions{ScramUsers: map[string]string{"alice": "alice-secret"}, ACL: true})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := TransactionVersion(ctx, sb.Plain.Addr); err != nil {
		t.Fatalf("PLAINTEXT listener %s: %v", sb.Plain.Addr, err)
	}
	for name, addr := range map[string]string{"SASL_SSL": sb.SASLSSL, "SASL_PLAINTEXT": sb.SASLPlaintext, "SSL": sb.SSL} {
		if addr == sb.Plain.Addr {
			t.Errorf("%s listener has the PLAINTEXT listener's address %s", name, addr)
		}
	}
}
