package kafkatest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

// OwnBroker is a broker a test started for itself with scripts/kafka.sh
// start, so that it may kill and restart it (the shared brokers must never
// be stopped).
type OwnBroker struct {
	Broker
	script, dir string
}

// StartOwn starts a broker of the test's own (transaction version 1 when
// tv1) with extra server properties ("key=value"), and stops it, removing
// its data, when the test ends. Starting takes seconds. Under CI=true a
// broker that does not start fails the test; otherwise, without Java or
// the broker's jars, the test is skipped.
func StartOwn(t testing.TB, tv1 bool, props ...string) *OwnBroker {
	t.Helper()
	script, err := findScript()
	if err != nil {
		needTool(t, err.Error())
	}
	if _, err := exec.LookPath("java"); err != nil {
		needTool(t, "java is needed to run a Kafka broker (apt-get install openjdk-17-jre-headless)")
	}
	args := []string{script, "start"}
	name := "tv2"
	if tv1 {
		args, name = append(args, "--tv1"), "tv1"
	}
	for _, p := range props {
		args = append(args, "--prop", p)
	}
	out, stderr, err := runScript(4*time.Minute, args...)
	env := parseExports(out)
	b := &OwnBroker{Broker: Broker{Name: name, Addr: env["STREAMSQL_KAFKA_BOOTSTRAP"]}, script: script, dir: env["STREAMSQL_KAFKA_DIR"]}
	if b.dir != "" {
		t.Cleanup(func() {
			if out, err := exec.Command("bash", script, "stop", b.dir).CombinedOutput(); err != nil {
				t.Errorf("stopping the broker: %v\n%s", err, out)
			}
		})
	}
	if err != nil || b.Addr == "" {
		needTool(t, fmt.Sprintf("scripts/kafka.sh start failed: %v\n%s", err, stderr))
	}
	if b.TransactionVersion, err = TransactionVersion(context.Background(), b.Addr); err != nil {
		t.Fatalf("own broker %s does not answer: %v", b.Addr, err)
	}
	return b
}

// Kill SIGKILLs the broker process, as a crash would; its data stays.
func (b *OwnBroker) Kill(t testing.TB) {
	t.Helper()
	if _, stderr, err := runScript(time.Minute, b.script, "kill", b.dir); err != nil {
		t.Fatalf("killing the broker: %v\n%s", err, stderr)
	}
}

// Restart starts the killed broker again on the same ports with the same
// data, and returns once it answers.
func (b *OwnBroker) Restart(t testing.TB) {
	t.Helper()
	if _, stderr, err := runScript(4*time.Minute, b.script, "restart", b.dir); err != nil {
		t.Fatalf("restarting the broker: %v\n%s", err, stderr)
	}
}

// Log returns the broker's log (for a failing test's output).
func (b *OwnBroker) Log() string {
	out, _ := os.ReadFile(b.dir + "/broker.log")
	return string(out)
}

func runScript(timeout time.Duration, args ...string) (stdout []byte, stderr string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", args...)
	var eb bytes.Buffer
	cmd.Stderr = &eb
	stdout, err = cmd.Output()
	return stdout, eb.String(), err
}
