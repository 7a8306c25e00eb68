package testkit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/streamsql/streamsql/runtime"
)

// FaultsEnv is the environment variable FaultsFromEnv reads: a
// comma-separated list of rules "point@n:action[:delay]", for example
// "after-pre-commit@3:kill" or "commit-delay@1:kill:200ms"; "point@final"
// fires at the first hit of the point in a final checkpoint
// (runtime.FaultInfo.Final). Actions are
// fail (return an error), kill (SIGKILL the process) and delay (wait, then
// go on); the optional delay is waited before the action.
const FaultsEnv = "STREAMSQL_FAULTS"

// Action is what a rule does when it fires.
type Action uint8

// The actions.
const (
	// Fail makes the runtime fail at the point (a task error).
	Fail Action = iota
	// Kill sends SIGKILL to the process.
	Kill
	// Delay waits and goes on.
	Delay
	// Block waits until Release is called (or the run's context ends),
	// then goes on.
	Block
)

var actionNames = []string{"fail", "kill", "delay", "block"}

// ErrInjected is returned by Hit for rules with the Fail action.
var ErrInjected = errors.New("testkit: injected failure")

type rule struct {
	point   runtime.FaultPoint
	at      int
	final   bool // at the first hit in a final checkpoint, not the at-th
	action  Action
	delay   time.Duration
	hits    int
	fired   bool
	release chan struct{}
}

// Faults is a runtime.FaultInjector driven by rules: each rule fires once,
// at the at-th time its point is reached (counting only hits that concern
// a checkpoint: during recovery, only recoveries of a restored
// checkpoint). It is safe for concurrent use.
type Faults struct {
	mu    sync.Mutex
	rules []*rule
}

var _ runtime.FaultInjector = (*Faults)(nil)

// On adds a rule: at the at-th hit of p (1 = the first), do a after
// waiting delay.
func (f *Faults) On(p runtime.FaultPoint, at int, a Action, delay time.Duration) *Faults {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rules = append(f.rules, &rule{point: p, at: max(at, 1), action: a, delay: delay, release: make(chan struct{})})
	return f
}

// OnFinal adds a rule: at the first hit of p in a final checkpoint
// (runtime.FaultInfo.Final), do a after waiting delay.
func (f *Faults) OnFinal(p runtime.FaultPoint, a Action, delay time.Duration) *Faults {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rules = append(f.rules, &rule{point: p, at: 1, final: true, action: a, delay: delay, release: make(chan struct{})})
	return f
}

// Fired reports whether a rule of p has fired.
func (f *Faults) Fired(p runtime.FaultPoint) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.rules {
		if r.point == p && r.fired {
			return true
		}
	}
	return false
}

// Release lets Block rules of p go on.
func (f *Faults) Release(p runtime.FaultPoint) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.rules {
		if r.point == p {
			select {
			case <-r.release:
			default:
				close(r.release)
			}
		}
	}
}

// Hit implements runtime.FaultInjector.
func (f *Faults) Hit(ctx context.Context, p runtime.FaultPoint, info runtime.FaultInfo) error {
	if f == nil {
		return nil
	}
	if info.Checkpoint <= 0 && p == runtime.DuringRecovery {
		return nil
	}
	f.mu.Lock()
	var fire *rule
	for _, r := range f.rules {
		if r.point != p || r.fired || r.final && !info.Final {
			continue
		}
		if r.hits++; r.hits >= r.at {
			r.fired = true
			fire = r
			break
		}
	}
	f.mu.Unlock()
	if fire == nil {
		return nil
	}
	if fire.delay > 0 {
		t := time.NewTimer(fire.delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
	switch fire.action {
	case Fail:
		return fmt.Errorf("%w at %s (checkpoint %d, sink %q)", ErrInjected, p, info.Checkpoint, info.Sink)
	case Kill:
		killSelf()
	case Block:
		select {
		case <-fire.release:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func killSelf() {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		_ = p.Kill()
	}
	select {} // the signal is on its way
}

// ParseFaults parses rules in the FaultsEnv syntax.
func ParseFaults(s string) (*Faults, error) {
	f := &Faults{}
	for spec := range strings.SplitSeq(s, ",") {
		spec = strings.TrimSpace(spec)
		if spec == "" {
			continue
		}
		parts := strings.Split(spec, ":")
		name, atS, _ := strings.Cut(parts[0], "@")
		p := runtime.FaultPoint(name)
		known := false
		for _, k := range runtime.FaultPoints() {
			known = known || k == p
		}
		if !known {
			return nil, fmt.Errorf("fault %q: unknown point %q", spec, name)
		}
		at, final := 1, atS == "final"
		if atS != "" && !final {
			n, err := strconv.Atoi(atS)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("fault %q: bad hit count %q", spec, atS)
			}
			at = n
		}
		a := Fail
		if len(parts) > 1 {
			i := -1
			for k, n := range actionNames {
				if n == parts[1] {
					i = k
				}
			}
			if i < 0 || Action(i) == Block {
				return nil, fmt.Errorf("fault %q: unknown action %q (fail, kill, delay)", spec, parts[1])
			}
			a = Action(i)
		}
		var d time.Duration
		if len(parts) > 2 {
			var err error
			if d, err = time.ParseDuration(parts[2]); err != nil {
				return nil, fmt.Errorf("fault %q: %w", spec, err)
			}
		}
		if final {
			f.OnFinal(p, a, d)
		} else {
			f.On(p, at, a, d)
		}
	}
	return f, nil
}

// FaultsFromEnv returns the rules of FaultsEnv, or nil when it is unset.
func FaultsFromEnv() (*Faults, error) {
	s := os.Getenv(FaultsEnv)
	if s == "" {
		return nil, nil
	}
	return ParseFaults(s)
}
