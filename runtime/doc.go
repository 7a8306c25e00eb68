// Package runtime runs a job: tasks connected by bounded channels, barrier
// checkpoints, two-phase-commit sinks with durable commit
// acknowledgements, recovery, and restarts.
//
// The types to learn first: [JobSpec] (what to run: a jobconfig.Config
// and pipelines, [Pipeline], of sources and sinks, [SourceSpec] and
// [SinkSpec], or a [Graph] of sources, operators and sinks) and [Job]
// ([NewJob], [Job.Run], [Job.Status]). The configuration (checkpointing
// and restarts, read from Flink's settings by jobconfig.ParseConfig) is
// package jobconfig's, which the planner reads too. Sources and
// sinks are the connector package's interfaces, operators the stream
// package's; checkpoints are runtime/checkpoint's.
//
// # Jobs
//
// A [JobSpec] names the job, carries its jobconfig.Config (parsed from
// SET options by jobconfig.ParseConfig, with Flink's option names and
// defaults) and lists its
// dataflows: pipelines, and a [Graph]. A [Pipeline] has sources (each with
// a parallelism), a per-row transform, and sinks (each with a
// parallelism); it is lowered onto the job's graph: a source vertex per
// source ("<pipeline>/<table>"), its transform as an operator fused with
// it, a sink vertex per sink, and an edge from each source to each sink.
// A Graph's [Vertex] is a source, an operator ([OperatorVertex], a
// stream.Operator per task) or a sink, each with a parallelism, and its
// [Edge]s say how rows go from the tasks of one vertex to those of the
// next ([Exchange]). [NewJob] validates the spec; [Job.Run] runs it until
// the bounded sources are done, the context is cancelled (graceful stop),
// or a failure the restart strategy does not absorb. [Job.Status] reports
// metrics (see [Metrics]).
//
// # Execution
//
// Every vertex runs as Parallelism tasks. A task is one goroutine with one
// loop, the same for every task: a head (a source's reader, or the
// channels from the tasks of the vertices before it), a chain of
// operators, and a tail (a sink's writer, or the exchanges towards the
// next vertices). Rows go through the chain batch by batch; a checkpoint
// barrier is aligned at the head, the operators prepare their snapshots,
// the reader is snapshotted, the barrier goes on downstream, the writer
// pre-commits, and the task acknowledges all it contributes to the
// coordinator. Optional connector capabilities (listeners, group
// positions, recycling, bad-record handling, dead letters, counters) are
// found once, when a reader or writer opens.
//
// Between tasks, batches travel over bounded channels
// (jobconfig.Config.ChannelCapacity messages each; one channel per pair of upstream
// and downstream task of an edge), which keeps memory bounded whatever the
// speed of the sinks: a full channel blocks the sender (backpressure,
// counted in TaskStatus.Backpressure). An edge's [Exchange] chooses the
// downstream task of each row: Forward sends the rows of upstream task i
// to task i mod n, which keeps every split's order (the default of
// pipelines); Hash by key group, Broadcast to all, Single to task 0,
// Partition as Pipeline.Partition says. Every goroutine belongs to the
// run's errgroup: the first error cancels all of them.
//
// Where a vertex's tasks would each get the rows of exactly one upstream
// task and nothing else — Forward edges only, from vertices with no other
// edge out, with as many tasks together as the vertex has — the vertex is
// fused ("chained", as Flink says): its tasks run in the upstream tasks'
// loops, with no channel and no goroutine between them, and the same
// checkpoint semantics (a task with one input needs no alignment). A
// pipeline's transform is always fused with its source; its one sink is
// fused when it has as many tasks as the pipeline has source tasks and
// rows go forward (or both sides have one task): read, transform,
// Writer.Write in one loop, and at a barrier Reader.Snapshot, then
// Writer.PreCommit. TaskStatus.Chained shows it; such a source task shows
// no backpressure, a slow writer slows its loop instead.
// jobconfig.Config.DisableChaining keeps sinks in tasks of their own. When Go runs
// on one processor (GOMAXPROCS 1, a job pinned to one core), an edge from
// one task into one task fuses whatever its exchange (the hash edge into
// the keyed operator of a job at parallelism 1): a task of its own would
// bring no parallelism there, only a channel, and the rows before it could
// not be reused (Nexmark q18 and q19 allocate a third less). Several sinks,
// fan-in (UNION ALL, fewer sink tasks) and routing by key keep the
// channels.
//
// # Checkpoints
//
// The protocol is Flink's barrier checkpointing (Chandy–Lamport) with a
// two-phase commit whose second phase is acknowledged:
//
//  1. The coordinator triggers checkpoint N every
//     execution.checkpointing.interval (never when it is unset), unless
//     max-concurrent-checkpoints are in flight, min-pause has not passed
//     since the last one ended, commits lag (below), or a task of the run
//     has not finished opening (its reader, operators and writer). The
//     final checkpoint (end of input, a graceful stop) waits for that too.
//  2. Each source task injects barrier N after its current batch: it
//     interrupts a blocked Read by cancelling its context, snapshots the
//     reader's split positions (Reader.Snapshot) and sends the barrier to
//     every task it feeds.
//  3. A task fed by channels has one per upstream task. Under
//     EXACTLY_ONCE it aligns: a channel that delivered barrier N is blocked
//     until every channel has (the blocking happens in a per-channel
//     forwarder goroutine, so the channel stays bounded). Under
//     AT_LEAST_ONCE it does not block, and rows after a barrier may be
//     replayed after a failure.
//  4. On the aligned barrier a task that writes a sink calls
//     Writer.PreCommit (phase one); its committables are each identified
//     by (sink, run, checkpoint, task, index). A task with stateful
//     operators (OperatorVertex.Stateful) cuts their keyed state
//     (state.Backend.Snapshot) at the aligned barrier, in its goroutine,
//     and its state writer writes the cut's files on another goroutine.
//     Every task acknowledges the checkpoint once, with what it
//     contributes: its reader's split positions, its writer's
//     committables, its operators' state handles (only once their files
//     are durable).
//  5. When every task has acknowledged, the coordinator writes checkpoint
//     N — source positions, operator state handles, and every committable
//     not durably known to be committed — as one file, atomically and durably (temporary file,
//     fsync, rename, fsync of the folder) under
//     <execution.checkpointing.dir>/<job name>/ (package checkpoint). Only
//     then is N complete. Without a directory, checkpoints live in memory
//     and survive only restarts within the process.
//  6. The coordinator notifies connector.CheckpointListeners and queues
//     N's committables for the commit loop, which calls Committer.Commit
//     (phase two) sink by sink, retrying failures in the process with
//     exponential backoff, and acknowledges each success to the
//     coordinator. A committable stays pending, and is listed in every
//     later checkpoint, until its commit is acknowledged. The
//     acknowledgement becomes durable with the next checkpoint file that
//     no longer lists the committable: as soon as the commits of a
//     checkpoint are all acknowledged (or while commits lag), the
//     coordinator writes an acknowledgement record — a new revision of
//     the latest checkpoint, same id and source positions, without the
//     acknowledged committables — which supersedes the older revision
//     (so the checkpoint ids a user sees count 1, 2, 3). Writers learn
//     about durability through connector.TaskInfo.Commits: a Kafka
//     writer reuses a transactional id only once the commit of its
//     previous transaction
//     is durably acknowledged.
//  7. Consumer group positions (connector.GroupPositionReader) travel
//     with the barrier to the one sink task that receives all of a source
//     task's rows (one sink, no key re-partitioning); a
//     connector.GroupPositionWriter that accepts them commits them inside
//     its pre-committed work. Otherwise the source task commits them once
//     every commit of the checkpoint and of earlier ones is durably
//     acknowledged, and after the final checkpoint's commits of a
//     graceful stop. A failed group commit is a warning, counted in
//     [Status].GroupCommitFailures.
//
// Pending commits and the age of the oldest are in [Status]. When
// execution.checkpointing.max-uncommitted-checkpoints completed
// checkpoints have commits pending, no new checkpoint is triggered (the
// job keeps running, with a warning naming the lagging sink) until the
// commits catch up. For sinks that declare a transaction timeout
// (connector.TransactionTimeouter) a warning is logged when pending work
// passes half of it.
//
// A commit error wrapping connector.ErrCommitLost is never retried,
// dropped or restarted, and it does not stop the other commits: no new
// checkpoint is triggered, every other committable of completed
// checkpoints (the same one and later ones) is still committed, the
// acknowledgements are recorded durably (the lost committables stay
// pending in the checkpoint), checkpoints in flight are abandoned, and
// then the job fails with a [CommitLostError] naming the checkpoint, the
// sink and the committable — a [CommitsLostError] listing each when
// several are lost. Recovery does the same: it commits every restored
// committable it can, records that, and fails naming every lost one.
//
// # Operator state
//
// Each task of a stateful operator has a keyed-state backend of the kind
// state.backend.type names (state.Lookup: "hashmap" in memory, "rocksdb"
// on disk), owning the key groups state.RangeOf gives it among
// pipeline.max-parallelism. A run opens every backend fresh, from the
// handles of the restored checkpoint whose key groups meet the task's
// (any parallelism), before the task's loop starts. A restore is refused
// when the checkpoint holds state of an operator the job does not have
// (unless JobSpec.AllowNonRestoredState), another number of key groups, or
// another backend. State files no retained checkpoint references (the
// fallback included) are deleted when checkpoints are pruned, unless a
// checkpoint newer than the latest completed one wrote them.
//
// # Event time
//
// Watermarks flow with the rows, as barriers do. A source with event time
// (SourceVertex.Watermark) generates them per split (connector.RowSplitter
// says which row came from which; a split without rows for the idle
// timeout is idle and holds nothing back); a task's watermark is the least
// over its active splits or channels; when it advances, the chain's
// operators get stream.Operator.Watermark before it goes downstream. At
// the end of its input a source sends stream.MaxWatermark, then the end of
// the input, before the final barrier; a stop or a reassignment never
// does. Checkpoints hold the splits' and the stateful tasks' watermarks,
// and a restore starts from them.
//
// # Failed checkpoints
//
// A checkpoint that times out (execution.checkpointing.timeout) or cannot
// be written fails while the job keeps running, up to
// tolerable-failed-checkpoints in a row. Its pre-committed work is not
// aborted: the committables (also those acknowledged after the timeout)
// are carried into the next checkpoint and committed with it, since the
// sources have moved past their rows. Carried work is aborted only by a
// failover to an earlier checkpoint (recovery aborts it as a leftover).
// When carried work nears four fifths of its sink's transaction timeout
// without a checkpoint completing, the job fails over instead. A failure
// of PreCommit, of a reader or writer, or of a transform fails the run.
//
// # Recovery and restarts
//
// Each run (attempt) starts from the job's latest complete checkpoint.
// JobSpec.RestorePath is copied into the job's storage under a new id
// before the first run, without the committables a newer checkpoint of
// the storage records as committed, so that it is the latest for every
// run. Retention (num-retained) never deletes the newest checkpoint whose
// pending commits are all durably done (checkpoint.Fallback): after a
// lost commit there is always one to restore. The checkpoint's pending
// committables are committed one by one (Committer.Commit, with retries;
// a lost one fails the job with a CommitLostError naming it), then each
// sink's Committer.Recover gets them all and aborts leftovers of earlier
// runs; then readers are opened with the
// stored split positions, and writers start. Checkpoint ids keep growing
// across runs. After a failure the restart strategy (restart-strategy.*:
// none, fixed-delay, failure-rate, exponential-delay; exponential-delay
// by default when checkpointing is on) decides whether and when the next
// run starts.
//
// # Stopping
//
// Cancelling Run's context stops the job gracefully: sources stop after
// a final checkpoint barrier, the final checkpoint is completed and
// committed, the acknowledgements are recorded, and Run returns nil — all
// within jobconfig.Config.StopTimeout, past which the run is cancelled and its
// pending commits are left to the next run's recovery. Bounded jobs end
// the same way when every source is done; when the retention deletes the
// checkpoints at the finish, that final checkpoint holds no operator state
// (checkpoint.Metadata.InputEnded: the operators processed all their
// input), and a run that restores it commits its pending committables and
// finishes without running the tasks again.
//
// # Testing
//
// Package testkit provides a deterministic source, a two-phase file sink,
// and fault injection at the protocol's failure points ([FaultPoint]);
// the tests kill runs at each point, in the process and by SIGKILL of a
// child process, and check that the committed output equals the input
// exactly once and in order per partition.
package runtime
