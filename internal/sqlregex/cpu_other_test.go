//go:build !unix

package sqlregex

func cpuNanos() int64 { return 0 }
