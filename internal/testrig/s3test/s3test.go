// Package s3test gives tests the real S3-compatible server that
// scripts/test.sh starts (scripts/s3.sh: SeaweedFS): its endpoint and
// credentials from the environment, a unique key prefix per test in a
// shared bucket, settings for a job, and servers of a test's own that it
// can kill and restart.
//
// With CI=true a test whose server is missing fails; otherwise it skips.
package s3test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"github.com/streamsql/streamsql/internal/s3fs"
	"github.com/streamsql/streamsql/internal/s3fs/s3client"
)

// The environment variables scripts/s3.sh exports.
const (
	EnvEndpoint  = "STREAMSQL_S3_ENDPOINT"
	EnvAccessKey = "STREAMSQL_S3_ACCESS_KEY"
	EnvSecretKey = "STREAMSQL_S3_SECRET_KEY"
	EnvDir       = "STREAMSQL_S3_DIR"
)

// Bucket is the bucket tests share; each test works under its own prefix.
const Bucket = "streamsql-test"

// Server is an S3-compatible server for tests.
type Server struct {
	// Endpoint is http://127.0.0.1:PORT.
	Endpoint string
	// AccessKey and SecretKey are the server's one identity.
	AccessKey, SecretKey string
	// Dir is the server's directory (scripts/s3.sh kill|restart|stop DIR).
	Dir string
}

// Require returns the server scripts/test.sh started, with the shared
// bucket created.
func Require(t testing.TB) Server {
	t.Helper()
	ep := os.Getenv(EnvEndpoint)
	if ep == "" {
		msg := EnvEndpoint + " is not set: this test needs a real S3-compatible server. Run the tests with scripts/test.sh, " +
			"or start one with `eval \"$(scripts/s3.sh start)\"`"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	s := Server{Endpoint: ep, AccessKey: os.Getenv(EnvAccessKey), SecretKey: os.Getenv(EnvSecretKey), Dir: os.Getenv(EnvDir)}
	s.CreateBucket(t, Bucket)
	return s
}

// Config returns the client configuration of the server.
func (s Server) Config() s3fs.Config {
	return s3fs.Config{Endpoint: s.Endpoint, PathStyle: true, AccessKey: s.AccessKey, SecretKey: s3fs.Secret(s.SecretKey), Region: "us-east-1"}
}

// Settings returns the job settings that point the S3 client at the
// server (s3.endpoint, s3.path.style.access, s3.access-key,
// s3.secret-key).
func (s Server) Settings() map[string]string {
	return map[string]string{s3fs.KeyEndpoint: s.Endpoint, s3fs.KeyPathStyle: "true",
		s3fs.KeyAccessKey: s.AccessKey, s3fs.KeySecretKey: s.SecretKey}
}

// SQL returns Settings as SET statements, one a line.
func (s Server) SQL() string {
	var b strings.Builder
	for _, k := range []string{s3fs.KeyEndpoint, s3fs.KeyPathStyle, s3fs.KeyAccessKey, s3fs.KeySecretKey} {
		fmt.Fprintf(&b, "SET '%s' = '%s';\n", k, s.Settings()[k])
	}
	return b.String()
}

// Client returns a client of the server.
func (s Server) Client(t testing.TB) *s3client.Client {
	t.Helper()
	c, err := s3client.New(context.Background(), s.Config())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// API returns the AWS SDK's own client of the server, for checks that do
// not go through the code under test.
func (s Server) API(t testing.TB) *s3.Client {
	t.Helper()
	return s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(s.Endpoint), UsePathStyle: true,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: s.AccessKey, SecretAccessKey: s.SecretKey}, nil
		})})
}

// CreateBucket creates a bucket unless it exists.
func (s Server) CreateBucket(t testing.TB, bucket string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := s.API(t).CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)})
	var ae smithy.APIError
	if err != nil && !(errors.As(err, &ae) && (ae.ErrorCode() == "BucketAlreadyOwnedByYou" || ae.ErrorCode() == "BucketAlreadyExists")) {
		t.Fatalf("create bucket %s on %s: %v", bucket, s.Endpoint, err)
	}
}

// Prefix returns a location no other test uses: s3://streamsql-test/<name>-<random>.
func (s Server) Prefix(t testing.TB) s3fs.Location {
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := strings.NewReplacer("/", "-", " ", "-", "#", "-").Replace(t.Name())
	if len(name) > 60 {
		name = name[:60]
	}
	return s3fs.Location{Bucket: Bucket, Prefix: strings.ToLower(name) + "-" + hex.EncodeToString(b[:])}
}

// Keys returns the keys under a location, sorted.
func (s Server) Keys(t testing.TB, loc s3fs.Location) []string {
	t.Helper()
	objs, err := s.Client(t).List(context.Background(), loc.Bucket, loc.Dir())
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]string, len(objs))
	for i, o := range objs {
		keys[i] = strings.TrimPrefix(o.Key, loc.Dir())
	}
	return keys
}

// Root returns the repository's root, found from the working directory.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.Contains(b, []byte("module github.com/streamsql/streamsql\n")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("the repository's root (go.mod of github.com/streamsql/streamsql) is not above the working directory")
		}
		dir = parent
	}
}

// Own is a server of one test's own, which it may kill and restart.
type Own struct {
	Server
	root string
}

// Start starts a server of the test's own with scripts/s3.sh (the
// shared bucket created) and stops it when the test ends. Starting takes
// a few seconds once weed is built.
func Start(t testing.TB) *Own {
	t.Helper()
	if os.Getenv(EnvEndpoint) == "" {
		Require(t) // skips, or fails under CI, with the same message
	}
	root := Root(t)
	out, err := script(root, "start")
	if err != nil {
		t.Fatalf("scripts/s3.sh start: %v", err)
	}
	env := map[string]string{}
	for line := range strings.SplitSeq(out, "\n") {
		if k, v, ok := strings.Cut(strings.TrimPrefix(line, "export "), "="); ok {
			env[k] = v
		}
	}
	o := &Own{Server: Server{Endpoint: env[EnvEndpoint], AccessKey: env[EnvAccessKey], SecretKey: env[EnvSecretKey], Dir: env[EnvDir]}, root: root}
	t.Cleanup(func() { _, _ = script(root, "stop", o.Dir) })
	o.CreateBucket(t, Bucket)
	return o
}

// Kill SIGKILLs the server; its data stays.
func (o *Own) Kill(t testing.TB) {
	t.Helper()
	if _, err := script(o.root, "kill", o.Dir); err != nil {
		t.Fatalf("scripts/s3.sh kill: %v", err)
	}
}

// Restart starts the killed server again, with its data, on its ports.
func (o *Own) Restart(t testing.TB) {
	t.Helper()
	if _, err := script(o.root, "restart", o.Dir); err != nil {
		t.Fatalf("scripts/s3.sh restart: %v", err)
	}
}

func script(root string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute) // a first build of weed takes minutes
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "bash", append([]string{filepath.Join(root, "scripts", "s3.sh")}, args...)...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%w\n%s", err, stderr.String())
	}
	return string(out), nil
}

// Proxy forwards TCP connections to a server until it is broken: a
// network outage between a client and the object store, without the
// store's own restart.
type Proxy struct {
	// Server is the proxied server with the proxy's endpoint.
	Server
	addr, target string

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]bool
}

// NewProxy starts a proxy to srv; it stops when the test ends.
func NewProxy(t testing.TB, srv Server) *Proxy {
	t.Helper()
	u, err := url.Parse(srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Server: srv, addr: ln.Addr().String(), target: u.Host, conns: map[net.Conn]bool{}}
	p.Endpoint = "http://" + p.addr
	p.serve(ln)
	t.Cleanup(p.Break)
	return p
}

func (p *Proxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.forward(c)
		}
	}()
}

func (p *Proxy) forward(c net.Conn) {
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.ln == nil {
		p.mu.Unlock()
		c.Close()
		up.Close()
		return
	}
	p.conns[c], p.conns[up] = true, true
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		done <- struct{}{}
	}
	go cp(up, c)
	go cp(c, up)
	<-done
	c.Close()
	up.Close()
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, up)
	p.mu.Unlock()
}

// Break refuses new connections and cuts the open ones.
func (p *Proxy) Break() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
	}
}

// Heal accepts connections again, on the same address.
func (p *Proxy) Heal(t testing.TB) {
	t.Helper()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		t.Fatalf("proxy: listen again on %s: %v", p.addr, err)
	}
	p.serve(ln)
}
