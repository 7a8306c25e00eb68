package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/streamsql/streamsql/internal/ckptpath"
	"github.com/streamsql/streamsql/internal/s3fs"
	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime/checkpoint"
)

// checkpointFlags are the flags of the checkpoint subcommands: the job is
// found from a job file (as run finds it) or from --job-name and --dir.
type checkpointFlags struct {
	jobFlags
	dir string
}

func checkpointCommand(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "checkpoint",
		Short: "List, show and edit a job's checkpoints",
		Long: `Inspect a job's checkpoints and accept lost commits, without hand-editing JSON.

The job is named by its job file (the checkpoint folder and job name are found
as run finds them: --set, --config, the file's SET statements, --job-name), or
by --job-name and --dir without a file.

  list          every retained checkpoint: id, revision, time, pending commits;
                "latest" is what the next run restores, "fallback" the newest
                checkpoint whose pending commits are all durably done (restore
                it with run --from-checkpoint after a lost commit: nothing is
                lost; sinks whose later commits succeeded see those rows again)
  show          one checkpoint (the latest by default): source positions and
                pending committables with the keys drop-pending takes
  drop-pending  accept the loss of lost commits: writes a new revision of the
                latest checkpoint without the given committables, so that the
                next run neither commits them nor fails on them (their rows are
                lost for good)
  drop-finished delete the record a bounded job leaves when it finished and
                deleted its checkpoints, so that the next run processes the
                input again from the start (without it, a run does nothing)
  drop          delete all of the job's checkpoints (and its finished record):
                the next run starts afresh, from its sources' start options
                (refused while commits are pending, unless --force)

Checkpoints hold no secrets (source positions and transaction handles only);
values under secret-looking keys are masked all the same.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(checkpointList(e), checkpointShow(e), checkpointDropPending(e), checkpointDropFinished(e), checkpointDrop(e))
	return cmd
}

func (cf *checkpointFlags) register(cmd *cobra.Command) {
	cf.jobFlags.register(cmd)
	cmd.Flags().StringVar(&cf.jobName, "job-name", "", "the job's `NAME` (default: from the job file, as run finds it)")
	cmd.Flags().StringVar(&cf.dir, "dir", "", "the checkpoint directory `DIR` (default: the job file's execution.checkpointing.dir, else the default folder, as run uses it)")
}

// open finds the job's checkpoint storage. With --job-name and --dir no
// job file is taken (the S3 client's settings, for an s3:// folder, then
// come from --set and --config); otherwise args[0] is the job file. It
// returns the remaining arguments.
func (cf *checkpointFlags) open(cmd *cobra.Command, e *env, args []string) (checkpoint.Durable, []string, error) {
	job, dir := cf.jobName, cf.dir
	var s3 s3fs.Config
	if job == "" || dir == "" {
		if len(args) == 0 {
			return nil, nil, fmt.Errorf("%s takes a job file, or --job-name and --dir", cmd.CommandPath())
		}
		plan, err := cf.compile(cmd.Context(), e, args[0])
		if err != nil {
			return nil, nil, err
		}
		args = args[1:]
		job = plan.Name()
		if dir == "" {
			dir = plan.Config().Checkpoint.Dir
		}
		if dir == "" {
			fmt.Fprintf(e.stderr, "streamsql: job %q keeps its checkpoints in memory only (no execution.checkpointing.dir, and it neither checkpoints periodically nor writes an exactly-once sink, so it takes no default folder); pass --dir\n", job)
			return nil, nil, errFailed
		}
		s3 = plan.Config().S3
	} else {
		settings, err := cf.settings()
		if err != nil {
			return nil, nil, err
		}
		c, err := jobconfig.ParseConfig(settings)
		if err != nil {
			fmt.Fprintf(e.stderr, "streamsql: %v\n", err)
			return nil, nil, errFailed
		}
		s3 = c.S3
	}
	// Look, do not create: a wrong name or folder is an error.
	if f, err := ckptpath.JobFolder(dir, job); err == nil {
		if _, err := os.Stat(f); err != nil {
			fmt.Fprintf(e.stderr, "streamsql: no checkpoints of job %q: %v\n", job, err)
			return nil, nil, errFailed
		}
	}
	d, err := checkpoint.Open(dir, job, checkpoint.OpenOptions{S3: s3})
	if err != nil {
		fmt.Fprintf(e.stderr, "streamsql: %v\n", err)
		return nil, nil, errFailed
	}
	return d, args, nil
}

// settings returns the job settings of --config and --set (without a job
// file).
func (cf *checkpointFlags) settings() (map[string]string, error) {
	out := map[string]string{}
	if cf.config != "" {
		cfg, err := loadConfig(cf.config)
		if err != nil {
			return nil, err
		}
		maps.Copy(out, cfg)
	}
	sets, err := parseSets(cf.sets)
	if err != nil {
		return nil, err
	}
	maps.Copy(out, sets)
	return out, nil
}

func checkpointList(e *env) *cobra.Command {
	var cf checkpointFlags
	cmd := &cobra.Command{
		Use:   "list [JOB.sql]",
		Short: "List a job's retained checkpoints",
		Example: `  streamsql checkpoint list job.sql
  streamsql checkpoint list --job-name orders --dir /var/lib/streamsql`,
		Args: cobra.MaximumNArgs(1),
	}
	cf.register(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		d, _, err := cf.open(cmd, e, args)
		if err != nil {
			return err
		}
		return listCheckpoints(e.stdout, d)
	}
	return cmd
}

func listCheckpoints(w io.Writer, d checkpoint.Durable) error {
	refs, err := d.List()
	if err != nil {
		return fmt.Errorf("%w: %v", errFailed, err)
	}
	fin, err := d.Finished()
	switch {
	case err != nil:
		fmt.Fprintf(w, "Finished record: UNREADABLE: %v\n", err)
	case fin != nil:
		fmt.Fprintf(w, "Finished at %s (last checkpoint %d): the job ran to the end of its input and committed it;\n"+
			"  the next run does nothing (streamsql checkpoint drop-finished runs it again from the start). Record: %s\n",
			fin.Time.Format(time.RFC3339), fin.LastCheckpoint, d.FinishedPath())
	}
	fmt.Fprintf(w, "Checkpoints in %s:\n", d.Location())
	if len(refs) == 0 {
		if fin == nil {
			fmt.Fprintln(w, "  none (the next run starts afresh)")
		} else {
			fmt.Fprintln(w, "  none")
		}
		return nil
	}
	fb, hasFallback := checkpoint.Fallback(refs, d.Read)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tREVISION\tTIME\tPENDING\tNOTE\tFILE")
	for i, r := range refs {
		var notes []string
		if i == len(refs)-1 {
			notes = append(notes, "latest")
		}
		if hasFallback && r == fb {
			notes = append(notes, "fallback")
		}
		md, err := d.Read(r)
		if err != nil {
			fmt.Fprintf(tw, "%d\t%d\t-\t-\tUNREADABLE: %v\t%s\n", r.ID, r.Revision, err, r.Path)
			continue
		}
		if md.RestoredFrom != "" {
			notes = append(notes, "restored from "+md.RestoredFrom)
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%d\t%s\t%s\n", r.ID, r.Revision, md.Time.Format(time.RFC3339), len(md.Pending), strings.Join(notes, ", "), r.Path)
	}
	return tw.Flush()
}

func checkpointShow(e *env) *cobra.Command {
	var cf checkpointFlags
	var id string
	cmd := &cobra.Command{
		Use:   "show [JOB.sql]",
		Short: "Show a checkpoint: source positions and pending committables",
		Example: `  streamsql checkpoint show job.sql
  streamsql checkpoint show --checkpoint 41 --job-name orders --dir /var/lib/streamsql`,
		Args: cobra.MaximumNArgs(1),
	}
	cf.register(cmd)
	cmd.Flags().StringVar(&id, "checkpoint", "", "the checkpoint `ID` (its newest revision; ID.rN for revision N); default: the latest")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		d, _, err := cf.open(cmd, e, args)
		if err != nil {
			return err
		}
		md, err := findCheckpoint(d, id)
		if err != nil {
			fmt.Fprintf(e.stderr, "streamsql: %v\n", err)
			return errFailed
		}
		return showCheckpoint(e.stdout, md)
	}
	return cmd
}

// findCheckpoint returns the checkpoint named by id ("" for the latest,
// "N" for N's newest revision, "N.rR" for revision R).
func findCheckpoint(d checkpoint.Durable, id string) (*checkpoint.Metadata, error) {
	refs, err := d.List()
	if err != nil {
		return nil, err
	}
	if len(refs) == 0 {
		return nil, fmt.Errorf("no checkpoint in %s", d.Location())
	}
	if id == "" {
		return d.Read(refs[len(refs)-1])
	}
	idS, revS, hasRev := strings.Cut(id, ".r")
	n, err := strconv.ParseInt(idS, 10, 64)
	rev := -1
	if err == nil && hasRev {
		rev, err = strconv.Atoi(revS)
	}
	if err != nil {
		return nil, fmt.Errorf("--checkpoint %q: want an id such as 41, or 41.r2 for a revision", id)
	}
	var found *checkpoint.Ref
	for i := range refs {
		if refs[i].ID == n && (rev < 0 || refs[i].Revision == rev) {
			found = &refs[i]
		}
	}
	if found == nil {
		return nil, fmt.Errorf("no checkpoint %s in %s (see streamsql checkpoint list)", id, d.Location())
	}
	return d.Read(*found)
}

// shownCheckpoint is what show prints: the metadata with committables
// and split states as JSON when they are JSON.
type shownCheckpoint struct {
	Job          string                       `json:"job"`
	ID           int64                        `json:"id"`
	Revision     int                          `json:"revision"`
	Run          string                       `json:"run"`
	Time         time.Time                    `json:"time"`
	RestoredFrom string                       `json:"restored_from,omitempty"`
	Sources      map[string][]shownSplitState `json:"sources"`
	Pending      []shownCommittable           `json:"pending"`
}

type shownSplitState struct {
	ID    string `json:"id"`
	State any    `json:"state"`
}

type shownCommittable struct {
	Key  string `json:"key"`
	Data any    `json:"data"`
}

// asJSON returns b as a JSON value when it is JSON, else as a string.
func asJSON(b []byte) any {
	var v any
	if json.Unmarshal(b, &v) == nil {
		return v
	}
	return string(b)
}

func showCheckpoint(w io.Writer, md *checkpoint.Metadata) error {
	s := shownCheckpoint{Job: md.Job, ID: md.ID, Revision: md.Revision, Run: md.Run, Time: md.Time, RestoredFrom: md.RestoredFrom,
		Sources: map[string][]shownSplitState{}, Pending: []shownCommittable{}}
	for src, states := range md.Sources {
		for _, st := range states {
			s.Sources[src] = append(s.Sources[src], shownSplitState{ID: st.ID, State: asJSON(st.State)})
		}
	}
	for _, c := range md.Pending {
		s.Pending = append(s.Pending, shownCommittable{Key: c.Key.Token(), Data: asJSON(c.Data)})
	}
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	out, err := json.MarshalIndent(maskSecrets(v), "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", out)
	return err
}

// secretWords mark keys whose values are masked.
var secretWords = []string{"password", "secret", "token", "jaas", "credential", "private"}

// maskSecrets replaces the values of secret-looking keys in a decoded
// JSON value.
func maskSecrets(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			lk := strings.ToLower(k)
			secret := false
			for _, w := range secretWords {
				secret = secret || strings.Contains(lk, w)
			}
			if secret {
				x[k] = "******"
			} else {
				x[k] = maskSecrets(val)
			}
		}
	case []any:
		for i := range x {
			x[i] = maskSecrets(x[i])
		}
	}
	return v
}

func checkpointDropPending(e *env) *cobra.Command {
	var cf checkpointFlags
	cmd := &cobra.Command{
		Use:   "drop-pending [JOB.sql] KEY...",
		Short: "Accept lost commits: drop pending committables from the latest checkpoint",
		Long: `Write a new revision of the job's latest checkpoint without the pending
committables KEY... (as show prints them, and as a lost-commit error names
them: <sink>#<checkpoint>/<task>/<seq>/<run>). The next run neither commits
them nor fails on them: their rows are lost for good. Nothing is written
unless every key is pending in the latest checkpoint. The job must not be
running (its checkpoint folder is locked while it runs).

The alternative, which loses nothing, is to restore the fallback checkpoint
(see list) with run --from-checkpoint.`,
		Example: `  streamsql checkpoint drop-pending job.sql 'insert-1/big_orders#42/0/0/9f2c4e1a0b3d5e6f'
  streamsql checkpoint drop-pending --job-name orders --dir /var/lib/streamsql 'insert-1/big_orders#42/0/0/9f2c4e1a0b3d5e6f'`,
		Args: cobra.MinimumNArgs(1),
	}
	cf.register(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		d, rest, err := cf.open(cmd, e, args)
		if err != nil {
			return err
		}
		if len(rest) == 0 {
			return fmt.Errorf("%s: name the committables to drop (keys as `streamsql checkpoint show` prints them)", cmd.CommandPath())
		}
		keys := make([]checkpoint.Key, len(rest))
		for i, a := range rest {
			if keys[i], err = checkpoint.ParseKey(a); err != nil {
				return err
			}
		}
		unlock, err := d.Lock()
		if err != nil {
			fmt.Fprintf(e.stderr, "streamsql: %v\n", err)
			return errFailed
		}
		defer unlock()
		md, err := checkpoint.DropPending(d, keys...)
		if err != nil {
			fmt.Fprintf(e.stderr, "streamsql: %v\n", err)
			if errors.Is(err, checkpoint.ErrNoSuchCommittable) {
				fmt.Fprintln(e.stderr, "streamsql: see the pending committables with: streamsql checkpoint show")
			}
			return errFailed
		}
		fmt.Fprintf(e.stdout, "Dropped %d committable(s): checkpoint %d revision %d now lists %d pending; their rows are lost.\n",
			len(keys), md.ID, md.Revision, len(md.Pending))
		return nil
	}
	return cmd
}

func checkpointDropFinished(e *env) *cobra.Command {
	var cf checkpointFlags
	cmd := &cobra.Command{
		Use:   "drop-finished [JOB.sql]",
		Short: "Run a finished bounded job again: delete its finished record",
		Long: `A bounded job that runs to the end of its input (not a stop) with a retention
that deletes its checkpoints first writes a finished record (FINISHED.json in
its checkpoint folder): a later run, such as a restart after a kill in the
moment between deleting the checkpoints and exiting, does nothing instead of
processing the whole input again. Delete the record with this command to run
the job again from the start. The job must not be running.`,
		Example: `  streamsql checkpoint drop-finished job.sql
  streamsql checkpoint drop-finished --job-name orders --dir /var/lib/streamsql`,
		Args: cobra.MaximumNArgs(1),
	}
	cf.register(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		d, _, err := cf.open(cmd, e, args)
		if err != nil {
			return err
		}
		unlock, err := d.Lock()
		if err != nil {
			fmt.Fprintf(e.stderr, "streamsql: %v\n", err)
			return errFailed
		}
		defer unlock()
		had, err := d.DropFinished()
		if err != nil {
			fmt.Fprintf(e.stderr, "streamsql: %v\n", err)
			return errFailed
		}
		if !had {
			fmt.Fprintf(e.stdout, "No finished record in %s: nothing to do.\n", d.Location())
			return nil
		}
		fmt.Fprintf(e.stdout, "Deleted %s: the next run processes the input from the start.\n", d.FinishedPath())
		return nil
	}
	return cmd
}

func checkpointDrop(e *env) *cobra.Command {
	var cf checkpointFlags
	var force bool
	cmd := &cobra.Command{
		Use:   "drop [JOB.sql]",
		Short: "Delete all of a job's checkpoints: the next run starts afresh",
		Long: `Delete every checkpoint of the job, and its finished record: the next run
starts afresh, its sources from their start options ('scan.startup.mode') and
with nothing to recover. The way on when the checkpoints belong to something
that is gone: a Kafka cluster replaced by another (the source refuses to resume
from its offsets), a topic deleted and created again, a job rewritten from
scratch. To restart only some sources, run with --reset-source instead.

A checkpoint with pending commits (transactions pre-committed, not yet
committed) is refused unless --force: dropping it gives those commits up, and
the next run aborts what is left of them, so their rows are lost unless the
sources read them again. The job must not be running.`,
		Example: `  streamsql checkpoint drop job.sql
  streamsql checkpoint drop --job-name orders --dir /var/lib/streamsql`,
		Args: cobra.MaximumNArgs(1),
	}
	cf.register(cmd)
	cmd.Flags().BoolVar(&force, "force", false, "drop the checkpoints even when commits are pending (their rows may be lost)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		d, _, err := cf.open(cmd, e, args)
		if err != nil {
			return err
		}
		unlock, err := d.Lock()
		if err != nil {
			fmt.Fprintf(e.stderr, "streamsql: %v\n", err)
			return errFailed
		}
		defer unlock()
		refs, err := d.List()
		if err != nil {
			fmt.Fprintf(e.stderr, "streamsql: %v\n", err)
			return errFailed
		}
		if latest, err := d.Latest(); err == nil && latest != nil && len(latest.Pending) > 0 && !force {
			fmt.Fprintf(e.stderr, "streamsql: checkpoint %d of %s has %d pending commit(s): dropping it gives them up (the next run aborts what is left of them); "+
				"see them with streamsql checkpoint show, and add --force to drop anyway\n", latest.ID, d.Location(), len(latest.Pending))
			return errFailed
		}
		if err := d.Clear(); err != nil {
			fmt.Fprintf(e.stderr, "streamsql: %v\n", err)
			return errFailed
		}
		if _, err := d.DropFinished(); err != nil {
			fmt.Fprintf(e.stderr, "streamsql: %v\n", err)
			return errFailed
		}
		fmt.Fprintf(e.stdout, "Dropped %d checkpoint(s) of %s: the next run starts afresh.\n", len(refs), d.Location())
		return nil
	}
	return cmd
}
