//go:build unix

package sqlregex

import "syscall"

// cpuNanos returns the CPU time (user + system) the process has used:
// the benchmarks report it besides wall time, because the machine's cores
// are shared and wall time includes waiting for them.
func cpuNanos() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
