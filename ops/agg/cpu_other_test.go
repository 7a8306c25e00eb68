//go:build !unix

package agg_test

func processCPUNanos() (int64, bool) { return 0, false }
