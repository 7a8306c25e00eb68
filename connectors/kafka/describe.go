package kafka

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/types"
)

// readableMetadata are the metadata keys a Kafka source delivers, with
// their types (Flink's KafkaDynamicSource.ReadableMetadata).
func readableMetadata() map[string]types.Type {
	m := map[string]types.Type{}
	for k := metaTopic; k <= metaLeaderEpoch; k++ {
		m[k.String()] = k.MetadataType()
	}
	return m
}

// writableMetadata are the metadata keys a Kafka sink writes, with the
// types it expects (Flink's KafkaDynamicSink.WritableMetadata): NULL
// leaves the record's default (the sink's topic, the time of producing,
// no headers).
func writableMetadata() map[string]types.Type {
	m := map[string]types.Type{}
	for _, k := range []metadataKey{metaTopic, metaTimestamp, metaHeaders} {
		m[k.String()] = k.MetadataType().Nullable()
	}
	return m
}

// ClusterID identifies the Kafka cluster of a table by its bootstrap
// servers, the System of the consumer groups its sources resume from
// (factory.PositionStore) and what its exactly-once sinks commit offsets
// of (factory.TableInfo.CommitsPositionsOf).
func clusterSystemID(bootstrapServers string) string {
	return factory.SystemID("kafka cluster", serverList(bootstrapServers))
}

// serverList splits a bootstrap.servers value.
func serverList(servers string) []string {
	var out []string
	for _, s := range strings.Split(servers, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// describe is the Describe hook of both Kafka connectors.
func describe(upsert bool) func(v *factory.Validated, role factory.Role) (factory.TableInfo, error) {
	return func(v *factory.Validated, role factory.Role) (factory.TableInfo, error) {
		c := v.Config
		info := factory.TableInfo{
			Servers: serverList(optServers.Get(c)),
			Topics:  optTopic.Get(c),
		}
		// The schema is checked against the key and value options here
		// too, not only when the source or sink is created, so that
		// validate and explain report a 'key.fields' column the table lacks
		// instead of the run failing. It connects nowhere.
		l, err := tableLayout(factory.Context{Table: v.Table.Name, ObjectName: v.Table.Object(),
			Schema: v.Table.Schema, Options: c, Job: v.Table.Job}, upsert)
		if err != nil {
			return factory.TableInfo{}, err
		}
		if role == factory.AsSink && len(optTopic.Get(c)) != 1 && !hasMeta(l.sinkMeta, metaTopic) {
			return factory.TableInfo{}, errNoTopicColumn
		}
		// The formats check the columns they get (raw takes exactly one)
		// when a task creates its decoder or encoder; create one here, as
		// a check: no format connects when it is created.
		if role == factory.AsSource {
			_, err = l.newRowDecoder()
		} else {
			_, err = l.newEncoder()
		}
		if err != nil {
			return factory.TableInfo{}, err
		}
		if role == factory.AsSource {
			describeSource(v, upsert, &info)
			return info, nil
		}
		return info, describeSink(v, upsert, &info)
	}
}

func describeSource(v *factory.Validated, upsert bool, info *factory.TableInfo) {
	c := v.Config
	if p, ok := optTopicPattern.Lookup(c); ok {
		info.Summary = append(info.Summary, factory.KeyValue{Key: "topic pattern", Value: p})
	} else {
		info.Summary = append(info.Summary, factory.KeyValue{Key: "topics", Value: strings.Join(info.Topics, ", ")})
	}
	startup := "earliest-offset" // upsert-kafka always reads the whole changelog
	if !upsert {
		startup = optStartupMode.Get(c)
	}
	props := optProperties.Get(c)
	isolation := "read_uncommitted" // Kafka's default
	if l, ok := props["isolation.level"]; ok {
		isolation = strings.ToLower(strings.TrimSpace(l))
	}
	info.Summary = append(info.Summary,
		factory.KeyValue{Key: "startup mode", Value: startup},
		factory.KeyValue{Key: "bounded mode", Value: optBoundedMode.Get(c)},
		factory.KeyValue{Key: "isolation level", Value: isolation})
	if isolation == "read_uncommitted" {
		info.ReadsUncommitted = true
		info.UncommittedHow = " with isolation level read_uncommitted"
		info.UncommittedFix = "set 'properties.isolation.level' = 'read_committed'"
	}
	if g := strings.TrimSpace(props["group.id"]); !upsert && startup == "group-offsets" && g != "" {
		info.ResumesFrom = &factory.PositionStore{System: clusterSystemID(optServers.Get(c)), Group: g}
	}
	info.Parallelism = optScanParallelism.Get(c)
	policy := optBadRecordPolicy.Get(c)
	info.RejectsRows = policy == "skip" || policy == "dead-letter"
	switch policy {
	case "skip":
		info.Summary = append(info.Summary, factory.KeyValue{Key: "bad records", Value: "skipped, counted and logged (scan.bad-record.policy = skip)"})
	case "dead-letter":
		topic := optDeadLetterTopic.Get(c)
		info.Summary = append(info.Summary, factory.KeyValue{Key: "bad records", Value: fmt.Sprintf("written unchanged to dead-letter topic '%s' (scan.bad-record.policy = dead-letter)", topic)})
		info.DeadLetters = fmt.Sprintf("topic '%s'", topic)
		info.DeadLettersOption = "'" + optBadRecordPolicy.Key() + "' = 'dead-letter'"
		info.DeadLettersSystem = clusterSystemID(optServers.Get(c))
	}
	if v.Table.Job.ScaleOut {
		describeScaleOutSource(v, upsert, startup, props, info)
	}
}

// describeScaleOutSource says what a Kafka source does in a scaled-out
// job, or why it cannot take part.
func describeScaleOutSource(v *factory.Validated, upsert bool, startup string, props map[string]string, info *factory.TableInfo) {
	c := v.Config
	g := strings.TrimSpace(props["group.id"])
	switch {
	case upsert:
		info.NoScaleOut = "an upsert-kafka source reads the whole changelog of its topic, and an instance would see only the keys of its own partitions"
	case optBoundedMode.Get(c) != "unbounded":
		info.NoScaleOut = "a bounded read ('scan.bounded.mode') ends where one process decided; the instances share partitions only while they run"
	case g == "":
		info.NoScaleOut = "set 'properties.group.id': the instances share the topic's partitions as members of that consumer group"
	case startup != "group-offsets" && startup != "earliest-offset" && startup != "latest-offset":
		info.NoScaleOut = fmt.Sprintf("'scan.startup.mode' = '%s' cannot be shared: use group-offsets, earliest-offset or latest-offset (the start of a partition the group has never committed)", startup)
	default:
		from := "earliest"
		if startup == "latest-offset" || (startup == "group-offsets" && strings.EqualFold(strings.TrimSpace(props["auto.offset.reset"]), "latest")) {
			from = "latest"
		}
		info.ScaleOut = fmt.Sprintf("reads the partitions that consumer group '%s' assigns this instance (cooperative-sticky, static membership), from the group's committed offsets (%s for a partition the group never committed)", g, from)
		info.ResumesFrom = &factory.PositionStore{System: clusterSystemID(optServers.Get(c)), Group: g}
	}
}

func describeSink(v *factory.Validated, upsert bool, info *factory.TableInfo) error {
	c := v.Config
	job := v.Table.Job
	if len(info.Topics) > 0 {
		info.Summary = append(info.Summary, factory.KeyValue{Key: "topics", Value: strings.Join(info.Topics, ", ")})
	}
	info.Parallelism = optSinkParallelism.Get(c)
	delivery := optDelivery.Get(c)
	info.Delivery = factory.Delivery(delivery)
	if job.ScaleOut {
		info.ScaleOut = "each instance writes the rows of the partitions it owns; sources' offsets are committed once the writes are acknowledged"
		if info.Delivery == factory.ExactlyOnce && !upsert {
			info.ScaleOut = "each instance writes in its own transactions (ids <prefix>-<instance id>-<task>-<slot>) and commits its sources' offsets in them under the group's generation: an instance the group has fenced cannot commit"
		} else if info.Delivery == factory.ExactlyOnce {
			info.NoScaleOut = "an exactly-once upsert-kafka sink cannot commit its sources' offsets in its transactions; use 'sink.delivery-guarantee' = 'at-least-once' (upserts are idempotent)"
		}
	}
	if !upsert && job.CheckpointModeSet && job.CheckpointMode == "EXACTLY_ONCE" && info.Delivery != factory.ExactlyOnce {
		info.Warnings = append(info.Warnings, factory.TableWarning{Kind: factory.WarnDeliveryMismatch, Message: fmt.Sprintf(
			"execution.checkpointing.mode is EXACTLY_ONCE but Kafka sink '%s' delivers %s (its default): the mode only governs the job's own state; set 'sink.delivery-guarantee' = 'exactly-once' (and 'sink.transactional-id-prefix') on the sink for exactly-once output",
			v.Table.Display(), delivery)})
	}
	if info.Delivery != factory.ExactlyOnce {
		return nil
	}
	if !upsert {
		info.CommitsPositionsOf = clusterSystemID(optServers.Get(c))
		info.PositionsFix = "read only 'kafka' tables of the sink's cluster ('properties.bootstrap.servers' = '" + optServers.Get(c) +
			"') with 'scan.startup.mode' = 'group-offsets' and a 'properties.group.id' read by no other source of the job, whose offsets the sink then commits in its transactions"
	}
	if optTxnPrefix.Get(c) == "" && job.Name == "" {
		return nil // derived at run time from the task's job name
	}
	prefix, derived, _ := transactionalIDPrefix(v, job.Name)
	if derived {
		info.DerivedOptions = map[string]string{optTxnPrefix.Key(): prefix}
		info.Warnings = append(info.Warnings, factory.TableWarning{Kind: factory.WarnDerivedOption, Message: fmt.Sprintf(
			"sink '%s' has no 'sink.transactional-id-prefix'; using '%s', derived from the job name and table: it must be unique among all jobs writing to the cluster (two writers sharing ids fence each other), and stay the same across restarts",
			v.Table.Display(), prefix)})
	}
	how := "given"
	if derived {
		how = "derived from job name and table"
	}
	info.DeliverySummary = append(info.DeliverySummary, factory.KeyValue{Key: "transactional-id prefix", Value: prefix + " (" + how + ")"})
	info.Exclusive = append(info.Exclusive, factory.Exclusive{
		Key:          "kafka transactional-id prefix " + prefix,
		Owner:        "exactly-once Kafka",
		What:         fmt.Sprintf("transactional-id prefix '%s'", prefix),
		Conflict:     "their transactions would fence each other",
		Fix:          "set a distinct 'sink.transactional-id-prefix' on each",
		FixSameTable: "combine the queries with UNION ALL, or give one INSERT its own prefix with /*+ OPTIONS('sink.transactional-id-prefix' = '...') */",
	})
	ms, ok := optTxnTimeout.Lookup(c)
	if !ok {
		info.DeliverySummary = append(info.DeliverySummary, factory.KeyValue{Key: "transaction timeout", Value: "the brokers' transaction.max.timeout.ms, read at start"})
		return nil
	}
	info.DeliverySummary = append(info.DeliverySummary, factory.KeyValue{Key: "transaction timeout", Value: strconv.FormatInt(ms, 10) + " ms"})
	key := c.KeyUsed(optTxnTimeout)
	if ms <= 0 {
		return &factory.OptionError{Key: key, Message: fmt.Sprintf("'%s' = '%s' of table '%s' is not a positive number of milliseconds",
			key, v.Table.Options[key], v.Table.Display())}
	}
	if job.CheckpointInterval <= 0 || job.SettingsUncertain {
		// Without checkpointing there is nothing to compare with; after a
		// SET that did not parse, the checkpoint settings are not known.
		return nil
	}
	warn, err := checkTransactionTimeout(time.Duration(ms)*time.Millisecond, job)
	if err != nil {
		return &factory.OptionError{Key: key, Message: fmt.Sprintf("'%s' = '%s' of exactly-once table '%s' %v", key, v.Table.Options[key], v.Table.Display(), err)}
	}
	if warn != "" {
		info.Warnings = append(info.Warnings, factory.TableWarning{Kind: factory.WarnTransactionTimeout, Key: key,
			Message: fmt.Sprintf("'%s' = '%s' of exactly-once table '%s' %s", key, v.Table.Options[key], v.Table.Display(), warn)})
	}
	return nil
}
