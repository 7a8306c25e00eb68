package kafkatest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// SecureOptions configures a broker with security listeners.
type SecureOptions struct {
	// ScramUsers are SCRAM-SHA-256 and SCRAM-SHA-512 users (name →
	// password), added when the storage is formatted.
	ScramUsers map[string]string
	// PlainUsers are PLAIN users (name → password) of the SASL_PLAINTEXT
	// listener.
	PlainUsers map[string]string
	// ACL enables the standard authorizer: only the PLAINTEXT listener's
	// principal (User:ANONYMOUS) may do anything until ACLs are added.
	ACL bool
}

// SecureBroker is a broker started by the test with security listeners.
type SecureBroker struct {
	// Plain is its PLAINTEXT listener, whose principal is a super user:
	// administer topics and ACLs through it.
	Plain Broker
	// SASLSSL is the SASL_SSL listener (SCRAM-SHA-256/512), SASLPlaintext
	// the SASL_PLAINTEXT one (PLAIN, unsecured OAUTHBEARER), SSL the TLS
	// listener that requires a client certificate signed by CA (its
	// principal is the certificate's CN).
	SASLSSL, SASLPlaintext, SSL string
	// CA signed the broker's certificate and is the only CA the broker
	// trusts for client certificates.
	CA *CA
	// Dir holds the files given to the broker; a test may write its own
	// there too.
	Dir string
}

// StartSecure starts a broker of its own with scripts/kafka.sh start
// --security, with certificates made here, and stops it when the test ends.
// Starting takes a few seconds; share one among subtests. Under CI=true a
// broker that does not start fails the test; otherwise, without Java or
// the broker's jars, the test is skipped.
func StartSecure(t testing.TB, o SecureOptions) *SecureBroker {
	t.Helper()
	script, err := findScript()
	if err != nil {
		needTool(t, err.Error())
	}
	if _, err := exec.LookPath("java"); err != nil {
		needTool(t, "java is needed to run a Kafka broker (apt-get install openjdk-17-jre-headless)")
	}
	dir := t.TempDir()
	ca := NewCA(t, "streamsql test CA")
	server := ca.Issue(t, "broker", "127.0.0.1", "localhost")
	WriteFile(t, dir, "server.pass", []byte("server-store-pass"))
	WriteFile(t, dir, "server.p12", server.PKCS12(t, "server-store-pass"))
	WriteFile(t, dir, "ca.pem", ca.PEM)
	var scram, plain bytes.Buffer
	for _, name := range sortedNames(o.ScramUsers) {
		for _, m := range []string{"SCRAM-SHA-256", "SCRAM-SHA-512"} {
			fmt.Fprintf(&scram, "%s=[name=%s,password=%s]\n", m, name, o.ScramUsers[name])
		}
	}
	for _, name := range sortedNames(o.PlainUsers) {
		fmt.Fprintf(&plain, "%s=%s\n", name, o.PlainUsers[name])
	}
	WriteFile(t, dir, "scram-users", scram.Bytes())
	WriteFile(t, dir, "plain-users", plain.Bytes())

	args := []string{script, "start", "--security", dir}
	if o.ACL {
		args = append(args, "--acl")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	env := parseExports(out)
	if kdir := env["STREAMSQL_KAFKA_DIR"]; kdir != "" {
		t.Cleanup(func() {
			if out, err := exec.Command("bash", script, "stop", kdir).CombinedOutput(); err != nil {
				t.Errorf("stopping the broker: %v\n%s", err, out)
			}
		})
	}
	if err != nil {
		msg := fmt.Sprintf("scripts/kafka.sh start --security failed: %v\n%s", err, stderr.String())
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	sb := &SecureBroker{
		Plain:         Broker{Name: "secure", Addr: env["STREAMSQL_KAFKA_BOOTSTRAP"]},
		SASLSSL:       env["STREAMSQL_KAFKA_SASL_SSL_BOOTSTRAP"],
		SASLPlaintext: env["STREAMSQL_KAFKA_SASL_PLAINTEXT_BOOTSTRAP"],
		SSL:           env["STREAMSQL_KAFKA_SSL_BOOTSTRAP"],
		CA:            ca,
		Dir:           dir,
	}
	if sb.Plain.Addr == "" || sb.SASLSSL == "" || sb.SASLPlaintext == "" || sb.SSL == "" {
		t.Fatalf("scripts/kafka.sh start --security printed no listener addresses:\n%s", out)
	}
	return sb
}

func sortedNames(m map[string]string) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// parseExports reads `export NAME=VALUE` lines.
func parseExports(out []byte) map[string]string {
	env := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "export ")
		if !ok {
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			env[k] = v
		}
	}
	return env
}

// findScript finds scripts/kafka.sh above the working directory (a test
// runs in its package's directory).
func findScript() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, "scripts", "kafka.sh")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("scripts/kafka.sh not found above the working directory")
		}
		dir = parent
	}
}
