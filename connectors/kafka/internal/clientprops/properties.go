package clientprops

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// PropertyError reports a `properties.*` option that streamsql cannot map
// onto the franz-go client: an unknown key, a key with no franz-go
// equivalent, a key streamsql sets itself, or a bad value.
type PropertyError struct {
	// Key is the Java client property name, without the "properties."
	// prefix of the table option.
	Key string
	// Value is the value given (never a secret: security properties are
	// rejected by key before their value is looked at).
	Value string
	// Reason says what is wrong and what to do.
	Reason string
}

func (e *PropertyError) Error() string {
	return fmt.Sprintf("option 'properties.%s': %s", e.Key, e.Reason)
}

// Settings is what the `properties.*` options say, split into franz-go
// options and the values streamsql interprets itself. It is built once, by
// Parse, the only place that knows Java client property names.
type Settings struct {
	Seeds              []string
	GroupID            string
	ReadCommitted      bool
	AutoOffsetReset    string // "", "earliest", "latest" or "none"
	TransactionTimeout time.Duration
	DeliveryTimeout    time.Duration // delivery.timeout.ms; 0: not set
	MaxPollRecords     int
	FetchMaxBytes      int32 // 0: not set
	PartitionFetchMax  int32 // max.partition.fetch.bytes; 0: not set
	AcksSet            bool
	AcksAll            bool
	Idempotence        *bool // nil: not set
	MaxInFlight        int
	// Group timings of a consumer group member (pipeline.scale-out only):
	// session.timeout.ms, heartbeat.interval.ms and max.poll.interval.ms
	// (the rebalance timeout); 0: franz-go's default.
	SessionTimeout, HeartbeatInterval, RebalanceTimeout time.Duration

	Common   []kgo.Opt // every client
	Producer []kgo.Opt // producers only
	Consumer []kgo.Opt // consumers only

	Auth AuthContext // the principal, for explaining authentication and ACL errors
}

type propRole uint8

const (
	roleCommon propRole = iota
	roleProducer
	roleConsumer
)

type propSpec struct {
	role  propRole
	apply func(s *Settings, v string) (kgo.Opt, error)
}

// properties maps each supported Java client property to franz-go. It is
// read-only after package initialisation.
var properties = map[string]propSpec{
	"bootstrap.servers": {roleCommon, func(s *Settings, v string) (kgo.Opt, error) {
		for _, h := range strings.Split(v, ",") {
			if h = strings.TrimSpace(h); h != "" {
				s.Seeds = append(s.Seeds, h)
			}
		}
		if len(s.Seeds) == 0 {
			return nil, fmt.Errorf("no broker address given")
		}
		return nil, nil
	}},
	"client.id": {roleCommon, func(_ *Settings, v string) (kgo.Opt, error) { return kgo.ClientID(v), nil }},
	"metadata.max.age.ms": {roleCommon, func(_ *Settings, v string) (kgo.Opt, error) {
		d, err := parseMillis(v)
		return kgo.MetadataMaxAge(d), err
	}},

	// Consumer.
	"group.id": {roleConsumer, func(s *Settings, v string) (kgo.Opt, error) { s.GroupID = v; return nil, nil }},
	"isolation.level": {roleConsumer, func(s *Settings, v string) (kgo.Opt, error) {
		switch strings.ToLower(v) {
		case "read_committed":
			s.ReadCommitted = true
		case "read_uncommitted":
			s.ReadCommitted = false
		default:
			return nil, fmt.Errorf("want read_committed or read_uncommitted")
		}
		return nil, nil
	}},
	"auto.offset.reset": {roleConsumer, func(s *Settings, v string) (kgo.Opt, error) {
		v = strings.ToLower(v)
		switch v {
		case "earliest", "latest", "none":
			s.AutoOffsetReset = v
			return nil, nil
		}
		return nil, fmt.Errorf("want earliest, latest or none")
	}},
	"enable.auto.commit": {roleConsumer, func(_ *Settings, v string) (kgo.Opt, error) {
		if strings.EqualFold(v, "false") {
			return nil, nil
		}
		return nil, fmt.Errorf("streamsql never auto-commits: offsets live in checkpoints and are committed to the group when a checkpoint completes; remove the option or set it to false")
	}},
	"fetch.min.bytes": {roleConsumer, func(_ *Settings, v string) (kgo.Opt, error) {
		n, err := parseInt32(v, 1)
		return kgo.FetchMinBytes(n), err
	}},
	"fetch.max.bytes": {roleConsumer, func(s *Settings, v string) (kgo.Opt, error) {
		n, err := parseInt32(v, 1)
		s.FetchMaxBytes = n
		return nil, err
	}},
	"max.partition.fetch.bytes": {roleConsumer, func(s *Settings, v string) (kgo.Opt, error) {
		n, err := parseInt32(v, 1)
		s.PartitionFetchMax = n
		return nil, err
	}},
	"fetch.max.wait.ms": {roleConsumer, func(_ *Settings, v string) (kgo.Opt, error) {
		d, err := parseMillis(v)
		return kgo.FetchMaxWait(d), err
	}},
	"session.timeout.ms": {roleConsumer, func(s *Settings, v string) (kgo.Opt, error) {
		d, err := parseMillis(v)
		s.SessionTimeout = d
		return nil, err
	}},
	"heartbeat.interval.ms": {roleConsumer, func(s *Settings, v string) (kgo.Opt, error) {
		d, err := parseMillis(v)
		s.HeartbeatInterval = d
		return nil, err
	}},
	"max.poll.interval.ms": {roleConsumer, func(s *Settings, v string) (kgo.Opt, error) {
		d, err := parseMillis(v)
		s.RebalanceTimeout = d
		return nil, err
	}},
	"max.poll.records": {roleConsumer, func(s *Settings, v string) (kgo.Opt, error) {
		n, err := parseInt32(v, 1)
		s.MaxPollRecords = int(n)
		return nil, err
	}},

	// Producer.
	"transaction.timeout.ms": {roleProducer, func(s *Settings, v string) (kgo.Opt, error) {
		d, err := parseMillis(v)
		if err == nil && d < time.Second {
			err = fmt.Errorf("must be at least 1000")
		}
		s.TransactionTimeout = d
		return nil, err
	}},
	"linger.ms": {roleProducer, func(_ *Settings, v string) (kgo.Opt, error) {
		d, err := parseMillis(v)
		return kgo.ProducerLinger(d), err
	}},
	"batch.size": {roleProducer, func(_ *Settings, v string) (kgo.Opt, error) {
		n, err := parseInt32(v, 1)
		return kgo.ProducerBatchMaxBytes(n), err
	}},
	"buffer.memory": {roleProducer, func(_ *Settings, v string) (kgo.Opt, error) {
		n, err := parseInt32(v, 1)
		return kgo.MaxBufferedBytes(int(n)), err
	}},
	"compression.type": {roleProducer, func(_ *Settings, v string) (kgo.Opt, error) {
		var c kgo.CompressionCodec
		switch strings.ToLower(v) {
		case "none":
			c = kgo.NoCompression()
		case "gzip":
			c = kgo.GzipCompression()
		case "snappy":
			c = kgo.SnappyCompression()
		case "lz4":
			c = kgo.Lz4Compression()
		case "zstd":
			c = kgo.ZstdCompression()
		default:
			return nil, fmt.Errorf("want none, gzip, snappy, lz4 or zstd")
		}
		return kgo.ProducerBatchCompression(c), nil
	}},
	"acks": {roleProducer, func(s *Settings, v string) (kgo.Opt, error) {
		s.AcksSet = true
		switch strings.ToLower(v) {
		case "all", "-1":
			s.AcksAll = true
			return kgo.RequiredAcks(kgo.AllISRAcks()), nil
		case "1":
			return kgo.RequiredAcks(kgo.LeaderAck()), nil
		case "0":
			return kgo.RequiredAcks(kgo.NoAck()), nil
		}
		return nil, fmt.Errorf("want all, -1, 0 or 1")
	}},
	"enable.idempotence": {roleProducer, func(s *Settings, v string) (kgo.Opt, error) {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("want true or false")
		}
		s.Idempotence = &b
		return nil, nil
	}},
	"request.timeout.ms": {roleProducer, func(_ *Settings, v string) (kgo.Opt, error) {
		// The Java producer sends request.timeout.ms as the produce
		// request's timeout, as franz-go does with this option.
		d, err := parseMillis(v)
		return kgo.ProduceRequestTimeout(d), err
	}},
	"max.in.flight.requests.per.connection": {roleProducer, func(s *Settings, v string) (kgo.Opt, error) {
		n, err := parseInt32(v, 1)
		s.MaxInFlight = int(n)
		return kgo.MaxProduceRequestsInflightPerBroker(int(n)), err
	}},
	"retries": {roleProducer, func(_ *Settings, v string) (kgo.Opt, error) {
		n, err := parseInt32(v, 0)
		return kgo.RecordRetries(int(n)), err
	}},
	"delivery.timeout.ms": {roleProducer, func(s *Settings, v string) (kgo.Opt, error) {
		// Not kgo.RecordDeliveryTimeout: franz-go counts it from the
		// record's timestamp, which a writable 'timestamp' metadata column
		// may set far in the past. The writers apply it themselves.
		d, err := parseMillis(v)
		if err == nil && d <= 0 {
			err = fmt.Errorf("want a positive number of milliseconds")
		}
		s.DeliveryTimeout = d
		return nil, err
	}},
}

// reserved are Java client properties that streamsql sets itself.
var reserved = map[string]string{
	"transactional.id":   "streamsql derives transactional ids from 'sink.transactional-id-prefix'",
	"key.serializer":     "records are serialized by 'key.format'",
	"value.serializer":   "records are serialized by 'format' / 'value.format'",
	"key.deserializer":   "records are deserialized by 'key.format'",
	"value.deserializer": "records are deserialized by 'format' / 'value.format'",
	"partitioner.class":  "use 'sink.partitioner'",
}

// SupportedProperties lists the Java client property names (without the
// "properties." prefix) that streamsql maps onto franz-go, sorted.
func SupportedProperties() []string {
	keys := securityProperties()
	for k := range properties {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Parse maps Java client properties onto franz-go. It is the one
// place that knows their names. Properties of the other role (a consumer
// property on a table that is only written, say) are validated but have no
// effect, as in the Java client, because one table may be both read and
// written. Every error is a *PropertyError.
func Parse(props map[string]string) (Settings, error) {
	var s Settings
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	slices.Sort(keys) // deterministic: the first error is always the same
	// Security (security.protocol, sasl.*, ssl.*) is mapped by
	// securityOptions, which refuses what it cannot honour by name.
	secOpts, secKeys, err := securityOptions(props)
	if err != nil {
		return s, err
	}
	s.Common = append(s.Common, secOpts...)
	s.Auth = authContextFromProperties(props)
	for _, k := range keys {
		if secKeys[k] {
			continue
		}
		v := props[k]
		if why, ok := reserved[k]; ok {
			return s, &PropertyError{Key: k, Value: v, Reason: "cannot be set: " + why}
		}
		spec, ok := properties[k]
		if !ok {
			return s, &PropertyError{Key: k, Value: v, Reason: "streamsql's Kafka client (franz-go) has no equivalent of this Java client property; supported: " +
				strings.Join(SupportedProperties(), ", ")}
		}
		opt, err := spec.apply(&s, strings.TrimSpace(v))
		if err != nil {
			return s, &PropertyError{Key: k, Value: v, Reason: fmt.Sprintf("invalid value %q: %v", v, err)}
		}
		if opt == nil {
			continue
		}
		switch spec.role {
		case roleCommon:
			s.Common = append(s.Common, opt)
		case roleProducer:
			s.Producer = append(s.Producer, opt)
		case roleConsumer:
			s.Consumer = append(s.Consumer, opt)
		}
	}
	if len(s.Seeds) == 0 {
		return s, &PropertyError{Key: "bootstrap.servers", Reason: "is required"}
	}
	// As the Java producer: acks other than all turn idempotence off unless
	// it was asked for, in which case they conflict.
	if s.AcksSet && !s.AcksAll {
		if s.Idempotence != nil && *s.Idempotence {
			return s, &PropertyError{Key: "acks", Value: props["acks"], Reason: "must be all (or -1) when enable.idempotence is true"}
		}
		f := false
		s.Idempotence = &f
	}
	if s.Idempotence != nil && !*s.Idempotence {
		s.Producer = append(s.Producer, kgo.DisableIdempotentWrite())
	} else if s.MaxInFlight > 5 {
		// As the Java producer: idempotent writes keep order with at most 5.
		return s, &PropertyError{Key: "max.in.flight.requests.per.connection", Value: props["max.in.flight.requests.per.connection"],
			Reason: "must be at most 5 while idempotence is enabled (set enable.idempotence=false to raise it)"}
	}
	return s, nil
}

func parseMillis(v string) (time.Duration, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("want a non-negative number of milliseconds")
	}
	return time.Duration(n) * time.Millisecond, nil
}

func parseInt32(v string, min int32) (int32, error) {
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil || int32(n) < min {
		return 0, fmt.Errorf("want an integer of at least %d", min)
	}
	return int32(n), nil
}
