//go:build unix

package json

import "syscall"

// processCPUNanos returns the CPU time (user + system) the process has
// used: BenchmarkDecodePipe reports it per record besides wall time,
// because the machine's cores are shared and wall time includes waiting
// for them.
func processCPUNanos() (int64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), true
}
