package planner

import (
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/internal/ckptpath"
	"github.com/streamsql/streamsql/jobconfig"
)

// defaultCheckpointDir gives a job that checkpoints and sets no
// execution.checkpointing.dir the per-user default folder
// (ckptpath.Default), so that job files written for Flink, which set
// no folder, keep their guarantees across a crash: a restarted process
// finds the job's checkpoints there, finishes their pending commits and
// resumes its sources where the committed output ends.
//
// A job checkpoints, for this rule, when execution.checkpointing.interval
// is set or when it writes a two-phase (exactly-once) sink, which commits
// at the job's final checkpoint at least. Other jobs (a datagen → print
// job, a bare SELECT over a topic) keep their checkpoints in memory: a new
// run starts them afresh, as before. Flink's
// execution.checkpointing.storage decides instead when set: 'jobmanager'
// keeps any job's checkpoints in memory, 'filesystem' gives any job the
// folder. A scaled-out job keeps its positions in the consumer groups and
// takes no folder. When no default folder is
// known (no XDG_STATE_HOME and no home directory), the job is planned
// without one and checkDurability refuses what needs one, saying why.
//
// It returns why no default folder is known, "" when there is one or
// none is needed.
func (p *planner) defaultCheckpointDir() string {
	pl := p.plan
	cp := &pl.Runtime.Checkpoint
	if cp.Dir != "" || pl.ScaleOut || cp.Storage == jobconfig.StorageJobManager ||
		!p.checkpoints() && cp.Storage != jobconfig.StorageFilesystem {
		return ""
	}
	dir, err := p.defaultDir, error(nil)
	if dir == "" {
		dir, err = ckptpath.Default()
	}
	if err != nil {
		return err.Error()
	}
	cp.Dir, pl.CheckpointDirDefault = dir, true
	return ""
}

// checkpoints reports whether the job checkpoints for the rule of
// defaultCheckpointDir: periodic checkpoints, or a two-phase sink.
func (p *planner) checkpoints() bool {
	if p.plan.Runtime.Checkpoint.Interval > 0 {
		return true
	}
	for _, ins := range p.plan.Inserts {
		if !ins.Explain && !ins.Sink.Print && ins.Sink.Info.Delivery == factory.ExactlyOnce {
			return true
		}
	}
	return false
}

// CheckpointFolder returns the folder the job's checkpoints are written
// to (<execution.checkpointing.dir>/<job name>, or the same under the
// default folder), "" when they are kept in memory.
func (pl *Plan) CheckpointFolder() string {
	if pl.Runtime.Checkpoint.Dir == "" {
		return ""
	}
	f, err := ckptpath.JobFolder(pl.Runtime.Checkpoint.Dir, pl.JobName)
	if err != nil {
		return pl.Runtime.Checkpoint.Dir // validation reports the error
	}
	return f
}
