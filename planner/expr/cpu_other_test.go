//go:build !unix

package expr

func processCPUNanos() (int64, bool) { return 0, false }
