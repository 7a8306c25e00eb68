//go:build !linux

package s3store

// process identifies this process for the lock; only Linux says.
type process struct{ boot, pidNS, start string }

func localProcess() process { return process{} }

type liveness int

const (
	unknown liveness = iota
	alive
	gone
)

// sameMachine cannot tell here: a holder is waited for.
func sameMachine(holder) liveness { return unknown }
