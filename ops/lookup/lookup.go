// Package lookup holds the lookup join operator (Flink's LookupJoin): each
// input row is joined with the rows of an external table (a
// connector.LookupSource: a jdbc table) that its key looks up when the row
// arrives, FROM s JOIN t FOR SYSTEM_TIME AS OF s.proc_time AS t ON s.k =
// t.k. It keeps no keyed state: a checkpoint holds nothing of it, and the
// rows of one input batch are looked up (concurrently, bounded) and
// emitted, in input order, before the call returns, so no lookup is in
// flight at a barrier.
package lookup

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// Func looks up the rows whose key columns equal key, appending them to
// dst (connector.Lookuper.Lookup). It is called from several goroutines
// at once.
type Func func(ctx context.Context, key []types.Value, dst []types.Row) ([]types.Row, error)

// Spec configures a lookup join (New).
type Spec struct {
	// Left emits an input row without a looked-up row (or whose looked-up
	// rows all fail Condition) padded with NULLs (LEFT JOIN); otherwise
	// such a row is dropped.
	Left bool
	// Keys are the input columns of the lookup key, in the order the
	// lookup takes them; KeyTypes their types (the cache's key encoding).
	Keys     []int
	KeyTypes []types.Type
	// Width is the number of the looked-up rows' columns.
	Width int
	// NewCondition returns the residual condition of one task, over the
	// input row's columns then the looked-up row's; nil: none.
	NewCondition func() func(row []types.Value) (bool, error)
	// Open opens the lookup of one task; close releases it. ctx ends when
	// the operator closes.
	Open func(ctx context.Context) (fn Func, close func() error, err error)
	// Cache, when set, keeps each task's looked-up keys (lookup.cache =
	// PARTIAL).
	Cache *Cache
	// MaxRetries is how many times a failed lookup is retried, Backoff,
	// 2·Backoff, ... apart (lookup.max-retries; Backoff 0: 1 s, as Flink's
	// jdbc lookup waits), before the task fails.
	MaxRetries int
	Backoff    time.Duration
	// MissRetries repeats a lookup that finds no row up to MissRetries
	// times, MissDelay apart, before the join takes the miss (Flink's
	// LOOKUP hint with 'retry-predicate' = 'lookup_miss', 'retry-strategy'
	// = 'fixed_delay': a dimension row that lands shortly after the fact
	// that needs it is still joined). 0: a miss is final at once.
	MissRetries int
	MissDelay   time.Duration
	// Concurrency bounds the lookups in flight per task
	// (table.exec.async-lookup.buffer-capacity; 0: 1); Timeout bounds each
	// (table.exec.async-lookup.timeout; 0: none).
	Concurrency int
	Timeout     time.Duration
	// Table names the looked-up table, for errors.
	Table string
}

// Cache configures a task's cache of looked-up keys (Flink's
// DefaultLookupCache).
type Cache struct {
	// MaxRows bounds the rows kept (0: no bound): the least recently used
	// keys go first.
	MaxRows int64
	// ExpireAfterWrite and ExpireAfterAccess expire a key's rows that long
	// after they were looked up or last used (0: never).
	ExpireAfterWrite, ExpireAfterAccess time.Duration
	// CacheMissingKey keeps that a key has no rows.
	CacheMissingKey bool
}

// New returns the factory of lookup join operators of spec.
func New(spec Spec) stream.Factory {
	return func(task stream.TaskInfo) (stream.Operator, error) {
		if spec.Open == nil {
			return nil, errors.New("lookup join: no lookup")
		}
		if len(spec.Keys) != len(spec.KeyTypes) {
			return nil, fmt.Errorf("lookup join: %d key columns, %d key types", len(spec.Keys), len(spec.KeyTypes))
		}
		op := &lookupJoin{spec: spec}
		if spec.NewCondition != nil {
			op.cond = spec.NewCondition()
		}
		return op, nil
	}
}

type lookupJoin struct {
	stream.Base
	spec   Spec
	ctx    context.Context
	cancel context.CancelFunc
	fn     Func
	close  func() error
	cond   func(row []types.Value) (bool, error)
	now    func() int64
	cache  *cache

	// Per batch: each row's looked-up rows (results[i]), and the keys
	// still to look up.
	results [][]types.Row
	byKey   map[string]*pending
	keyBuf  []byte
	joined  []types.Value
	slab    []types.Value
}

func (l *lookupJoin) Open(ctx *stream.Context) error {
	l.ctx, l.cancel = context.WithCancel(context.Background())
	fn, closeFn, err := l.spec.Open(l.ctx)
	if err != nil {
		l.cancel()
		return fmt.Errorf("lookup join of %s: %w", l.spec.Table, err)
	}
	l.fn, l.close, l.now = fn, closeFn, ctx.Now
	if l.spec.Cache != nil {
		l.cache = newCache(*l.spec.Cache)
	}
	return nil
}

func (l *lookupJoin) Close() error {
	if l.cancel != nil {
		l.cancel()
	}
	if l.close != nil {
		return l.close()
	}
	return nil
}

// pending is a lookup of a batch: the rows that need it, and its result.
type pending struct {
	key   string // the encoded key (the cache's)
	vals  []types.Value
	rows  []types.Row
	err   error
	users []int
}

func (l *lookupJoin) Process(_ int, rows []types.Row, out *stream.Output) error {
	if cap(l.results) < len(rows) {
		l.results = make([][]types.Row, len(rows))
	}
	l.results = l.results[:len(rows)]
	now := l.now()
	// The keys to look up, once each per batch.
	var todo []*pending
	if l.byKey == nil {
		l.byKey = map[string]*pending{}
	}
	clear(l.byKey)
	byKey := l.byKey
	for i := range rows {
		r := &rows[i]
		l.keyBuf = state.AppendKey(l.keyBuf[:0], r.Fields, l.spec.Keys, l.spec.KeyTypes)
		if l.cache != nil {
			if got, ok := l.cache.get(l.keyBuf, now); ok {
				l.results[i] = got
				continue
			}
		}
		p := byKey[string(l.keyBuf)]
		if p == nil {
			p = &pending{key: string(l.keyBuf), vals: make([]types.Value, len(l.spec.Keys))}
			for k, c := range l.spec.Keys {
				p.vals[k] = r.Fields[c]
			}
			byKey[p.key] = p
			todo = append(todo, p)
		}
		p.users = append(p.users, i)
	}
	if err := l.lookupAll(todo); err != nil {
		return err
	}
	for _, p := range todo {
		for _, i := range p.users {
			l.results[i] = p.rows
		}
		if l.cache != nil && (len(p.rows) > 0 || l.cache.cfg.CacheMissingKey) {
			l.cache.put(p.key, p.rows, now)
		}
	}
	for i := range rows {
		if err := l.emit(&rows[i], l.results[i], out); err != nil {
			return err
		}
		l.results[i] = nil
	}
	return nil
}

// lookupAll runs the lookups of todo, at most Concurrency at once, each
// retried up to MaxRetries times.
func (l *lookupJoin) lookupAll(todo []*pending) error {
	if len(todo) == 0 {
		return nil
	}
	n := max(l.spec.Concurrency, 1)
	if len(todo) == 1 || n == 1 {
		for _, p := range todo {
			l.lookupOne(p)
			if p.err != nil {
				return p.err
			}
		}
		return nil
	}
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	for _, p := range todo {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			l.lookupOne(p)
		}()
	}
	wg.Wait()
	for _, p := range todo {
		if p.err != nil {
			return p.err
		}
	}
	return nil
}

// lookupOne looks p's key up, retrying a failure (MaxRetries) and a miss
// (MissRetries).
func (l *lookupJoin) lookupOne(p *pending) {
	misses := 0
	for attempt := 0; ; attempt++ {
		ctx, cancel := l.ctx, context.CancelFunc(func() {})
		if l.spec.Timeout > 0 {
			ctx, cancel = context.WithTimeout(l.ctx, l.spec.Timeout)
		}
		rows, err := l.fn(ctx, p.vals, nil)
		cancel()
		if err == nil && len(rows) == 0 && misses < l.spec.MissRetries {
			misses++
			attempt = -1 // a failure after a miss starts its retries afresh
			select {
			case <-l.ctx.Done():
				p.err = fmt.Errorf("lookup join of %s: looking up %v: %w", l.spec.Table, p.vals, l.ctx.Err())
				return
			case <-time.After(l.spec.MissDelay):
			}
			continue
		}
		if err == nil {
			p.rows = rows
			return
		}
		if attempt >= l.spec.MaxRetries || l.ctx.Err() != nil {
			p.err = fmt.Errorf("lookup join of %s: looking up %v (after %d retries): %w", l.spec.Table, p.vals, attempt, err)
			return
		}
		select {
		case <-l.ctx.Done():
		case <-time.After(time.Duration(attempt+1) * l.backoff()):
		}
	}
}

func (l *lookupJoin) backoff() time.Duration {
	if l.spec.Backoff > 0 {
		return l.spec.Backoff
	}
	return time.Second
}

// emit emits in joined with each of its looked-up rows that pass the
// condition, with in's kind; with none, in padded (LEFT) or nothing.
func (l *lookupJoin) emit(in *types.Row, found []types.Row, out *stream.Output) error {
	matched := false
	for _, r := range found {
		if l.cond != nil {
			l.joined = append(append(l.joined[:0], in.Fields...), r.Fields...)
			ok, err := l.cond(l.joined)
			if err != nil {
				return fmt.Errorf("lookup join of %s: %w", l.spec.Table, err)
			}
			if !ok {
				continue
			}
		}
		matched = true
		l.output(out, in, r.Fields)
	}
	if !matched && l.spec.Left {
		l.output(out, in, nil)
	}
	return nil
}

func (l *lookupJoin) output(out *stream.Output, in *types.Row, right []types.Value) {
	w := len(in.Fields) + l.spec.Width
	if len(l.slab) < w {
		l.slab = make([]types.Value, w*max(4096/(w*24), 1))
	}
	f := l.slab[:w:w]
	l.slab = l.slab[w:]
	copy(f, in.Fields)
	copy(f[len(in.Fields):], right)
	out.Emit(types.Row{Kind: in.Kind, Fields: f})
}

// cache is an LRU cache of looked-up keys with expiry, as Flink's
// DefaultLookupCache: a key's rows count against MaxRows (a missing key
// as one).
type cache struct {
	cfg   Cache
	lru   *list.List // of *entry, most recently used first
	byKey map[string]*list.Element
	rows  int64
}

type entry struct {
	key            string
	rows           []types.Row
	written, reads int64 // milliseconds: when looked up, last used
}

func newCache(cfg Cache) *cache {
	return &cache{cfg: cfg, lru: list.New(), byKey: map[string]*list.Element{}}
}

func (c *cache) get(key []byte, now int64) ([]types.Row, bool) {
	el, ok := c.byKey[string(key)]
	if !ok {
		return nil, false
	}
	e := el.Value.(*entry)
	if c.expired(e, now) {
		c.remove(el)
		return nil, false
	}
	e.reads = now
	c.lru.MoveToFront(el)
	return e.rows, true
}

func (c *cache) expired(e *entry, now int64) bool {
	return c.cfg.ExpireAfterWrite > 0 && now-e.written >= c.cfg.ExpireAfterWrite.Milliseconds() ||
		c.cfg.ExpireAfterAccess > 0 && now-e.reads >= c.cfg.ExpireAfterAccess.Milliseconds()
}

func (c *cache) put(key string, rows []types.Row, now int64) {
	if el, ok := c.byKey[key]; ok {
		c.remove(el)
	}
	e := &entry{key: key, rows: rows, written: now, reads: now}
	c.byKey[key] = c.lru.PushFront(e)
	c.rows += weight(rows)
	for c.cfg.MaxRows > 0 && c.rows > c.cfg.MaxRows && c.lru.Len() > 1 {
		c.remove(c.lru.Back())
	}
	// Expired keys no row asks for again go too: the least recently used
	// are at the back.
	for n := 0; n < 8 && c.lru.Len() > 1; n++ {
		back := c.lru.Back()
		if !c.expired(back.Value.(*entry), now) {
			break
		}
		c.remove(back)
	}
}

func (c *cache) remove(el *list.Element) {
	e := el.Value.(*entry)
	c.lru.Remove(el)
	delete(c.byKey, e.key)
	c.rows -= weight(e.rows)
}

// weight is what a key's rows count against MaxRows: a missing key counts
// as one.
func weight(rows []types.Row) int64 { return max(int64(len(rows)), 1) }
