// Package jobhttp serves a job's metrics and status over HTTP, as
// `streamsql run --http ADDR` does: / (a status page for people that
// refreshes itself from /status and draws the operator graph; no external
// assets), /metrics in the
// Prometheus text format (with streamsql_consumer_lag per source
// partition), /healthz (200 "ok" unless the job failed, else 503) and
// /status (the job's runtime.Status as JSON, with the partitions this
// instance reads and their lag, and its recent warnings and errors). Only
// names, counters, offsets, times and the job's own log lines are served,
// never a table's options.
//
// It is a package of its own so that a program embedding package job
// links the Prometheus client only when it serves metrics.
package jobhttp

import (
	"net/http"

	"github.com/streamsql/streamsql/job/jobhttp/internal/metrics"
	"github.com/streamsql/streamsql/runtime"
)

// Handler returns the HTTP handler of /, /metrics, /healthz and /status for
// a job (a *job.Job, or anything else with a Status). It may be created
// before the job runs: it serves the job's state at each request.
func Handler(j runtime.Metrics) http.Handler { return metrics.Handler(j) }

// Server serves a job's Handler on a TCP address.
type Server struct{ s *metrics.Server }

// Serve starts serving j's metrics and status on addr ("host:port"; port
// 0 picks a free one). Close stops it.
func Serve(addr string, j runtime.Metrics) (*Server, error) {
	s, err := metrics.Serve(addr, j)
	if err != nil {
		return nil, err
	}
	return &Server{s: s}, nil
}

// Addr returns the address the server listens on.
func (s *Server) Addr() string { return s.s.Addr() }

// Close stops the server, waiting a few seconds for requests in flight,
// and returns when its goroutine has ended.
func (s *Server) Close() error { return s.s.Close() }
