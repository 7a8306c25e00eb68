// Package badrecord holds what the sources' bad-record policies share:
// the 'scan.bad-record.policy' values, the rule that keeps a format's
// Flink 'ignore-parse-errors' from contradicting the policy, and the
// rate bound on the log messages about skipped records. Each connector
// keeps what differs (positions, dead letters) in its own package.
package badrecord

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/option"
)

// Policy is a value of 'scan.bad-record.policy': what a source does with a
// record its format cannot decode, and with a record whose row the
// pipeline rejects because of its data (connector.ErrBadRow,
// connector.ErrDropRow).
type Policy uint8

// The policies.
const (
	// Fail fails the job, naming the record's position and the format's
	// reason (the default, as Flink).
	Fail Policy = iota
	// Skip skips the record, counts it (connector.BadRecordCounter) and
	// logs it at a bounded rate (Log).
	Skip
	// DeadLetter sets the record aside as a dead letter, written by the
	// source's dead-letter sink (connector.DeadLetterSource).
	DeadLetter
)

// Key is the option's key.
const Key = "scan.bad-record.policy"

var names = []string{"fail", "skip", "dead-letter"}

// String returns the policy's value in the option.
func (p Policy) String() string {
	if int(p) < len(names) {
		return names[p]
	}
	return "Policy(" + strconv.Itoa(int(p)) + ")"
}

// Parse reads a policy among the supported ones (case-insensitively).
func Parse(s string, supported ...Policy) (Policy, error) {
	for _, p := range supported {
		if strings.EqualFold(strings.TrimSpace(s), p.String()) {
			return p, nil
		}
	}
	return 0, fmt.Errorf("unknown '%s' = '%s': want %s", Key, s, list(supported))
}

// list writes policies as "a, b or c".
func list(ps []Policy) string {
	var b strings.Builder
	for i, p := range ps {
		switch {
		case i == 0:
		case i == len(ps)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// Option declares 'scan.bad-record.policy' with the supported policies,
// Fail the default, and the connector's description.
func Option(description string, supported ...Policy) option.Opt[string] {
	values := make([]string, len(supported))
	for i, p := range supported {
		values[i] = p.String()
	}
	return option.Enum(Key, values...).Default(Fail.String()).Description(description)
}

// ignoreParseErrors reads Flink's '<format>.ignore-parse-errors' of the
// formats that declare it (json, csv, the CDC formats).
var ignoreParseErrors = option.Bool("ignore-parse-errors")

// IgnoreParseErrorsRule refuses a format's 'ignore-parse-errors' = 'true'
// (Flink's silent skip) with a policy set to anything but skip: the format
// would skip the records the policy is set to fail on or set aside.
// formats returns the table's formats; opts are the options the rule is
// about besides policy.
func IgnoreParseErrorsRule(policy option.Opt[string], formats func(*option.Config) []*factory.Format, opts ...option.Option) option.Rule {
	return option.Check("a format's 'ignore-parse-errors' = 'true' skips the records it cannot parse itself, as in Flink: it goes with '"+Key+"' = 'skip' (or no policy), not with another policy", func(c *option.Config) error {
		p, set := c.Text(policy)
		if !set || strings.EqualFold(strings.TrimSpace(p), Skip.String()) {
			return nil
		}
		for _, f := range formats(c) {
			if f != nil && ignoreParseErrors.Get(f.Options) {
				hint := ""
				if strings.EqualFold(strings.TrimSpace(p), DeadLetter.String()) {
					hint = fmt.Sprintf(" (with 'dead-letter', set '%signore-parse-errors' = 'false' so that bad records reach the dead letters)", f.Prefix)
				}
				return fmt.Errorf("'%signore-parse-errors' = 'true' contradicts '%s' = '%s': remove one of them%s", f.Prefix, Key, p, hint)
			}
		}
		return nil
	}, append([]option.Option{policy}, opts...)...)
}

// LogInterval is how often, at most, a reader logs the bad records its
// policy handled (Log.Every).
const LogInterval = 10 * time.Second

// Log bounds how often a reader logs the bad records it handled: the first
// at once, then at most one message per Every, counting those not logged.
// It is used from the reader's goroutine only.
type Log struct {
	// Every is the least time between two messages.
	Every   time.Duration
	next    time.Time
	unshown int64
}

// Allow reports whether a message about one more bad record is to be
// logged now; when it is, unshown is how many were handled, and not logged,
// since the last message.
func (l *Log) Allow(now time.Time) (ok bool, unshown int64) {
	if now.Before(l.next) {
		l.unshown++
		return false, 0
	}
	unshown, l.unshown = l.unshown, 0
	l.next = now.Add(l.Every)
	return true, unshown
}

// Flush returns how many bad records were handled, and not logged, since
// the last message, and forgets them: what a reader that stops says it
// did not log.
func (l *Log) Flush() (unshown int64) {
	unshown, l.unshown = l.unshown, 0
	return unshown
}

// Expire ends the current interval: the next Allow logs at once, with the
// count of those not logged since the last message.
func (l *Log) Expire() { l.next = time.Time{} }
