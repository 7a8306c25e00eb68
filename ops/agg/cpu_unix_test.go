//go:build unix

package agg_test

import "syscall"

// processCPUNanos returns the CPU time (user + system) the process has used.
// Benchmarks report it per row besides wall time, because this machine's
// cores are shared and wall time includes waiting for them.
func processCPUNanos() (int64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), true
}
