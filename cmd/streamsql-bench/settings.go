package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connectors/kafka"
)

// ClientSettings are the franz-go settings a baseline pipe runs with.
// BENCHMARKS.md lists the values of each set.
type ClientSettings struct {
	Linger            time.Duration
	BatchMaxBytes     int32
	MaxBuffered       int
	Compression       string // none, lz4, snappy, zstd, gzip
	FetchMaxBytes     int32
	FetchMaxPartBytes int32
	FetchMaxWait      time.Duration
}

// defaultSettings are the settings streamsql's Kafka connector runs with
// when no properties.* override them: franz-go v1.22.3's defaults (kgo
// defaultCfg) for the producer and the fetch wait, and the connector's own
// fetch sizes.
var defaultSettings = ClientSettings{
	Linger:            10 * time.Millisecond,
	BatchMaxBytes:     1_000_012,
	MaxBuffered:       50_000,
	Compression:       "snappy",
	FetchMaxBytes:     kafka.DefaultFetchMaxBytes,
	FetchMaxPartBytes: kafka.DefaultPartitionFetchBytes,
	FetchMaxWait:      5 * time.Second,
}

// tunedSettings are the best settings the -tune sweep found for the
// hand-written pipe on this machine class (BENCHMARKS.md has the sweep; its
// output is results/2026-11-29-tune.txt). Every candidate but linger 0 and
// 4 MiB partition fetches was within 3% of the defaults: the pipe is bound
// by encoding/json on one goroutine, not by the client.
var tunedSettings = ClientSettings{
	Linger:            50 * time.Millisecond,
	BatchMaxBytes:     1_000_012,
	MaxBuffered:       50_000,
	Compression:       "none",
	FetchMaxBytes:     50 << 20,
	FetchMaxPartBytes: 1 << 20,
	FetchMaxWait:      5 * time.Second,
}

// String gives the settings in the form parseSettings reads.
func (s ClientSettings) String() string {
	return fmt.Sprintf("linger=%s,batch=%d,buffered=%d,compression=%s,fetch=%d,partfetch=%d,wait=%s",
		s.Linger, s.BatchMaxBytes, s.MaxBuffered, s.Compression, s.FetchMaxBytes, s.FetchMaxPartBytes, s.FetchMaxWait)
}

// parseSettings applies "key=value,..." (the keys of String) to base.
func parseSettings(base ClientSettings, spec string) (ClientSettings, error) {
	s := base
	for kv := range strings.SplitSeq(spec, ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return s, fmt.Errorf("client setting %q: want key=value", kv)
		}
		var err error
		switch k {
		case "linger":
			s.Linger, err = time.ParseDuration(v)
		case "wait":
			s.FetchMaxWait, err = time.ParseDuration(v)
		case "batch":
			s.BatchMaxBytes, err = parseInt32(v)
		case "fetch":
			s.FetchMaxBytes, err = parseInt32(v)
		case "partfetch":
			s.FetchMaxPartBytes, err = parseInt32(v)
		case "buffered":
			var n int32
			n, err = parseInt32(v)
			s.MaxBuffered = int(n)
		case "compression":
			switch v {
			case "none", "lz4", "snappy", "zstd", "gzip":
				s.Compression = v
			default:
				err = fmt.Errorf("want none, lz4, snappy, zstd or gzip")
			}
		default:
			err = fmt.Errorf("unknown key (want linger, batch, buffered, compression, fetch, partfetch or wait)")
		}
		if err != nil {
			return s, fmt.Errorf("client setting %q: %w", kv, err)
		}
	}
	return s, nil
}

func parseInt32(v string) (int32, error) {
	n, err := strconv.ParseInt(v, 10, 32)
	if err == nil && n <= 0 {
		err = fmt.Errorf("must be positive")
	}
	return int32(n), err
}

func (s ClientSettings) producerOpts() []kgo.Opt {
	opts := []kgo.Opt{
		kgo.ProducerLinger(s.Linger),
		kgo.ProducerBatchMaxBytes(s.BatchMaxBytes),
		kgo.MaxBufferedRecords(s.MaxBuffered),
	}
	switch s.Compression {
	case "lz4":
		opts = append(opts, kgo.ProducerBatchCompression(kgo.Lz4Compression()))
	case "snappy":
		opts = append(opts, kgo.ProducerBatchCompression(kgo.SnappyCompression()))
	case "zstd":
		opts = append(opts, kgo.ProducerBatchCompression(kgo.ZstdCompression()))
	case "gzip":
		opts = append(opts, kgo.ProducerBatchCompression(kgo.GzipCompression()))
	default:
		opts = append(opts, kgo.ProducerBatchCompression(kgo.NoCompression()))
	}
	return opts
}

func (s ClientSettings) consumerOpts() []kgo.Opt {
	return []kgo.Opt{
		kgo.FetchMaxBytes(s.FetchMaxBytes),
		kgo.FetchMaxPartitionBytes(s.FetchMaxPartBytes),
		kgo.FetchMaxWait(s.FetchMaxWait),
	}
}
