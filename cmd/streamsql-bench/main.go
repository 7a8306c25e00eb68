// Command streamsql-bench measures pipelines on a real Kafka broker:
// throughput, CPU, peak memory, start-up time and end-to-end latency of
// consume → decode JSON → filter → project 5 columns → encode JSON → produce.
//
// Every pipe runs as a child process so that its peak RSS and CPU time are
// its own. Two reference pipes set the scale (handpipe.go): a raw copy
// (consume → produce the same bytes, nothing decoded) and the best
// hand-written pipe (fastjson decode, filter, projection, hand-written JSON
// encoding), each at least once and transactionally with a commit every
// second, all with streamsql's default client settings. The older
// encoding/json pipes (baseline.go) run beside them for the history of
// BENCHMARKS.md. streamsql itself (planner + runtime, embedded as a library)
// runs the same work in four modes: at-least-once without and with 1 s
// checkpoints, exactly-once with 1 s checkpoints, and upsert-kafka
// at-least-once. Every scenario is reported as a ratio to both references
// with the same guarantee, and a targets table (targets.go) holds
// streamsql's figures against the goals of issue 20.
//
// Usage:
//
//	streamsql-bench [-bootstrap ADDR] [-records N] [-partitions P] [-runs R]
//	                [-latency-rate RPS] [-latency-seconds S] [-latency-runs L] [-hogs H]
//	                [-taskset CPUS] [-payload BYTES] [-json FILE] [-only S1,S2]
//	streamsql-bench -scaling [-records N] [-runs R] [-taskset CPUS] [-json FILE]
//	streamsql-bench -tune
//	streamsql-bench -nexmark q0,q1,...|all [-nexmark-events N] [-nexmark-runs R]
//	                [-nexmark-ddl kafka,gen] [-flink auto|off|CLASSPATH]
//	                [-flink-nexmark-jar auto|off|JAR] [-nexmark-cpu CPU]
//	                [-json FILE] [-nexmark-md FILE]
//
// -nexmark runs the public Nexmark query files through streamsql and Flink
// 2.2 side by side, each pinned to one CPU, and reports the marginal rate
// between N and 2N events (nexmark.go).
//
// -taskset 0 pins every child (pipes and CPU hogs) to CPU 0 with taskset,
// so per-core figures do not depend on the cores the machine lends; -hogs
// is the number of busy-loop processes during each latency run (default 2);
// -latency-runs is the number of latency runs per scenario, interleaved
// across scenarios like the throughput runs, whose median p50 and p99 are
// reported (default 3);
// -scaling measures records/s and RSS at 4, 16 and 64 partitions, payloads
// of ~100 B, 1 KB and 10 KB, and 1, 4 and 16 pipelines in one job
// (scaling.go). STREAMSQL_BENCH_CPUPROFILE=PREFIX makes each streamsql child
// write a CPU profile to PREFIX.<scenario>.<pid> (-nexmark's children too:
// PREFIX.<job name>.<pid>); STREAMSQL_BENCH_ALLOCPROFILE=PREFIX makes each
// Nexmark child write its allocation profile and exact allocation totals
// (envAllocProfile).
//
// The broker address defaults to $STREAMSQL_KAFKA_BOOTSTRAP; scripts/bench.sh
// starts a broker, runs the benchmark and stops it.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
)

// envPipe marks a child process that runs one pipe.
const envPipe = "STREAMSQL_BENCH_PIPE"

// readyLine is what a pipe prints once it has connected.
const readyLine = "ready"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	if os.Getenv(envHog) == "1" {
		err = hogMain()
	} else if os.Getenv(envNexmark) == "1" {
		os.Exit(nexmarkChildMain(ctx, os.Args[1:], os.Stdout, os.Stderr))
	} else if os.Getenv(envPipe) == "1" {
		err = pipeMain(ctx, os.Args[1:], os.Stdout)
	} else {
		err = benchMain(ctx, os.Args[1:], os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "streamsql-bench:", err)
		os.Exit(1)
	}
}

// pipeMain runs one pipe in a child process and prints its result as JSON.
func pipeMain(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("pipe", flag.ContinueOnError)
	name := fs.String("scenario", "", "scenario name")
	bootstrap := fs.String("bootstrap", "", "broker")
	src := fs.String("src", "", "source topic")
	dst := fs.String("dst", "", "sink topic (streamsql with -pipelines N: N comma-separated topics)")
	pipelines := fs.Int("pipelines", 1, "streamsql only: INSERT INTO statements in the job, each from the source into its own sink topic")
	expect := fs.Int64("expect", 0, "records to consume (0: up to the end offsets at start)")
	settings := fs.String("settings", "", "a baseline's client settings (key=value,...)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	sc, ok := scenarioByName(*name)
	if !ok {
		return fmt.Errorf("unknown scenario %q", *name)
	}
	if *settings != "" {
		if sc.Settings == nil {
			return fmt.Errorf("scenario %s takes no client settings", sc.Name)
		}
		set, err := parseSettings(defaultSettings, *settings)
		if err != nil {
			return err
		}
		sc = sc.withSettings(set)
	}
	if *pipelines != 1 {
		if sc.Reference != "" || sc.Settings != nil {
			return fmt.Errorf("scenario %s runs one pipeline, not %d", sc.Name, *pipelines)
		}
		sc = sc.withPipelines(*pipelines)
	}
	res, err := sc.run(ctx, *bootstrap, *src, *dst, *expect, func() { fmt.Fprintln(stdout, readyLine) })
	if err != nil {
		return err
	}
	if res.PeakRSSKB, err = peakRSSKB(); err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(res)
}

// peakRSSKB returns this process's peak resident set size in KiB (VmHWM).
// It is read in the child rather than taken from the parent's wait4
// rusage: Linux keeps, in a process's ru_maxrss, the high-water mark of
// the address space that exec replaced, and os/exec starts children with
// clone(CLONE_VM), sharing the parent's, so ru_maxrss could show the
// parent's peak (the loader's buffers) instead of the child's.
func peakRSSKB() (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("reading the peak RSS: %w", err)
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) == 2 && f[1] == "kB" {
				return strconv.ParseInt(f[0], 10, 64)
			}
		}
	}
	return 0, fmt.Errorf("no VmHWM line in /proc/self/status")
}
