package runtime

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/runtime/checkpoint"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/stream"
	"golang.org/x/sync/errgroup"
)

// Operator state in checkpoints. Each task of a stateful operator vertex
// (OperatorVertex.Stateful) has a keyed-state backend of the kind
// state.backend.type names (state.Lookup), opened before the task's loop
// starts: a fresh one, restored from the handles of the restored
// checkpoint whose key groups meet the task's range, so that a job
// restored with another parallelism gives each task the groups it owns now.
//
// At a checkpoint's aligned barrier, after the operators' PrepareSnapshot,
// the task cuts each backend in its own goroutine (Backend.Snapshot: a
// copy-on-write freeze, cheap), sends the barrier on, pre-commits its
// writer, and hands the cuts to its state writer: a goroutine of the task,
// one checkpoint at a time, which writes the cuts' files through the
// checkpoint storage (durably: PutFile returns when a file is), and only
// then acknowledges the checkpoint with the handles. The checkpoint file
// that lists the handles is written when every task has acknowledged:
// the commit point stays the metadata file. A state write that fails
// declines the checkpoint (it fails as a timeout does; the job goes on as
// tolerable-failed-checkpoints allows).
//
// State files are named "<vertex>/chk-<id>-<run>/t<task>/..." (a run's
// checkpoint ids never repeat a file name, also when a failed run's id is
// taken again). A file is deleted once no retained checkpoint references
// it and the checkpoint that wrote it is not newer than the latest
// completed one (a checkpoint in flight writes its files before it is
// referenced); incremental backends reference files of earlier
// checkpoints, which then stay.

// stateJob is a task's cut of checkpoint id, for its state writer.
type stateJob struct {
	ev    event
	cuts  []stateCut
	final bool
}

type stateCut struct {
	s         *opStage
	snap      state.Snapshot
	watermark int64 // the operator's at the cut
}

// stateWriter writes the cuts of one task's stateful operators, one
// checkpoint at a time, and acknowledges each when its files are durable.
type stateWriter struct {
	t    *task
	jobs chan stateJob // closed by the task when it ends
	done chan struct{} // closed when the writer ends
}

func (w *stateWriter) start(g *errgroup.Group, ctx context.Context) {
	goSafe(g, w.t.name+" state writer", func() error {
		defer close(w.done)
		return w.run(ctx)
	})
}

// submit hands a checkpoint's cuts to the writer; it waits while the
// writer writes the previous checkpoint's.
func (w *stateWriter) submit(ctx context.Context, j stateJob) error {
	select {
	case w.jobs <- j:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func release(cuts []stateCut) {
	for _, c := range cuts {
		c.snap.Release()
	}
}

// run writes the cuts it is handed until the task closes jobs (its end:
// what it handed before is still written) or ctx ends.
func (w *stateWriter) run(ctx context.Context) error {
	for {
		select {
		case j, ok := <-w.jobs:
			if !ok {
				return nil
			}
			if err := w.write(ctx, j); err != nil {
				return err
			}
		case <-ctx.Done():
			for {
				select {
				case j, ok := <-w.jobs:
					if !ok {
						return ctx.Err()
					}
					release(j.cuts)
				default:
					return ctx.Err()
				}
			}
		}
	}
}

func (w *stateWriter) write(ctx context.Context, j stateJob) error {
	a := w.t.a
	id := j.ev.checkpoint
	defer release(j.cuts)
	for _, c := range j.cuts {
		m := c.s.m
		fi := FaultInfo{Checkpoint: id, Operator: m.v.id, Task: m.index, Final: j.final}
		files := &faultFiles{Files: a.j.store, a: a, info: fi}
		h, err := c.snap.Write(ctx, files, statePrefix(m.v.id, id, a.run, m.index))
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			a.j.log.Warn("cannot write operator state; the checkpoint fails", "checkpoint", id, "operator", m.v.id, "task", m.index, "err", err)
			return a.coord.send(ctx, event{kind: evTaskDecline, checkpoint: id, task: w.t.global, items: j.ev.items,
				err: fmt.Errorf("operator %q task %d: write state: %w", m.v.id, m.index, err)})
		}
		if err := files.err; err != nil {
			return err
		}
		j.ev.ops = append(j.ev.ops, opState{vertex: m.v.id, ts: checkpoint.TaskState{Task: m.index, Parallelism: m.v.par,
			Handle: h, Watermark: c.watermark}})
	}
	if len(j.cuts) > 0 {
		if err := a.j.fault(ctx, AfterStateWrite, FaultInfo{Checkpoint: id, Operator: j.cuts[0].s.m.v.id, Task: j.cuts[0].s.m.index, Final: j.final}); err != nil {
			return err
		}
	}
	return a.coord.send(ctx, j.ev)
}

// opState is one task's contribution to the operator state of a
// checkpoint.
type opState struct {
	vertex string
	ts     checkpoint.TaskState
}

// faultFiles hands a backend's writes to the storage, consulting the
// DuringStateWrite fault point after each file is durable.
type faultFiles struct {
	checkpoint.Files
	a    *attempt
	info FaultInfo
	err  error // the fault's
}

func (f *faultFiles) PutFile(ctx context.Context, name string, r io.Reader) (int64, error) {
	n, err := f.Files.PutFile(ctx, name, r)
	if err != nil {
		return n, err
	}
	if ferr := f.a.j.fault(ctx, DuringStateWrite, f.info); ferr != nil {
		f.err = ferr
		return n, ferr
	}
	return n, nil
}

// statePrefix returns the prefix of the names of the state files of task
// k of vertex at checkpoint id of run.
func statePrefix(vertex string, id int64, run string, k int) string {
	return fmt.Sprintf("%s/chk-%d-%s/t%d/", fileSegment(vertex), id, run, k)
}

// fileSegment turns a vertex id into one segment of a state file name
// (letters, digits and "._=-"): other bytes are escaped as "=XX".
func fileSegment(id string) string {
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.' && i > 0, c == '_', c == '-':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "=%02X", c)
		}
	}
	return b.String()
}

// fileCheckpoint returns the id of the checkpoint that wrote state file
// name (see statePrefix).
func fileCheckpoint(name string) (int64, bool) {
	for seg := range strings.SplitSeq(name, "/") {
		rest, ok := strings.CutPrefix(seg, "chk-")
		if !ok {
			continue
		}
		num, _, _ := strings.Cut(rest, "-")
		id, err := strconv.ParseInt(num, 10, 64)
		return id, err == nil
	}
	return 0, false
}

// openState opens the keyed-state backend of stateful operator stage s:
// fresh, restored from the handles of the restored checkpoint that meet
// its key groups.
func (a *attempt) openState(ctx context.Context, s *opStage) (closeState func() error, err error) {
	m := s.m
	cfg := a.j.spec.Config
	kind, ok := state.Lookup(cfg.StateBackend)
	if !ok {
		return nil, fmt.Errorf("%w: state.backend.type '%s': no such backend (registered: %s)", ErrInvalidSpec,
			cfg.StateBackend, strings.Join(state.Names(), ", "))
	}
	kgs := s.ctx.Task.KeyGroups
	var restore []state.Handle
	wm := stream.MaxWatermark
	if a.restored != nil {
		for _, ts := range a.restored.Operators[m.v.id].Tasks {
			if ts.Handle.KeyGroups.Intersect(kgs).Len() > 0 {
				restore = append(restore, ts.Handle)
				wm = min(wm, ts.Watermark)
			}
		}
	}
	if len(restore) > 0 {
		// The task goes on from the watermark its key groups had: rows
		// count as late as they would have without the restart.
		s.t.wm = max(s.t.wm, wm)
		s.t.wmPub.Store(s.t.wm)
	}
	dir, err := os.MkdirTemp("", "streamsql-state-")
	if err != nil {
		return nil, fmt.Errorf("operator %q task %d: state folder: %w", m.v.id, m.index, err)
	}
	be, err := kind.Open(ctx, state.Config{Operator: fmt.Sprintf("vertex %q task %d", m.v.id, m.index),
		KeyGroups: kgs, MaxParallelism: a.maxParallelism, Restore: restore, Files: a.j.store, Dir: dir,
		MemoryLimit: int64(cfg.StateMemoryLimit), Incremental: cfg.StateIncremental,
		CompressLists: cfg.StateCompressJoinRows, SpillThreshold: int64(cfg.StateSpillThreshold)})
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("operator %q task %d: open its state (%s) from checkpoint %d: %w", m.v.id, m.index, kind.Name(), a.restoredID, err)
	}
	s.be = be
	s.ctx.State = be
	m.backend.Store(&be)
	return func() error {
		err := be.Close()
		os.RemoveAll(dir)
		if err != nil {
			return fmt.Errorf("operator %q task %d: close its state: %w", m.v.id, m.index, err)
		}
		return nil
	}, nil
}

// statefulIDs returns the ids of the graph's stateful operator vertices.
func (j *Job) statefulIDs() []string {
	var ids []string
	for _, v := range j.graph.Vertices {
		if v.Operator != nil && v.Operator.Stateful {
			ids = append(ids, v.ID)
		}
	}
	return ids
}

// checkRestoredOperators refuses a checkpoint whose operator state the job
// cannot take: state of an operator id the job does not have (unless
// JobSpec.AllowNonRestoredState: dropped), state in another number of key
// groups, or of another backend.
func (j *Job) checkRestoredOperators(restored *checkpoint.Metadata) error {
	if restored == nil || len(restored.Operators) == 0 {
		return nil
	}
	ids := j.statefulIDs()
	if mp := j.maxParallelism(); restored.MaxParallelism != mp {
		return fmt.Errorf("%w: checkpoint %d holds operator state in %d key groups (pipeline.max-parallelism when it was taken), and the job has %d: "+
			"set pipeline.max-parallelism to %d to restore it (the number of key groups of a job's state cannot change)",
			ErrInvalidSpec, restored.ID, restored.MaxParallelism, mp, restored.MaxParallelism)
	}
	var gone []string
	for id, op := range restored.Operators {
		if !slices.Contains(ids, id) {
			gone = append(gone, id)
			continue
		}
		for _, t := range op.Tasks {
			if k, ok := state.Lookup(j.spec.Config.StateBackend); ok && t.Handle.Kind != k.Name() {
				return fmt.Errorf("%w: checkpoint %d holds the state of operator %q in the %s backend; the job's state.backend.type is %s: "+
					"restore it with state.backend.type = '%s'", ErrInvalidSpec, restored.ID, id, t.Handle.Kind, j.spec.Config.StateBackend, t.Handle.Kind)
			}
		}
	}
	if len(gone) == 0 {
		return nil
	}
	slices.Sort(gone)
	if j.spec.AllowNonRestoredState {
		j.log.Warn("the restored checkpoint holds state of operators this job does not have; dropping it (non-restored state allowed)",
			"checkpoint", restored.ID, "operators", strings.Join(gone, ", "))
		return nil
	}
	hint := ""
	if h := j.spec.RestoreHint; h != "" {
		hint = "; " + h
	}
	return fmt.Errorf("%w: checkpoint %d holds the state of operator(s) %s, which this job does not have (a query changed?); "+
		"restore the job it belongs to, or run with --allow-non-restored-state (JobSpec.AllowNonRestoredState) to drop that state%s",
		ErrInvalidSpec, restored.ID, quoteAll(gone), hint)
}

// collectState deletes the state files that no retained checkpoint
// references and that checkpoints up to latest (the latest completed)
// wrote; files of checkpoints in flight are newer.
func (a *attempt) collectState(ctx context.Context, latest int64) error {
	st := a.j.store
	refs, err := st.List()
	if err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, r := range refs {
		md, err := st.Read(r)
		if err != nil {
			return fmt.Errorf("read %s to find the state files it references: %w", r, err)
		}
		for _, n := range md.StateFiles() {
			keep[n] = true
		}
	}
	names, err := st.ListFiles(ctx, "")
	if err != nil {
		return err
	}
	for _, n := range names {
		if id, ok := fileCheckpoint(n); !ok || keep[n] || id > latest {
			continue
		}
		if err := st.DeleteFile(ctx, n); err != nil {
			return err
		}
		if err := a.j.fault(ctx, DuringPrune, FaultInfo{Checkpoint: latest}); err != nil {
			return &faultError{err}
		}
	}
	return nil
}

// copyStateFiles copies the state files md references from src (the
// storage of an explicitly restored checkpoint) into the job's storage,
// unless they are there already.
func (j *Job) copyStateFiles(ctx context.Context, md *checkpoint.Metadata, src checkpoint.Files) error {
	names := md.StateFiles()
	if len(names) == 0 {
		return nil
	}
	have, err := j.store.ListFiles(ctx, "")
	if err != nil {
		return err
	}
	for _, n := range names {
		if _, ok := slices.BinarySearch(have, n); ok {
			continue
		}
		r, err := src.OpenFile(ctx, n)
		if err != nil {
			return fmt.Errorf("state file %s of checkpoint %d: %w", n, md.ID, err)
		}
		_, err = j.store.PutFile(ctx, n, r)
		r.Close()
		if err != nil {
			return fmt.Errorf("copy state file %s of checkpoint %d: %w", n, md.ID, err)
		}
	}
	return nil
}
