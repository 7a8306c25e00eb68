// Package runtime runs a job plan: tasks connected by bounded channels,
// barrier checkpoints, two-phase-commit sinks, recovery and restarts.
package runtime
