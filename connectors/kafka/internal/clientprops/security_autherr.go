package clientprops

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// AuthContext says what a client was doing when it failed, so that
// DescribeAuthError can name the principal and the missing ACL.
type AuthContext struct {
	// Protocol is the security.protocol in use ("" is PLAINTEXT).
	Protocol string
	// User and Mechanism identify the SASL principal ("" without SASL).
	User      string
	Mechanism string
	// Topic, Group and TransactionalID are the resources in use, if any.
	Topic           string
	Group           string
	TransactionalID string
	// Operation is what was attempted.
	Operation AuthOperation
}

// AuthOperation is what a client was doing when authorization failed; it
// decides which ACL the message asks for.
type AuthOperation uint8

// Operations that need distinct ACLs.
const (
	// OpUnknown: the ACL is inferred from the resources alone.
	OpUnknown AuthOperation = iota
	// OpProduce: writing records (WRITE on the topic).
	OpProduce
	// OpTransaction: transactional writes (WRITE on the transactional id).
	OpTransaction
	// OpConsume: reading records or committing offsets (READ on the topic
	// and the group).
	OpConsume
	// OpListTransactions: finding lingering transactions (DESCRIBE on the
	// transactional ids).
	OpListTransactions
	// OpDescribeClusterConfigs: reading broker configuration such as
	// transaction.max.timeout.ms (DESCRIBE_CONFIGS on the cluster).
	OpDescribeClusterConfigs
	// OpIdempotentProduce: initialising an idempotent producer
	// (IDEMPOTENT_WRITE on the cluster).
	OpIdempotentProduce
)

var opNames = [...]string{"", "producing", "producing transactionally", "consuming", "listing transactions", "describing the cluster's configuration", "initialising an idempotent producer"}

func (o AuthOperation) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("AuthOperation(%d)", o)
}

// authContextFromProperties fills Protocol, User and Mechanism from the
// security properties, without reading any trust or key store. User and
// Mechanism stay empty if the SASL properties do not parse: that error is
// the configuration's, reported by securityOptions.
func authContextFromProperties(props map[string]string) AuthContext {
	proto := strings.ToUpper(strings.TrimSpace(props[propProtocol]))
	if proto == "" {
		proto = "PLAINTEXT"
	}
	ac := AuthContext{Protocol: proto}
	if !securityProtocols[proto].sasl {
		return ac
	}
	s := &security{protocol: proto, consumed: map[string]bool{}}
	get := func(k string) (string, bool) { v, ok := props[k]; return v, ok }
	if _, err := s.saslMechanism(props, get); err == nil {
		ac.User, ac.Mechanism = s.user, s.mechanism
	}
	return ac
}

// AuthError is an authentication or authorization failure explained: who was
// refused, and what to do. It wraps the broker's error (a *kerr.Error), so
// errors.Is(err, kerr.TopicAuthorizationFailed) still holds.
type AuthError struct {
	// Message is the explanation; it contains no secret.
	Message string
	// Err is the broker's error.
	Err error
}

func (e *AuthError) Error() string { return e.Message + " (" + e.Err.Error() + ")" }

// Unwrap returns the broker's error.
func (e *AuthError) Unwrap() error { return e.Err }

// DescribeAuthError explains an authentication or authorization failure in
// err in terms of ac: "authentication failed for user alice with mechanism
// SCRAM-SHA-512", or which ACL the principal lacks ("WRITE on topic
// orders"). Any other error is returned unchanged, as is nil.
func DescribeAuthError(err error, ac AuthContext) error {
	if err == nil {
		return nil
	}
	var ae *AuthError
	if errors.As(err, &ae) {
		return err // already explained
	}
	var te *TLSError
	if errors.As(err, &te) {
		// Already explained; franz-go may have wrapped it in a message
		// of its own that hides it (ErrFirstReadEOF).
		return te
	}
	who := "the client"
	if ac.User != "" {
		who = fmt.Sprintf("user %q", ac.User)
	}
	principal := "the client's principal"
	if ac.User != "" {
		principal = "User:" + ac.User
	}
	doing := ""
	if ac.Operation != OpUnknown {
		doing = " while " + ac.Operation.String()
	}
	var msg string
	var eof *kgo.ErrFirstReadEOF
	switch {
	case errors.As(err, &eof):
		proto := ac.Protocol
		if proto == "" {
			proto = "PLAINTEXT"
		}
		msg = fmt.Sprintf("the broker closed the connection at once: its listener probably expects another security protocol than properties.security.protocol=%s (SASL, TLS or both); check security.protocol against the listener of the bootstrap address", proto)
	case errors.Is(err, kerr.SaslAuthenticationFailed):
		mech := ac.Mechanism
		if mech == "" {
			mech = "SASL"
		}
		hint := "check the username and password in properties.sasl.jaas.config and that the user exists for that mechanism on the cluster"
		if mech == "OAUTHBEARER" {
			hint = "check the token in properties.sasl.jaas.config: it may have expired, or the broker may not accept its issuer, audience or signature"
		}
		msg = fmt.Sprintf("authentication failed for %s with mechanism %s: %s", who, mech, hint)
	case errors.Is(err, kerr.UnsupportedSaslMechanism):
		msg = fmt.Sprintf("the broker does not enable SASL mechanism %s on this listener: check properties.sasl.mechanism against the listener's sasl.enabled.mechanisms", ac.Mechanism)
	case errors.Is(err, kerr.IllegalSaslState):
		msg = "the broker rejected the SASL exchange: check that properties.security.protocol matches the listener"
	case errors.Is(err, kerr.TopicAuthorizationFailed):
		acl := "WRITE (to produce) or READ (to consume)"
		switch {
		case ac.Operation == OpConsume, ac.Operation == OpUnknown && ac.Group != "":
			acl = "READ"
		case ac.Operation == OpProduce, ac.Operation == OpTransaction, ac.Operation == OpIdempotentProduce,
			ac.Operation == OpUnknown && ac.TransactionalID != "":
			acl = "WRITE"
		case ac.Operation == OpDescribeClusterConfigs, ac.Operation == OpListTransactions:
			acl = "DESCRIBE"
		}
		msg = fmt.Sprintf("%s is not authorized%s: grant %s the ACL %s on topic %s", who, doing, principal, acl, orUnknown(ac.Topic))
	case errors.Is(err, kerr.GroupAuthorizationFailed):
		msg = fmt.Sprintf("%s is not authorized%s: grant %s the ACL READ on group %s", who, doing, principal, orUnknown(ac.Group))
	case errors.Is(err, kerr.TransactionalIDAuthorizationFailed):
		acl := "WRITE on transactional id " + orUnknown(ac.TransactionalID)
		if ac.Operation == OpListTransactions {
			acl = "DESCRIBE on the transactional ids (prefix " + orUnknown(ac.TransactionalID) + ")"
		}
		msg = fmt.Sprintf("%s is not authorized%s: grant %s the ACL %s (exactly-once sinks need WRITE and DESCRIBE on their transactional ids)", who, doing, principal, acl)
	case errors.Is(err, kerr.ClusterAuthorizationFailed):
		acl := "the cluster operation it needs"
		switch ac.Operation {
		case OpDescribeClusterConfigs:
			acl = "DESCRIBE_CONFIGS on the cluster"
		case OpIdempotentProduce, OpProduce, OpTransaction:
			acl = "IDEMPOTENT_WRITE on the cluster (or WRITE on the topic)"
		case OpListTransactions:
			acl = "DESCRIBE on the transactional ids (or DESCRIBE on the cluster)"
		}
		msg = fmt.Sprintf("%s is not authorized%s: grant %s the ACL %s", who, doing, principal, acl)
	case errors.Is(err, kerr.DelegationTokenAuthorizationFailed):
		msg = fmt.Sprintf("%s is not authorized to use delegation tokens%s", who, doing)
	default:
		return err
	}
	return &AuthError{Message: msg, Err: err}
}

func orUnknown(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return s
}

// CheckConnection sends one metadata request through cl and returns the
// explained error if the connection, TLS or SASL fails or ac's principal may
// not describe the cluster's topics. Call it when a client is created: the
// producer and consumer retry connection failures until their own timeouts,
// while this fails at the first non-retryable error, in about a round trip.
func CheckConnection(ctx context.Context, cl *kgo.Client, ac AuthContext) error {
	req := kmsg.NewPtrMetadataRequest()
	if ac.Topic != "" {
		t := kmsg.NewMetadataRequestTopic()
		t.Topic = kmsg.StringPtr(ac.Topic)
		req.Topics = append(req.Topics, t)
	}
	_, err := req.RequestWith(ctx, cl)
	return DescribeAuthError(err, ac)
}
