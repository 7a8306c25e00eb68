//go:build !unix

package formattest

func processCPUNanos() (int64, bool) { return 0, false }
