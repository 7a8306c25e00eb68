package s3store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/streamsql/streamsql/internal/s3fs/s3client"
	"github.com/streamsql/streamsql/runtime/checkpoint"
)

// holder is the content of the lock object.
type holder struct {
	// Owner is random per Lock: only its taker writes it.
	Owner string `json:"owner"`
	PID   int    `json:"pid"`
	Host  string `json:"host"`
	// Boot and PIDNS identify the kernel and the process namespace the
	// holder ran in, and ProcStart the process's start (clock ticks
	// since boot), so that a process on the same machine can tell
	// whether the holder still runs (see the package documentation).
	Boot      string    `json:"boot_id,omitempty"`
	PIDNS     string    `json:"pid_ns,omitempty"`
	ProcStart string    `json:"proc_start,omitempty"`
	Since     time.Time `json:"since"`
	LeaseMS   int64     `json:"lease_ms"`
	Renewals  int64     `json:"renewals"`
}

func (h holder) String() string {
	return fmt.Sprintf("pid %d on host %s since %s", h.PID, h.Host, h.Since.Format(time.RFC3339))
}

// heldHere is the set of lock objects (s3://bucket/key) this process
// holds: the process's share of a resource that is shared by every
// process, as the kernel's table of flocks is for local folders. A second
// Lock of one job in one process fails as it would in another process.
var heldHere sync.Map

// lease is a held lock.
type lease struct {
	h        holder
	etag     string
	validTil time.Time // no write after this (monotonic)
	lost     error     // set when another process took the lock
	stop     context.CancelFunc
	done     chan struct{}
}

func (s *Store) lockKey() string { return s.key(checkpoint.LockFile) }

// mayWrite refuses writes of a holder whose lease is lost or expired. A
// store that is not locked (the CLI's reads, tests) writes freely.
func (s *Store) mayWrite() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.lease
	switch {
	case l == nil:
		return nil
	case l.lost != nil:
		return l.lost
	case time.Now().After(l.validTil):
		return fmt.Errorf("the lock on %s is not renewed (the object store did not answer for %s): no writes until it is",
			s.Location(), s.LeaseDuration)
	}
	return nil
}

// Lock implements checkpoint.Durable (see the package documentation). It
// may wait up to LeaseDuration for a holder on another machine that
// stopped renewing. The lock holder also aborts multipart uploads of
// state files that a crash interrupted.
func (s *Store) Lock() (unlock func() error, err error) {
	ctx, cancel := s.ctx()
	defer cancel()
	if err := s.c.ProbeConditionalWrites(ctx, s.loc.Bucket, s.key(".lock-probe-"+randomToken())); err != nil {
		if errors.Is(err, s3client.ErrNoConditionalWrites) {
			return nil, fmt.Errorf("lock %s: %w; the job's lock and checkpoints rely on them, so s3:// checkpoints are refused on this server "+
				"(use a local checkpoint folder, or an S3 server with conditional writes: AWS S3, MinIO, SeaweedFS, Ceph RGW, R2)", s.Location(), err)
		}
		return nil, fmt.Errorf("lock %s: %w", s.Location(), err)
	}
	me := s.me()
	uri := s.loc.URI(s.lockKey())
	if _, dup := heldHere.LoadOrStore(uri, me); dup {
		return nil, fmt.Errorf("%w: %s is locked by this process already (another run of job %q in it)", checkpoint.ErrLocked, s.Location(), s.job)
	}
	l, err := s.acquire(me)
	if err != nil {
		heldHere.Delete(uri)
		return nil, err
	}
	rctx, stop := context.WithCancel(context.Background())
	l.stop, l.done = stop, make(chan struct{})
	s.mu.Lock()
	s.lease = l
	s.mu.Unlock()
	go s.renew(rctx, l)
	s.abortStaleUploads()
	var once sync.Once
	return func() error {
		var err error
		once.Do(func() { err = s.unlock(l) })
		return err
	}, nil
}

// me describes this process as a holder.
func (s *Store) me() holder {
	host, _ := os.Hostname()
	p := localProcess()
	return holder{Owner: randomToken(), PID: os.Getpid(), Host: host, Boot: p.boot, PIDNS: p.pidNS, ProcStart: p.start,
		Since: time.Now().UTC().Truncate(time.Second), LeaseMS: s.LeaseDuration.Milliseconds()}
}

// acquire takes the lock object, or fails with ErrLocked.
func (s *Store) acquire(me holder) (*lease, error) {
	key := s.lockKey()
	data, _ := json.Marshal(me)
	for attempt := 0; ; attempt++ {
		ctx, cancel := s.ctx()
		start := time.Now()
		etag, err := s.c.Put(ctx, s.loc.Bucket, key, data, s3client.Cond{IfNoneMatch: true})
		cancel()
		if err == nil {
			return &lease{h: me, etag: etag, validTil: start.Add(s.LeaseDuration)}, nil
		}
		if !errors.Is(err, s3client.ErrPrecondition) {
			return nil, fmt.Errorf("lock %s: %w", s.Location(), err)
		}
		cur, curTag, err := s.readLock()
		if errors.Is(err, fs.ErrNotExist) {
			continue // released meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", s.Location(), err)
		}
		if cur.Owner == me.Owner {
			// An earlier attempt of ours created it; its answer was lost.
			return &lease{h: me, etag: curTag, validTil: start.Add(s.LeaseDuration)}, nil
		}
		if attempt > 0 {
			// Someone else changed the lock while we took it over.
			return nil, s.lockedBy(cur)
		}
		switch sameMachine(cur) {
		case alive:
			return nil, s.lockedBy(cur)
		case unknown:
			// Another machine (or no way to tell): wait for a renewal.
			wait := max(s.LeaseDuration, time.Duration(cur.LeaseMS)*time.Millisecond)
			s.log.Warn("the job's checkpoint lock is held by a process this one cannot see; waiting for it to renew or expire",
				"lock", s.loc.URI(key), "holder", cur.String(), "up_to", wait)
			renewed, err := s.watch(key, curTag, wait)
			if err != nil {
				return nil, fmt.Errorf("lock %s: %w", s.Location(), err)
			}
			if renewed {
				return nil, s.lockedBy(cur)
			}
		}
		// The holder is gone: take over exactly the version we read.
		ctx, cancel = s.ctx()
		start = time.Now()
		etag, err = s.c.Put(ctx, s.loc.Bucket, key, data, s3client.Cond{IfMatch: curTag})
		cancel()
		if err == nil {
			s.log.Warn("took over the checkpoint lock of a process that is gone", "lock", s.loc.URI(key), "previous_holder", cur.String())
			return &lease{h: me, etag: etag, validTil: start.Add(s.LeaseDuration)}, nil
		}
		if !errors.Is(err, s3client.ErrPrecondition) {
			return nil, fmt.Errorf("lock %s: %w", s.Location(), err)
		}
	}
}

func (s *Store) lockedBy(h holder) error {
	return fmt.Errorf("%w: %s is locked by another process of job %q (%s); is the job already running? "+
		"Two processes of one job would overwrite each other's checkpoints and fence each other's transactions",
		checkpoint.ErrLocked, s.Location(), s.job, h)
}

func (s *Store) readLock() (holder, string, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	data, etag, err := s.c.GetAll(ctx, s.loc.Bucket, s.lockKey())
	if err != nil {
		return holder{}, "", err
	}
	var h holder
	if json.Unmarshal(data, &h) != nil {
		h = holder{Host: "unknown (unreadable lock object)"}
	}
	return h, etag, nil
}

// watch polls the lock object for up to wait and reports whether it
// changed (renewed, taken or released) in that time.
func (s *Store) watch(key, etag string, wait time.Duration) (bool, error) {
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		time.Sleep(min(wait/10, time.Until(deadline)) + time.Millisecond)
		ctx, cancel := s.ctx()
		obj, err := s.c.Head(ctx, s.loc.Bucket, key)
		cancel()
		if errors.Is(err, fs.ErrNotExist) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		if obj.ETag != etag {
			return true, nil
		}
	}
	return false, nil
}

// renew renews the lease every LeaseDuration/3 until ctx ends.
func (s *Store) renew(ctx context.Context, l *lease) {
	defer close(l.done)
	every := s.LeaseDuration / 3
	t := time.NewTicker(every)
	defer t.Stop()
	warned := time.Time{}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.mu.Lock()
		h, etag := l.h, l.etag
		s.mu.Unlock()
		h.Renewals++
		data, _ := json.Marshal(h)
		rctx, cancel := context.WithTimeout(ctx, every)
		start := time.Now()
		newTag, err := s.c.Put(rctx, s.loc.Bucket, s.lockKey(), data, s3client.Cond{IfMatch: etag})
		cancel()
		if errors.Is(err, s3client.ErrPrecondition) {
			// Ours if our earlier renewal landed unanswered; else taken.
			cur, curTag, rerr := s.readLock()
			if rerr == nil && cur.Owner == h.Owner {
				newTag, err = curTag, nil
				h = cur
			} else if rerr == nil || errors.Is(rerr, fs.ErrNotExist) {
				s.mu.Lock()
				l.lost = fmt.Errorf("%w: the lock on %s was taken over by another process (%s) while this one held it; "+
					"this process stops writing checkpoints", checkpoint.ErrLocked, s.Location(), cur)
				s.mu.Unlock()
				s.log.Error("lost the job's checkpoint lock to another process", "lock", s.loc.URI(s.lockKey()), "holder", cur.String())
				return
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if time.Since(warned) > s.LeaseDuration {
				warned = time.Now()
				s.log.Warn("cannot renew the job's checkpoint lock; checkpoints are not written while it is expired", "err", err)
			}
			continue
		}
		s.mu.Lock()
		l.h, l.etag, l.validTil = h, newTag, start.Add(s.LeaseDuration)
		s.mu.Unlock()
	}
}

// unlock stops the renewals and deletes the lock object if it is still
// this holder's.
func (s *Store) unlock(l *lease) error {
	l.stop()
	<-l.done
	s.mu.Lock()
	s.lease = nil
	lost, etag := l.lost, l.etag
	s.mu.Unlock()
	defer heldHere.Delete(s.loc.URI(s.lockKey()))
	if lost != nil {
		return nil
	}
	ctx, cancel := s.ctx()
	defer cancel()
	if err := s.c.Delete(ctx, s.loc.Bucket, s.lockKey(), etag); err != nil && !errors.Is(err, s3client.ErrPrecondition) {
		return fmt.Errorf("unlock %s: %w", s.Location(), err)
	}
	return nil
}

// abortStaleUploads aborts the multipart uploads of state files under the
// job's folder: the lock holder is the only writer, so any upload in
// progress belongs to a process that died.
func (s *Store) abortStaleUploads() {
	ctx, cancel := s.ctx()
	defer cancel()
	ups, err := s.c.ListUploads(ctx, s.loc.Bucket, s.stateKey(""))
	if err != nil {
		return
	}
	for _, u := range ups {
		if strings.HasPrefix(u.Key, s.stateKey("")) {
			_ = s.c.AbortUpload(ctx, s.loc.Bucket, u.Key, u.ID)
		}
	}
}
