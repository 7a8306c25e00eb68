package kafka

import (
	"encoding/binary"

	"github.com/twmb/franz-go/pkg/kgo"
)

// murmur2 is Kafka's 32-bit MurmurHash2 (seed 0x9747b28c), as
// org.apache.kafka.common.utils.Utils.murmur2 computes it; the Java
// producer places a keyed record on partition
// (murmur2(key) & 0x7fffffff) % partitions.
func murmur2(data []byte) uint32 {
	const (
		seed = 0x9747b28c
		m    = 0x5bd1e995
		r    = 24
	)
	n := len(data)
	h := uint32(seed) ^ uint32(n)
	for len(data) >= 4 {
		k := binary.LittleEndian.Uint32(data)
		k *= m
		k ^= k >> r
		k *= m
		h *= m
		h ^= k
		data = data[4:]
	}
	switch len(data) {
	case 3:
		h ^= uint32(data[2]) << 16
		fallthrough
	case 2:
		h ^= uint32(data[1]) << 8
		fallthrough
	case 1:
		h ^= uint32(data[0])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return h
}

// keyPartition is the partition the Java producer's default partitioner
// chooses for a non-null key.
func keyPartition(key []byte, partitions int) int {
	return int(murmur2(key)&0x7fffffff) % partitions
}

func newPartitioner(kind partitionerKind, task int) kgo.Partitioner {
	switch kind {
	case partitionerFixed:
		return fixedPartitioner(task)
	case partitionerRoundRobin:
		return kgo.RoundRobinPartitioner()
	default:
		// Keys: murmur2 as the Java producer; no key: sticky, as the Java
		// producer's built-in partitioner.
		return kgo.StickyKeyPartitioner(kgo.KafkaHasher(murmur2))
	}
}

// fixedPartitioner is Flink's 'fixed': sink task i writes only to
// partition i mod the number of partitions.
type fixedPartitioner int

func (f fixedPartitioner) ForTopic(string) kgo.TopicPartitioner { return f }
func (f fixedPartitioner) RequiresConsistency(*kgo.Record) bool { return true }
func (f fixedPartitioner) Partition(_ *kgo.Record, n int) int   { return int(f) % n }
