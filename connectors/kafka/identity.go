package kafka

// What a checkpointed position belongs to. An offset means something only
// in the partition of the topic of the cluster it was read from: restored
// against another cluster (a new embedded broker, a rebuilt one), or a
// topic deleted and created again under the same name, the same offsets
// name other records, and the job would silently skip or repeat input. So
// a split's state carries the cluster id and the topic id beside the
// offsets, and a reader refuses to resume from a state taken elsewhere, or
// from an offset past the partition's end, naming both and the way out.

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/streamsql/streamsql/connector"
)

// splitIdentity is the cluster and topic a position was read from; an
// empty field is not known (a state written before identities were, a
// broker without topic ids).
type splitIdentity struct {
	cluster, topic string
}

// appendIdentity appends ";c=<cluster id>;t=<topic id>" to a split state
// (the fields that are known).
func appendIdentity(state []byte, id splitIdentity) []byte {
	if id.cluster != "" {
		state = append(append(state, ";c="...), id.cluster...)
	}
	if id.topic != "" {
		state = append(append(state, ";t="...), id.topic...)
	}
	return state
}

// cutIdentity splits a state into its offsets part and its identity.
func cutIdentity(b []byte) ([]byte, splitIdentity) {
	offsets, rest, _ := bytes.Cut(b, []byte(";"))
	var id splitIdentity
	for f := range strings.SplitSeq(string(rest), ";") {
		switch k, v, _ := strings.Cut(f, "="); k {
		case "c":
			id.cluster = v
		case "t":
			id.topic = v
		}
	}
	return offsets, id
}

// topicIDString prints a topic id as Kafka's tools do (URL-safe base64,
// no padding); "" for the zero id of a broker without topic ids.
func topicIDString(id kadm.TopicID) string {
	if id == (kadm.TopicID{}) {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString(id[:])
}

// identities reads the cluster id and the ids of topics, for the states
// the reader writes and the ones it restores.
func (r *reader) identities(ctx context.Context, topics []string) error {
	if r.cluster == "" {
		id, err := clusterID(ctx, r.adm)
		if err != nil {
			return fmt.Errorf("kafka source: %w", err)
		}
		r.cluster = id
	}
	if len(topics) == 0 {
		return nil
	}
	md, err := r.adm.ListTopics(ctx, topics...)
	if err != nil {
		return fmt.Errorf("kafka source: reading topic ids: %w", err)
	}
	if r.topicIDs == nil {
		r.topicIDs = map[string]string{}
	}
	for _, td := range md {
		if td.Err == nil {
			r.topicIDs[td.Topic] = topicIDString(td.ID)
		}
	}
	return nil
}

// identity is the identity of st's partition here.
func (r *reader) identity(st *partState) splitIdentity {
	return splitIdentity{cluster: r.cluster, topic: r.topicIDs[st.tp.topic]}
}

// checkRestored refuses restored positions that belong to another cluster
// or another topic of the same name, or that lie past a partition's end:
// resuming from them would skip or repeat records without a word. The
// error wraps connector.ErrUnrecoverable (every restart would meet it) and
// names both identities and the ways on.
func (r *reader) checkRestored(ctx context.Context, topics []string) error {
	var restored []*partState
	for _, st := range r.order {
		if st.restored {
			restored = append(restored, st)
		}
	}
	if len(restored) == 0 {
		return nil
	}
	table := r.src.cfg.ObjectName
	if table == "" {
		table = r.src.cfg.Table
	}
	wayOut := func(what string) string {
		return fmt.Sprintf("if the job should read this %s from its start options instead, run it with --reset-source %s "+
			"(job.Options.ResetSources: the table's positions in the checkpoint are dropped, its sinks' pending commits are still "+
			"recovered), or delete the job's checkpoints with streamsql checkpoint drop; otherwise point the table at the "+
			"cluster the checkpoint was taken on", what, table)
	}
	for _, st := range restored {
		was, is := st.ident, r.identity(st)
		switch {
		case was.cluster != "" && was.cluster != is.cluster:
			return fmt.Errorf("%w: kafka source (table '%s'): the restored checkpoint's position of topic %s partition %d (offset %d) "+
				"was read from the Kafka cluster with id %s, but the brokers at %s are the cluster with id %s: its offsets mean "+
				"nothing here; %s", connector.ErrUnrecoverable, table, st.tp.topic, st.tp.partition, st.next,
				was.cluster, strings.Join(r.src.settings.seeds, ","), is.cluster, wayOut("cluster"))
		case was.topic != "" && is.topic != "" && was.topic != is.topic:
			return fmt.Errorf("%w: kafka source (table '%s'): the restored checkpoint's position of topic %s partition %d (offset %d) "+
				"was read from the topic with id %s, but the topic of that name now has id %s (it was deleted and created again): "+
				"its offsets name other records; %s", connector.ErrUnrecoverable, table, st.tp.topic, st.tp.partition,
				st.next, was.topic, is.topic, wayOut("topic"))
		}
	}
	ends, err := r.adm.ListEndOffsets(ctx, topics...)
	if err != nil {
		return fmt.Errorf("kafka source: listing end offsets to check the restored positions: %w", err)
	}
	for _, st := range restored {
		end, err := lookup(ends, st.tp, "end")
		if err != nil {
			return err
		}
		if st.next > end {
			return fmt.Errorf("%w: kafka source (table '%s'): the restored checkpoint's position of topic %s partition %d is offset %d, "+
				"past the partition's end (%d) on the cluster with id %s (checkpoint taken on %s, topic id then %s, now %s): records "+
				"it counts as read are not there; %s", connector.ErrUnrecoverable, table, st.tp.topic, st.tp.partition, st.next, end,
				r.cluster, orUnknown(st.ident.cluster), orUnknown(st.ident.topic), orUnknown(r.topicIDs[st.tp.topic]), wayOut("partition"))
		}
	}
	return nil
}

func orUnknown(s string) string {
	if s == "" {
		return "(not recorded)"
	}
	return s
}
