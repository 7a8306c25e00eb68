//go:build !unix

package json

func processCPUNanos() (int64, bool) { return 0, false }
