package kafka

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connectors/kafka/internal/clientprops"
)

// The mapping of Java client properties (properties.*, including
// security.protocol, sasl.* and ssl.*) onto franz-go lives in
// internal/clientprops. This file is its one door into the package: the
// error types callers classify and the helpers of authentication errors
// are re-exported under their old names, and parseProperties hands the
// rest of the package what the properties say.

// PropertyError reports a `properties.*` option that streamsql cannot map
// onto the franz-go client: an unknown key, a key with no franz-go
// equivalent, a key streamsql sets itself, or a bad value.
type PropertyError = clientprops.PropertyError

// SecurityError reports a security property (security.protocol, sasl.* or
// ssl.*) that cannot be honoured. Its message names the property and never
// contains a secret value.
type SecurityError = clientprops.SecurityError

// TLSError reports a failed TLS handshake with a broker, saying which
// certificate failed and why.
type TLSError = clientprops.TLSError

// JAASError reports a malformed sasl.jaas.config value. Its message shows
// the column and an excerpt of the value in which every quoted string is
// masked, so that a password never reaches the message.
type JAASError = clientprops.JAASError

// AuthError is an authentication or authorization failure explained: who was
// refused, and what to do. It wraps the broker's error (a *kerr.Error), so
// errors.Is(err, kerr.TopicAuthorizationFailed) still holds.
type AuthError = clientprops.AuthError

// AuthContext says what a client was doing when it failed, so that
// describeAuthError can name the principal and the missing ACL.
type AuthContext = clientprops.AuthContext

// AuthOperation is what a client was doing when authorization failed; it
// decides which ACL the message asks for.
type AuthOperation = clientprops.AuthOperation

// Operations that need distinct ACLs.
const (
	OpUnknown                = clientprops.OpUnknown
	OpProduce                = clientprops.OpProduce
	OpTransaction            = clientprops.OpTransaction
	OpConsume                = clientprops.OpConsume
	OpListTransactions       = clientprops.OpListTransactions
	OpDescribeClusterConfigs = clientprops.OpDescribeClusterConfigs
	OpIdempotentProduce      = clientprops.OpIdempotentProduce
)

// describeAuthError explains an authentication or authorization failure in
// err in terms of ac: "authentication failed for user alice with mechanism
// SCRAM-SHA-512", or which ACL the principal lacks ("WRITE on topic
// orders"). Any other error is returned unchanged, as is nil.
func describeAuthError(err error, ac AuthContext) error {
	return clientprops.DescribeAuthError(err, ac)
}

// checkConnection sends one metadata request through cl and returns the
// explained error if the connection, TLS or SASL fails or ac's principal may
// not describe the cluster's topics. Call it when a client is created: the
// producer and consumer retry connection failures until their own timeouts,
// while this fails at the first non-retryable error, in about a round trip.
func checkConnection(ctx context.Context, cl *kgo.Client, ac AuthContext) error {
	return clientprops.CheckConnection(ctx, cl, ac)
}

// clientSettings is what the `properties.*` options say, split into franz-go
// options and the values streamsql interprets itself (see
// clientprops.Settings).
type clientSettings struct {
	seeds              []string
	groupID            string
	readCommitted      bool
	autoOffsetReset    string // "", "earliest", "latest" or "none"
	transactionTimeout time.Duration
	deliveryTimeout    time.Duration // 0: not set
	maxPollRecords     int
	fetchMaxBytes      int32 // 0: not set
	partitionFetchMax  int32 // max.partition.fetch.bytes; 0: not set
	acksSet            bool
	acksAll            bool
	idempotence        *bool // nil: not set
	maxInFlight        int
	// group member timings (scale-out); 0: franz-go's defaults
	sessionTimeout, heartbeatInterval, rebalanceTimeout time.Duration

	common   []kgo.Opt // every client
	producer []kgo.Opt // producers only
	consumer []kgo.Opt // consumers only

	auth AuthContext // the principal, for explaining authentication and ACL errors
}

// parseProperties maps Java client properties onto franz-go with
// clientprops.Parse. Its errors are *PropertyError or *SecurityError.
func parseProperties(props map[string]string) (clientSettings, error) {
	p, err := clientprops.Parse(props)
	if err != nil {
		return clientSettings{}, err
	}
	return clientSettings{
		seeds: p.Seeds, groupID: p.GroupID, readCommitted: p.ReadCommitted, autoOffsetReset: p.AutoOffsetReset,
		transactionTimeout: p.TransactionTimeout, deliveryTimeout: p.DeliveryTimeout, maxPollRecords: p.MaxPollRecords, fetchMaxBytes: p.FetchMaxBytes,
		partitionFetchMax: p.PartitionFetchMax, acksSet: p.AcksSet, acksAll: p.AcksAll, idempotence: p.Idempotence,
		maxInFlight:    p.MaxInFlight,
		sessionTimeout: p.SessionTimeout, heartbeatInterval: p.HeartbeatInterval, rebalanceTimeout: p.RebalanceTimeout,
		common: p.Common, producer: p.Producer, consumer: p.Consumer, auth: p.Auth,
	}, nil
}
