package runtime

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/streamsql/streamsql/jobconfig"
)

// restarter decides, after a failed run, whether and when to restart.
type restarter struct {
	cfg      jobconfig.RestartConfig
	strategy jobconfig.RestartStrategy
	now      func() time.Time

	attempts int         // fixed-delay: restarts made
	failures []time.Time // failure-rate: failure times within the interval
	backoff  time.Duration
	expTries int // exponential-delay: attempts since the last reset
}

func newRestarter(c jobconfig.Config, now func() time.Time) *restarter {
	return &restarter{cfg: c.Restart, strategy: c.EffectiveStrategy(), now: now}
}

// next is called after a run that started at started failed at now. It
// returns the delay before the next run, or false when the job must fail.
func (r *restarter) next(started time.Time) (time.Duration, bool) {
	now := r.now()
	switch r.strategy {
	case jobconfig.RestartFixedDelay:
		if r.attempts >= r.cfg.FixedDelayAttempts {
			return 0, false
		}
		r.attempts++
		return r.cfg.FixedDelay, true
	case jobconfig.RestartFailureRate:
		cut := now.Add(-r.cfg.FailureRateInterval)
		kept := r.failures[:0]
		for _, t := range r.failures {
			if t.After(cut) {
				kept = append(kept, t)
			}
		}
		r.failures = append(kept, now)
		// As Flink's FailureRateRestartBackoffTimeStrategy: the job fails
		// when max-failures-per-interval failures, this one included,
		// fall within the interval (so the default of 1 never restarts).
		if len(r.failures) >= r.cfg.FailureRateMaxFailures {
			return 0, false
		}
		return r.cfg.FailureRateDelay, true
	case jobconfig.RestartExponentialDelay:
		if now.Sub(started) >= r.cfg.ResetBackoffThreshold {
			r.backoff, r.expTries = 0, 0
		}
		if r.expTries >= r.cfg.AttemptsBeforeReset {
			return 0, false
		}
		r.expTries++
		if r.backoff == 0 {
			r.backoff = r.cfg.InitialBackoff
		} else {
			r.backoff = time.Duration(math.Min(float64(r.backoff)*r.cfg.BackoffMultiplier, float64(r.cfg.MaxBackoff)))
		}
		d := r.backoff
		if j := r.cfg.JitterFactor; j > 0 {
			d += time.Duration((rand.Float64()*2 - 1) * j * float64(d))
		}
		return max(d, 0), true
	}
	return 0, false
}
