package kafka

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// brokerWatch notes the brokers a sink's clients cannot connect to (a kgo
// connect hook), so that a writer can say why it waits
// (connector.HealthReporter). It is shared by the clients of one sink.
type brokerWatch struct {
	mu   sync.Mutex
	down map[string]*brokerDown // by host:port
}

type brokerDown struct {
	since, last time.Time
	err         error
}

// watchFresh is how long a failed connection attempt counts: a client
// retries about every second while it has something to send, and one with
// nothing to send says nothing about the broker.
const watchFresh = 10 * time.Second

var _ kgo.HookBrokerConnect = (*brokerWatch)(nil)

// OnBrokerConnect implements kgo.HookBrokerConnect.
func (b *brokerWatch) OnBrokerConnect(meta kgo.BrokerMetadata, _ time.Duration, _ net.Conn, err error) {
	addr := net.JoinHostPort(meta.Host, strconv.Itoa(int(meta.Port)))
	now := time.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	if err == nil {
		delete(b.down, addr)
		return
	}
	d := b.down[addr]
	if d == nil || now.Sub(d.last) > watchFresh {
		if b.down == nil {
			b.down = map[string]*brokerDown{}
		}
		d = &brokerDown{since: now}
		b.down[addr] = d
	}
	d.last, d.err = now, err
}

// unhealthy describes the brokers that recent connection attempts failed
// to reach, "" when there are none.
func (b *brokerWatch) unhealthy() string {
	if b == nil {
		return ""
	}
	now := time.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	var parts []string
	for addr, d := range b.down {
		if now.Sub(d.last) > watchFresh {
			continue
		}
		parts = append(parts, fmt.Sprintf("broker %s unreachable for %s (%v)", addr, now.Sub(d.since).Round(100*time.Millisecond), d.err))
	}
	slices.Sort(parts)
	return strings.Join(parts, "; ")
}
