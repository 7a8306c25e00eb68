package srtest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"testing"
)

// EnvRealURL names the environment variable with the base URL of a real
// Confluent-compatible registry (Apicurio Registry's Confluent API, started
// by scripts/registry.sh; scripts/test.sh starts one for the whole run).
const EnvRealURL = "STREAMSQL_SCHEMA_REGISTRY_URL"

// RequireReal returns the base URL of the real registry. When none is
// configured it skips t, or fails it when CI=true, as the Kafka broker
// tests do. The registry is shared by every test of the run and keeps what
// it is given: tests use subjects of their own (see Unique) and never
// assume which ids the registry hands out.
func RequireReal(t testing.TB) string {
	t.Helper()
	u := os.Getenv(EnvRealURL)
	if u == "" {
		msg := fmt.Sprintf("%s is not set: this test needs a real schema registry. Run the tests with scripts/test.sh, "+
			"or start one with `eval \"$(scripts/registry.sh start)\"`", EnvRealURL)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return u
}

// RealOrTest returns the real registry's base URL when one is configured;
// otherwise it fails t when CI=true, and else starts a test registry that
// t's cleanup stops. For end-to-end tests that need a registry but not a
// particular one.
func RealOrTest(t testing.TB) string {
	t.Helper()
	if os.Getenv(EnvRealURL) != "" || os.Getenv("CI") == "true" {
		return RequireReal(t)
	}
	r := Start(Options{})
	t.Cleanup(r.Close)
	return r.URL()
}

// Unique returns prefix followed by a random suffix, for subject and topic
// names on the shared real registry.
func Unique(prefix string) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return prefix + "-" + hex.EncodeToString(b)
}
