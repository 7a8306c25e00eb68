package planner

import (
	"fmt"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/jobconfig"
)

// checkDurability decides which guarantee each sink really has after a
// crash (Sink.AfterCrash) and refuses exactly-once sinks that cannot keep
// theirs: with checkpoints in memory (no execution.checkpointing.dir) a
// restarted process has no checkpoint to recover its sinks' pending
// commits from, nor its sources' positions, so output is written twice or
// lost. The exception is a pipeline whose sink commits its sources'
// positions inside its own transaction (factory.TableInfo's ResumesFrom
// and CommitsPositionsOf): then the positions and the output are
// committed together and a restart resumes exactly where the committed
// output ends. That takes every source of the pipeline resuming from a
// store of the system the sink commits to, each store read by that one
// source of the job (two sources committing one consumer group would
// overwrite each other's positions), and the rows of each source
// partition reaching one sink task: the runtime sends source task i to
// sink task i mod n, which keeps every partition in one sink task whatever
// the parallelisms, because the planner sets no key partitioning between
// them (runtime.Pipeline.Partition).
func (p *planner) checkDurability() {
	pl := p.plan
	noDefault := p.defaultCheckpointDir()
	if pl.Runtime.Checkpoint.Storage == jobconfig.StorageJobManager {
		noDefault = jobconfig.StorageJobManager
	}
	cp := pl.Runtime.Checkpoint
	stores := map[factory.PositionStore]int{}
	for _, ins := range pl.Inserts {
		if ins.Explain {
			continue
		}
		for _, fl := range ins.Flows {
			if r := fl.Source.Info.ResumesFrom; r != nil {
				stores[*r]++
			}
		}
	}
	for _, ins := range pl.Inserts {
		p.checkDeadLetters(ins, noDefault)
		s := ins.Sink
		if s.Print {
			continue
		}
		if s.Info.Delivery != factory.ExactlyOnce {
			s.AfterCrash = s.DeliveryGuarantee
			continue
		}
		stop := ""
		if cp.Interval <= 0 {
			stop = "; checkpointing is off, so it commits only when the job stops"
		}
		switch {
		case cp.Mode == jobconfig.AtLeastOnce:
			s.AfterCrash = "at-least-once: execution.checkpointing.mode is AT_LEAST_ONCE"
		case pl.ScaleOut:
			s.AfterCrash = "exactly-once (source offsets committed in the sink transaction under the group's generation" + stop + ")"
		case cp.Dir != "":
			s.AfterCrash = fmt.Sprintf("exactly-once (checkpoints in %s%s)", cp.Dir, stop)
		default:
			s.AfterCrash = "exactly-once (source offsets committed in the sink transaction" + stop + ")"
		}
		if cp.Dir != "" || p.settingsUnsure {
			continue
		}
		reason := positionsInTransaction(ins, stores)
		if reason == "" {
			continue
		}
		if pl.ScaleOut {
			msg := fmt.Sprintf("exactly-once sink '%s' cannot keep its guarantee in a scaled-out job (%s = true), which has no checkpoint files: it must commit its sources' positions in its transactions", s.Name(), SettingScaleOut)
			if s.Info.PositionsFix != "" {
				msg += "; " + s.Info.PositionsFix
			}
			p.errs = append(p.errs, p.f.errorAt(ins.Pos, ErrInvalidSetting, nil, msg+" ("+reason+")"))
			continue
		}
		msg := fmt.Sprintf("exactly-once sink '%s' cannot keep its guarantee after a crash: checkpoints are kept in memory (%s), so a restarted process can neither finish the pending commits nor resume its sources where the committed output ends, and writes rows twice or loses them; set execution.checkpointing.dir to a durable directory",
			s.Name(), inMemoryWhy(noDefault))
		if s.Info.PositionsFix != "" {
			msg += ", or " + s.Info.PositionsFix + " (" + reason + ")"
		}
		p.errs = append(p.errs, p.f.errorAt(ins.Pos, ErrInvalidSetting, nil, msg))
	}
}

// positionsInTransaction returns "" when the exactly-once sink of ins
// commits the positions of every source of its pipeline in its
// transaction, else why it does not.
func positionsInTransaction(ins *Insert, stores map[factory.PositionStore]int) string {
	s := ins.Sink
	if s.Info.CommitsPositionsOf == "" {
		return "the sink cannot commit source positions"
	}
	for _, fl := range ins.Flows {
		src := fl.Source
		r := src.Info.ResumesFrom
		switch {
		case r == nil:
			return fmt.Sprintf("source '%s' (connector '%s') does not resume from such positions", src.Name(), src.Connector())
		case r.System != s.Info.CommitsPositionsOf:
			return fmt.Sprintf("source '%s' reads another cluster than the sink writes", src.Name())
		case stores[*r] > 1:
			return fmt.Sprintf("source '%s' shares its positions '%s' with another source of the job (or, in a statement set, its scan feeds another INSERT too)", src.Name(), r.Group)
		}
	}
	return ""
}

// checkDeadLetters decides the guarantee of the dead letters of each
// source of ins that sets bad records aside (factory.TableInfo.DeadLetters)
// and refuses those that cannot have the guarantee of the pipeline's sink.
// When the sink is exactly-once and commits positions of the system the
// dead letters go to (a Kafka sink on the cluster of the dead-letter
// topic), the sink writes them inside its own transactions, with the
// output and the source positions of their checkpoint: they keep the
// sink's guarantee wherever the sink keeps it, also without checkpoint
// files (offsets in the sink's transactions, scale-out). Otherwise they go
// through a sink of the source's own, committed by the same checkpoints as
// the pipeline's sink: when that sink is exactly-once, in transactions of
// their own, which only a checkpoint file lets a restarted process commit.
func (p *planner) checkDeadLetters(ins *Insert, noDefault string) {
	pl := p.plan
	cp := pl.Runtime.Checkpoint
	s := ins.Sink
	// A pipeline that runs as a graph of tasks (stateful operators, or
	// event time) has its sources' dead letters written by sinks of
	// their own, never in the sink's transactions.
	graph := ins.Stateful() || ins.EventTime()
	for _, fl := range ins.Leaves() {
		src := fl.Source
		if src.Info.DeadLetters == "" {
			continue
		}
		if s.Print || s.Info.Delivery != factory.ExactlyOnce {
			src.DeadLetterGuarantee = "at-least-once: flushed at every checkpoint, as the sink's output; after a crash the records read since the last completed checkpoint are read again, and their dead letters may be written twice"
			continue
		}
		src.DeadLettersExactlyOnce = true
		inSink := !graph && s.Info.CommitsPositionsOf != "" && s.Info.CommitsPositionsOf == src.Info.DeadLettersSystem
		src.DeadLettersInSink = inSink
		stop := ""
		if cp.Interval <= 0 {
			stop = "; checkpointing is off, so they are committed only when the job stops"
		}
		other := ""
		if s.Info.CommitsPositionsOf != "" {
			other = fmt.Sprintf(" (its dead-letter topic is on another cluster than sink '%s' writes, so the sink cannot write them in its own transactions)", s.Name())
		}
		switch {
		case cp.Mode == jobconfig.AtLeastOnce:
			src.DeadLetterGuarantee = "at-least-once: execution.checkpointing.mode is AT_LEAST_ONCE"
			if inSink {
				src.DeadLetterGuarantee += "; written in the sink's transactions"
			}
		case inSink:
			src.DeadLetterGuarantee = fmt.Sprintf("exactly-once: written in the sink's transactions, with the output (and the source offsets, where the sink commits them) of the checkpoint that reads past their records: a read_committed consumer sees each dead letter once, together with that output%s", stop)
		case pl.ScaleOut:
			p.errs = append(p.errs, p.f.errorAt(ins.Pos, ErrInvalidSetting, nil, fmt.Sprintf(
				"source '%s' sets bad records aside (%s) for exactly-once sink '%s' in a scaled-out job (%s = true)%s: its dead letters would be committed in Kafka transactions of their own, which a scaled-out job, without checkpoint files, cannot finish after a crash; put the dead-letter topic on the sink's cluster, use 'scan.bad-record.policy' = 'skip' or 'fail' on '%s', or run the job without scale-out and with execution.checkpointing.dir",
				src.Name(), src.Info.DeadLettersOption, s.Name(), SettingScaleOut, other, src.Name())))
		case cp.Dir == "" && !p.settingsUnsure:
			fix := "set execution.checkpointing.dir to a durable directory"
			if other != "" {
				fix += ", put the dead-letter topic on the sink's cluster"
			}
			p.errs = append(p.errs, p.f.errorAt(ins.Pos, ErrInvalidSetting, nil, fmt.Sprintf(
				"source '%s' sets bad records aside (%s) for exactly-once sink '%s'%s, but checkpoints are kept in memory (%s): its dead letters would be committed by the checkpoints in Kafka transactions of their own, which a restarted process could neither finish nor abort, so dead letters would be lost or written twice; %s, or use 'scan.bad-record.policy' = 'skip' or 'fail' on '%s'",
				src.Name(), src.Info.DeadLettersOption, s.Name(), other, inMemoryWhy(noDefault), fix, src.Name())))
		default:
			src.DeadLetterGuarantee = "exactly-once: written in Kafka transactions of their own (transactional ids <job>-<pipeline>-<table>-dead-letter-<task>-<slot>) that the checkpoint which commits the sink's output commits, and that recovery commits with it after a crash: each dead letter appears once for read_committed consumers (possibly a moment before or after the output of the same checkpoint)" + stop
		}
	}
}

// inMemoryWhy says why a job's checkpoints are kept in memory: no
// execution.checkpointing.dir, and noDefault, why there is no default
// folder either.
func inMemoryWhy(noDefault string) string {
	if noDefault == jobconfig.StorageJobManager {
		return "execution.checkpointing.storage is 'jobmanager'"
	}
	if noDefault == "" {
		return "execution.checkpointing.dir is not set"
	}
	return "execution.checkpointing.dir is not set, and there is no default folder: " + noDefault
}
