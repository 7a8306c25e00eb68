package connector

import "time"

// DeliveryCounter is implemented by writers that know how many records
// the external system acknowledged (for Kafka: records whose produce
// request the brokers answered), so that a sink that cannot deliver
// does not look as if it wrote what it was handed. Delivered returns the
// count since the writer was opened; it must be safe for concurrent use.
// The runtime's sink "records out" is this count, or, for writers that do
// not implement it, the rows written before the last successful
// PreCommit.
type DeliveryCounter interface {
	Delivered() int64
}

// DeliveryTimeouter is implemented by writers whose records fail after
// waiting a bounded time for an acknowledgement (for Kafka:
// properties.delivery.timeout.ms). A graceful stop waits for such a
// writer at most that long once it reports a problem (HealthReporter):
// its records cannot arrive later than that.
type DeliveryTimeouter interface {
	DeliveryTimeout() time.Duration
}
