// Command rigtool is the small Go helper of scripts/kafka.sh and
// scripts/registry.sh: it finds free TCP ports on 127.0.0.1, waits until a
// Kafka broker answers a metadata request, and waits until an HTTP server
// answers 200. It exists so that the shell scripts need nothing beyond Go,
// Java and Maven.
//
// Usage:
//
//	rigtool freeport N            print N free ports, one a line
//	rigtool wait ADDR TIMEOUT     exit 0 once ADDR answers Metadata
//	rigtool waithttp URL TIMEOUT  exit 0 once GET URL answers 200 OK
package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "rigtool:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) < 1 {
		return fmt.Errorf("usage: rigtool freeport N | rigtool wait ADDR TIMEOUT | rigtool waithttp URL TIMEOUT")
	}
	switch args[0] {
	case "freeport":
		if len(args) != 2 {
			return fmt.Errorf("usage: rigtool freeport N")
		}
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 1 {
			return fmt.Errorf("freeport: bad count %q", args[1])
		}
		return freePorts(n)
	case "wait":
		if len(args) != 3 {
			return fmt.Errorf("usage: rigtool wait ADDR TIMEOUT")
		}
		timeout, err := time.ParseDuration(args[2])
		if err != nil {
			return fmt.Errorf("wait: bad timeout %q: %w", args[2], err)
		}
		return waitMetadata(args[1], timeout)
	case "waithttp":
		if len(args) != 3 {
			return fmt.Errorf("usage: rigtool waithttp URL TIMEOUT")
		}
		timeout, err := time.ParseDuration(args[2])
		if err != nil {
			return fmt.Errorf("waithttp: bad timeout %q: %w", args[2], err)
		}
		return waitHTTP(args[1], timeout)
	}
	return fmt.Errorf("unknown command %q", args[0])
}

// freePorts prints n distinct ports that were free a moment ago. All
// listeners are held open until every port is chosen, so the n differ.
func freePorts(n int) error {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return fmt.Errorf("freeport: %w", err)
		}
		ls = append(ls, l)
		fmt.Println(l.Addr().(*net.TCPAddr).Port)
	}
	return nil
}

// waitMetadata polls addr with a Metadata request until a broker answers
// with at least one broker in the response, or timeout passes.
func waitMetadata(addr string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var last error
	for {
		last = metadataOnce(ctx, addr)
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait: %s did not answer a metadata request within %s: %w", addr, timeout, last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func metadataOnce(ctx context.Context, addr string) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RetryTimeout(time.Second))
	if err != nil {
		return err
	}
	defer cl.Close()
	rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	resp, err := kmsg.NewPtrMetadataRequest().RequestWith(rctx, cl)
	if err != nil {
		return err
	}
	if len(resp.Brokers) == 0 {
		return fmt.Errorf("metadata response lists no brokers")
	}
	return nil
}

// waitHTTP polls url with GET until it answers 200 OK, or timeout passes.
func waitHTTP(url string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var last error
	for {
		last = getOnce(ctx, url)
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waithttp: %s did not answer 200 within %s: %w", url, timeout, last)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func getOnce(ctx context.Context, url string) error {
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %s", resp.Status)
	}
	return nil
}
