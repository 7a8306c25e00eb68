package s3store

import (
	"os"
	"strconv"
	"strings"
)

// process identifies this process for the lock (see holder).
type process struct{ boot, pidNS, start string }

func localProcess() process {
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	ns, _ := os.Readlink("/proc/self/ns/pid")
	return process{boot: strings.TrimSpace(string(boot)), pidNS: ns, start: procStart(os.Getpid())}
}

// procStart returns the start time of process pid (field 22 of
// /proc/<pid>/stat, clock ticks since boot), or "" when there is no such
// process.
func procStart(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return ""
	}
	return f[19] // field 22: fields after the name start at field 3
}

type liveness int

const (
	unknown liveness = iota // another machine or namespace
	alive
	gone
)

// sameMachine tells whether the holder h ran in this kernel and process
// namespace, and if so whether its process still runs.
func sameMachine(h holder) liveness {
	me := localProcess()
	host, _ := os.Hostname()
	if h.Boot == "" || h.Boot != me.boot || h.PIDNS != me.pidNS || h.Host != host || h.ProcStart == "" {
		return unknown
	}
	if procStart(h.PID) == h.ProcStart && h.PID != os.Getpid() {
		return alive
	}
	// No such process, another process with its pid, or this process
	// (an earlier lock of this process, never released).
	return gone
}
