package jdbc

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/types"
)

// Sink writes rows to a database table: batched upserts and deletes by the
// PRIMARY KEY, or appends without one. NewSink returns a
// connector.TwoPhaseSink when the configuration asks for exactly-once.
type Sink struct {
	cfg  Config
	cols []string
	keys []int // indexes of the primary-key fields in cfg.Fields
}

// Sink is a connector.Sink (checked by the compiler).
var _ connector.Sink = (*Sink)(nil)

// TwoPhaseSink is the exactly-once Sink: each task writes one database
// transaction per checkpoint, prepares it at the checkpoint and the
// Committer commits it.
type TwoPhaseSink struct {
	*Sink
}

// TwoPhaseSink is a connector.TwoPhaseSink (checked by the compiler).
var _ connector.TwoPhaseSink = (*TwoPhaseSink)(nil)

// NewSink returns the sink of cfg: a *Sink, or a *TwoPhaseSink when
// cfg.ExactlyOnce.
func NewSink(cfg Config) (connector.Sink, error) {
	s := &Sink{cfg: cfg}
	for _, f := range cfg.Fields {
		s.cols = append(s.cols, f.Name)
	}
	for _, k := range cfg.PrimaryKey {
		i := slices.Index(s.cols, k)
		if i < 0 {
			return nil, fmt.Errorf("%w: PRIMARY KEY column %s of table %s is not a physical column", ErrConfig, k, cfg.Table)
		}
		s.keys = append(s.keys, i)
	}
	if cfg.ExactlyOnce {
		return &TwoPhaseSink{s}, nil
	}
	return s, nil
}

// connect opens a pool to the database and waits until it answers, for at
// most cfg.RetryTimeout.
func connect(ctx context.Context, cfg Config) (*sql.DB, error) {
	db, err := cfg.DB.Open(cfg.User, cfg.Password)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(cfg.RetryTimeout)
	for {
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err = db.PingContext(pctx)
		cancel()
		if err == nil {
			return db, nil
		}
		if ctx.Err() != nil || time.Now().After(deadline) || isPermanent(err) {
			db.Close()
			return nil, fmt.Errorf("jdbc: connecting to %s at %s as %q: %w", cfg.DB.Dialect.Product, cfg.DB.Addr(), cfg.User, err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// checkTable checks the target table's columns against the schema.
func (s *Sink) checkTable(ctx context.Context, db *sql.DB) error {
	have, err := s.cfg.DB.Dialect.TableColumns(ctx, db, s.cfg.TableName)
	if err != nil {
		return fmt.Errorf("jdbc: reading the columns of %s table %s: %w", s.cfg.DB.Dialect.Product, s.cfg.TableName, err)
	}
	if err := s.cfg.DB.Dialect.CheckColumns(s.cfg.TableName, s.cfg.Fields, have); err != nil {
		return fmt.Errorf("jdbc table %s: %w", s.cfg.Table, err)
	}
	return nil
}

// Open returns a writer for one sink task.
func (s *Sink) Open(ctx context.Context, task connector.TaskInfo) (connector.Writer, error) {
	return s.open(ctx, task, false)
}

// Open returns a writer for one sink task, which writes into prepared
// transactions.
func (s *TwoPhaseSink) Open(ctx context.Context, task connector.TaskInfo) (connector.Writer, error) {
	return s.open(ctx, task, true)
}

func (s *Sink) open(ctx context.Context, task connector.TaskInfo, eo bool) (*Writer, error) {
	db, err := connect(ctx, s.cfg)
	if err != nil {
		return nil, err
	}
	if err := s.checkTable(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	logger := task.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	w := &Writer{s: s, db: db, eo: eo, task: task, logger: logger, base: task.RestoredCheckpoint,
		prefix: GIDPrefix(task.Job, s.cfg.Table)}
	if s.cfg.Interval > 0 {
		// Timed flushes end with the writer's context (Open's, which ends
		// with the run) or at Close.
		tctx, cancel := context.WithCancel(ctx)
		w.stop = cancel
		w.wg.Add(1)
		go w.timedFlushes(tctx)
	}
	return w, nil
}

// Writer writes the rows of one sink task. It buffers rows and flushes them
// as batched statements when sink.buffer-flush.max-rows are buffered, every
// sink.buffer-flush.interval and at every checkpoint.
type Writer struct {
	s      *Sink
	db     *sql.DB
	eo     bool
	task   connector.TaskInfo
	logger *slog.Logger
	prefix string

	stop context.CancelFunc
	wg   sync.WaitGroup

	mu  sync.Mutex
	buf []types.Row
	err error // a failed timed flush, returned by the next Write or PreCommit
	// The exactly-once transaction: its connection and id, and the id of
	// the checkpoint after which it began.
	conn   *sql.Conn
	gid    string
	base   int64
	connID int64 // MySQL: the session's CONNECTION_ID()
	// PostgreSQL, exactly-once: the keys the open transaction upserted,
	// and those of the writer's prepared transactions that may not be
	// committed yet (see settle).
	upserted map[string]struct{}
	prepared []preparedKeys
}

// preparedKeys are the keys a prepared transaction upserted.
type preparedKeys struct {
	gid  string
	keys map[string]struct{}
}

// Writer is a connector.Writer (checked by the compiler).
var _ connector.Writer = (*Writer)(nil)

// Committable is what an exactly-once writer returns at a checkpoint: the
// id of its prepared transaction.
type Committable struct {
	// GID is the prepared transaction's id: the sink's prefix, the task
	// and the checkpoint (PostgreSQL) or the checkpoint after which the
	// transaction began (MySQL, whose XA id is chosen at XA START).
	GID string `json:"gid"`
	// Checkpoint is the checkpoint at which it was prepared.
	Checkpoint int64 `json:"checkpoint"`
}

func (w *Writer) timedFlushes(ctx context.Context) {
	defer w.wg.Done()
	t := time.NewTicker(w.s.cfg.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			w.mu.Lock()
			if w.err == nil && len(w.buf) > 0 {
				w.err = w.flush(ctx)
			}
			w.mu.Unlock()
		}
	}
}

// Write buffers rows and flushes when the buffer is full.
func (w *Writer) Write(ctx context.Context, rows []types.Row) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	w.buf = append(w.buf, rows...)
	if max := w.s.cfg.MaxRows; max > 0 && len(w.buf) >= max {
		w.err = w.flush(ctx)
	}
	return w.err
}

// PreCommit flushes the buffer; an exactly-once writer then prepares its
// transaction and returns its id.
func (w *Writer) PreCommit(ctx context.Context, checkpointID int64) ([]connector.Committable, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return nil, w.err
	}
	if err := w.flush(ctx); err != nil {
		w.err = err
		return nil, err
	}
	if !w.eo || w.conn == nil {
		return nil, nil
	}
	d := w.s.cfg.DB.Dialect
	var stmts []string
	if d == postgres {
		w.gid = fmt.Sprintf("%s-%d-%d", w.prefix, w.task.Index, checkpointID)
		stmts = []string{"PREPARE TRANSACTION '" + w.gid + "'"}
	} else {
		stmts = []string{"XA END '" + w.gid + "'", "XA PREPARE '" + w.gid + "'"}
	}
	for _, q := range stmts {
		if _, err := w.conn.ExecContext(ctx, q); err != nil {
			w.err = fmt.Errorf("jdbc table %s: preparing transaction %s for checkpoint %d: %w", w.s.cfg.Table, w.gid, checkpointID, err)
			return nil, w.err
		}
	}
	c, err := json.Marshal(Committable{GID: w.gid, Checkpoint: checkpointID})
	if err != nil {
		return nil, err
	}
	connID, gid := w.connID, w.gid
	if d == postgres && len(w.upserted) > 0 {
		w.prepared = append(w.prepared, preparedKeys{gid: gid, keys: w.upserted})
		w.upserted = nil
		if limit := max(w.task.MaxUncommitted, 8); len(w.prepared) > limit {
			if err := w.dropSettled(ctx); err != nil {
				w.err = err
				return nil, err
			}
		}
	}
	w.releaseConn(d != postgres)
	if d != postgres {
		if err := w.awaitDetached(ctx, connID, gid); err != nil {
			w.err = err
			return nil, err
		}
	}
	w.base = checkpointID
	return []connector.Committable{c}, nil
}

// releaseConn gives the transaction's connection back. A MySQL session
// that prepared an XA transaction can do nothing else until it ends, so it
// is closed instead (the prepared transaction outlives it).
func (w *Writer) releaseConn(discard bool) {
	if w.conn == nil {
		return
	}
	if discard {
		_ = w.conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	_ = w.conn.Close()
	w.conn, w.gid = nil, ""
}

// awaitDetached waits until the MySQL session connID is gone. A prepared
// XA transaction can be committed by another session only once the session
// that prepared it has ended (before that, XA COMMIT says XAER_NOTA), and
// the server ends a session a moment after its client closed it.
func (w *Writer) awaitDetached(ctx context.Context, connID int64, gid string) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		err := w.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.processlist WHERE id = ?", connID).Scan(&n)
		if err == nil && n == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("jdbc table %s: the session %d that prepared transaction %s did not end within 30s (last error: %v)",
				w.s.cfg.Table, connID, gid, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// begin starts the exactly-once transaction if none is open.
func (w *Writer) begin(ctx context.Context) error {
	if w.conn != nil {
		return nil
	}
	conn, err := w.db.Conn(ctx)
	if err != nil {
		return err
	}
	q := "BEGIN"
	gid := ""
	if w.s.cfg.DB.Dialect != postgres {
		gid = fmt.Sprintf("%s-%d-b%d", w.prefix, w.task.Index, w.base)
		q = "XA START '" + gid + "'"
		if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&w.connID); err != nil {
			conn.Close()
			return fmt.Errorf("reading the session's id: %w", err)
		}
	}
	if _, err := conn.ExecContext(ctx, q); err != nil {
		conn.Close()
		return fmt.Errorf("starting a transaction: %w", err)
	}
	w.conn, w.gid = conn, gid
	return nil
}

// execer is what statements run on: a connection or a transaction.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// flush writes the buffer: into the open transaction (exactly-once), or
// in a transaction of its own, retried up to sink.max-retries times.
func (w *Writer) flush(ctx context.Context) error {
	if len(w.buf) == 0 {
		return nil
	}
	ups, dels, upKeys, delKeys, err := w.batch()
	if err != nil {
		return err
	}
	if w.eo {
		if err := w.begin(ctx); err != nil {
			return fmt.Errorf("jdbc table %s: %w", w.s.cfg.Table, err)
		}
		pg := w.s.cfg.DB.Dialect == postgres
		if pg && len(dels) > 0 {
			if err := w.settle(ctx, delKeys); err != nil {
				return err
			}
		}
		if err := w.exec(ctx, w.conn, ups, dels); err != nil {
			return fmt.Errorf("jdbc table %s: writing %d rows: %w", w.s.cfg.Table, len(w.buf), err)
		}
		if pg {
			if w.upserted == nil {
				w.upserted = make(map[string]struct{}, len(upKeys))
			}
			for _, k := range upKeys {
				w.upserted[k] = struct{}{}
			}
		}
		w.buf = w.buf[:0]
		return nil
	}
	for attempt := 0; ; attempt++ {
		err = w.flushOnce(ctx, ups, dels)
		if err == nil {
			w.buf = w.buf[:0]
			return nil
		}
		if attempt >= w.s.cfg.MaxRetries || isPermanent(err) || ctx.Err() != nil {
			return fmt.Errorf("jdbc table %s: writing %d rows (attempt %d): %w", w.s.cfg.Table, len(w.buf), attempt+1, err)
		}
		w.logger.Warn("jdbc flush failed; retrying", "table", w.s.cfg.Table, "attempt", attempt+1, "error", err)
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(attempt+1) * time.Second):
		}
	}
}

func (w *Writer) flushOnce(ctx context.Context, ups, dels []types.Row) error {
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := w.exec(ctx, tx, ups, dels); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// batch splits the buffer into rows to insert (or upsert) and rows to
// delete, with their keys (with a primary key). With a primary key only
// the last change of each key counts, and UPDATE_BEFORE rows are dropped
// (the UPDATE_AFTER row that follows overwrites the row); without one
// every row must be an insert.
func (w *Writer) batch() (ups, dels []types.Row, upKeys, delKeys []string, err error) {
	if len(w.s.keys) == 0 {
		for _, r := range w.buf {
			switch r.Kind {
			case types.Insert, types.UpdateAfter:
				ups = append(ups, r)
			default:
				return nil, nil, nil, nil, fmt.Errorf("jdbc table %s: a %s row cannot be applied to a table without PRIMARY KEY; declare the key of %s with PRIMARY KEY (...) NOT ENFORCED",
					w.s.cfg.Table, r.Kind, w.s.cfg.TableName)
			}
		}
		return ups, nil, nil, nil, nil
	}
	last := map[string]int{}
	var order []string
	var b strings.Builder
	for i, r := range w.buf {
		if r.Kind == types.UpdateBefore {
			continue
		}
		b.Reset()
		for _, k := range w.s.keys {
			fmt.Fprintf(&b, "%v\x00", r.Fields[k])
		}
		key := b.String()
		if _, seen := last[key]; !seen {
			order = append(order, key)
		}
		last[key] = i
	}
	for _, k := range order {
		r := w.buf[last[k]]
		if r.Kind == types.Delete {
			dels, delKeys = append(dels, r), append(delKeys, k)
		} else {
			ups, upKeys = append(ups, r), append(upKeys, k)
		}
	}
	return ups, dels, upKeys, delKeys, nil
}

// settle waits, before the open transaction deletes the keys delKeys,
// until the writer's prepared transactions that upserted any of them are
// committed (PostgreSQL). A DELETE does not see a row that a transaction
// still in progress inserted — a prepared transaction is in progress until
// COMMIT PREPARED — so it would delete nothing, and the row would
// reappear when that transaction commits: a GROUP BY's group that appears
// in one checkpoint and vanishes in the next would stay in the table. An
// upsert needs no wait: its conflict check waits for the inserting
// transaction itself, and MySQL's locking reads wait too. The transactions
// of checkpoints that completed are committed a moment after their
// completion, whatever this writer does, so the wait ends; it is logged
// when it lasts.
func (w *Writer) settle(ctx context.Context, delKeys []string) error {
	var gids []string
	for _, p := range w.prepared {
		for _, k := range delKeys {
			if _, ok := p.keys[k]; ok {
				gids = append(gids, p.gid)
				break
			}
		}
	}
	if len(gids) == 0 {
		return nil
	}
	start, warned := time.Now(), time.Duration(0)
	for backoff := 2 * time.Millisecond; ; backoff = min(backoff*2, 100*time.Millisecond) {
		open, err := w.stillPrepared(ctx, gids)
		if err != nil {
			return err
		}
		if len(open) == 0 {
			return w.dropSettled(ctx)
		}
		if waited := time.Since(start); waited-warned > 30*time.Second {
			warned = waited
			w.logger.Warn("jdbc exactly-once: deleting rows that a prepared transaction inserted waits for its commit", "table", w.s.cfg.Table,
				"transactions", open, "waited", waited.Round(time.Second))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
	}
}

// stillPrepared returns those of gids that are still prepared.
func (w *Writer) stillPrepared(ctx context.Context, gids []string) ([]string, error) {
	rows, err := w.db.QueryContext(ctx, "SELECT gid FROM pg_prepared_xacts WHERE database = current_database() AND gid = ANY($1)", gids)
	if err != nil {
		return nil, fmt.Errorf("jdbc table %s: listing prepared transactions: %w", w.s.cfg.Table, err)
	}
	defer rows.Close()
	var open []string
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			return nil, fmt.Errorf("jdbc table %s: listing prepared transactions: %w", w.s.cfg.Table, err)
		}
		open = append(open, g)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("jdbc table %s: listing prepared transactions: %w", w.s.cfg.Table, err)
	}
	return open, nil
}

// dropSettled forgets the keys of the writer's prepared transactions that
// are committed (or rolled back) by now.
func (w *Writer) dropSettled(ctx context.Context) error {
	gids := make([]string, len(w.prepared))
	for i, p := range w.prepared {
		gids[i] = p.gid
	}
	open, err := w.stillPrepared(ctx, gids)
	if err != nil {
		return err
	}
	w.prepared = slices.DeleteFunc(w.prepared, func(p preparedKeys) bool { return !slices.Contains(open, p.gid) })
	return nil
}

// exec runs batched INSERT (upsert) and DELETE statements for the rows.
func (w *Writer) exec(ctx context.Context, e execer, ups, dels []types.Row) error {
	d := w.s.cfg.DB.Dialect
	var keyNames []string
	var keyTypes, colTypes []types.Type
	for _, k := range w.s.keys {
		keyNames = append(keyNames, w.s.cols[k])
		keyTypes = append(keyTypes, w.s.cfg.Fields[k].Type)
	}
	for _, f := range w.s.cfg.Fields {
		colTypes = append(colTypes, f.Type)
	}
	per := min(maxParams/len(w.s.cols), 1000)
	for len(ups) > 0 {
		n := min(per, len(ups))
		args := make([]any, 0, n*len(w.s.cols))
		for _, r := range ups[:n] {
			for i, f := range w.s.cfg.Fields {
				a, err := arg(d, f.Type, r.Fields[i])
				if err != nil {
					return fmt.Errorf("column %s: %w", f.Name, err)
				}
				args = append(args, a)
			}
		}
		if _, err := e.ExecContext(ctx, d.insertSQL(w.s.cfg.TableName, w.s.cols, keyNames, colTypes, n), args...); err != nil {
			return err
		}
		ups = ups[n:]
	}
	per = min(maxParams/max(len(keyNames), 1), 1000)
	for len(dels) > 0 {
		n := min(per, len(dels))
		args := make([]any, 0, n*len(keyNames))
		for _, r := range dels[:n] {
			for _, k := range w.s.keys {
				a, err := arg(d, w.s.cfg.Fields[k].Type, r.Fields[k])
				if err != nil {
					return fmt.Errorf("column %s: %w", w.s.cols[k], err)
				}
				args = append(args, a)
			}
		}
		if _, err := e.ExecContext(ctx, d.deleteSQL(w.s.cfg.TableName, keyNames, keyTypes, n), args...); err != nil {
			return err
		}
		dels = dels[n:]
	}
	return nil
}

// Close stops timed flushes, rolls back an open (not prepared) transaction
// and closes the connections. Buffered rows are discarded.
func (w *Writer) Close() error {
	if w.stop != nil {
		w.stop()
		w.wg.Wait()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if w.s.cfg.DB.Dialect == postgres {
			_, _ = w.conn.ExecContext(ctx, "ROLLBACK")
		} else {
			_, _ = w.conn.ExecContext(ctx, "XA END '"+w.gid+"'")
			_, _ = w.conn.ExecContext(ctx, "XA ROLLBACK '"+w.gid+"'")
		}
		cancel()
		w.releaseConn(true)
	}
	w.buf = nil
	return w.db.Close()
}

// Committer returns the committer of the sink's prepared transactions,
// after checking that the database accepts them.
func (s *TwoPhaseSink) Committer(ctx context.Context, job string) (connector.Committer, error) {
	db, err := connect(ctx, s.cfg)
	if err != nil {
		return nil, err
	}
	if s.cfg.DB.Dialect == postgres {
		var n int
		if err := db.QueryRowContext(ctx, "SELECT current_setting('max_prepared_transactions')::int").Scan(&n); err != nil {
			db.Close()
			return nil, fmt.Errorf("jdbc table %s: reading max_prepared_transactions: %w", s.cfg.Table, err)
		}
		if n == 0 {
			db.Close()
			return nil, fmt.Errorf("jdbc table %s: %w: PostgreSQL at %s has max_prepared_transactions = 0, so it refuses PREPARE TRANSACTION; set max_prepared_transactions to at least the sink's parallelism times 2 in postgresql.conf and restart the server, or set 'sink.delivery-guarantee' = 'at-least-once'",
				s.cfg.Table, ErrNoPreparedTransactions, s.cfg.DB.Addr())
		}
	}
	return &Committer{cfg: s.cfg, db: db, prefix: GIDPrefix(job, s.cfg.Table)}, nil
}

// ErrNoPreparedTransactions is wrapped by the error of an exactly-once sink
// whose database does not accept prepared transactions.
var ErrNoPreparedTransactions = errors.New("prepared transactions are disabled")

// Committer commits and rolls back the prepared transactions of one sink.
type Committer struct {
	cfg    Config
	db     *sql.DB
	prefix string
}

// Committer is a connector.Committer (checked by the compiler).
var _ connector.Committer = (*Committer)(nil)

func decode(c connector.Committable) (Committable, error) {
	var out Committable
	if err := json.Unmarshal(c, &out); err != nil || out.GID == "" {
		return out, fmt.Errorf("jdbc: a committable that is not a jdbc prepared transaction: %q", c)
	}
	if strings.ContainsAny(out.GID, "'\\") {
		return out, fmt.Errorf("jdbc: bad prepared transaction id %q", out.GID)
	}
	return out, nil
}

// Commit commits a prepared transaction. A transaction the database does
// not know was committed before: this committer never rolls back a
// committable it was given, and the database keeps prepared transactions
// until they are committed or rolled back.
func (c *Committer) Commit(ctx context.Context, cm connector.Committable) error {
	x, err := decode(cm)
	if err != nil {
		return err
	}
	return c.end(ctx, x.GID, true)
}

// Abort rolls back a prepared transaction; an unknown one is not an error.
func (c *Committer) Abort(ctx context.Context, cm connector.Committable) error {
	x, err := decode(cm)
	if err != nil {
		return err
	}
	return c.end(ctx, x.GID, false)
}

func (c *Committer) end(ctx context.Context, gid string, commit bool) error {
	var q string
	switch {
	case c.cfg.DB.Dialect == postgres && commit:
		q = "COMMIT PREPARED '" + gid + "'"
	case c.cfg.DB.Dialect == postgres:
		q = "ROLLBACK PREPARED '" + gid + "'"
	case commit:
		q = "XA COMMIT '" + gid + "'"
	default:
		q = "XA ROLLBACK '" + gid + "'"
	}
	if _, err := c.db.ExecContext(ctx, q); err != nil && !isUnknownXact(err) {
		return fmt.Errorf("jdbc table %s: %s: %w", c.cfg.Table, q, err)
	}
	return nil
}

// Prepared lists the ids of the prepared transactions in the database
// whose ids start with prefix and a dash.
func Prepared(ctx context.Context, d *Dialect, db *sql.DB, prefix string) ([]string, error) {
	var out []string
	if d == postgres {
		rows, err := db.QueryContext(ctx, "SELECT gid FROM pg_prepared_xacts WHERE database = current_database() AND starts_with(gid, $1)", prefix+"-")
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		for rows.Next() {
			var g string
			if err := rows.Scan(&g); err != nil {
				return nil, err
			}
			out = append(out, g)
		}
		return out, rows.Err()
	}
	rows, err := db.QueryContext(ctx, "XA RECOVER")
	if err != nil {
		return nil, fmt.Errorf("XA RECOVER (the user needs the XA_RECOVER_ADMIN privilege): %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var format, glen, blen int64
		var data []byte
		if err := rows.Scan(&format, &glen, &blen, &data); err != nil {
			return nil, err
		}
		if blen == 0 && int(glen) == len(data) && strings.HasPrefix(string(data), prefix+"-") {
			out = append(out, string(data))
		}
	}
	return out, rows.Err()
}

// Recover commits the pending transactions, then rolls back every other
// prepared transaction of this job's sink (those whose ids have its
// prefix); prepared transactions of other jobs and sinks are left alone.
func (c *Committer) Recover(ctx context.Context, pending []connector.Committable) error {
	keep := map[string]bool{}
	for _, p := range pending {
		x, err := decode(p)
		if err != nil {
			return err
		}
		if err := c.end(ctx, x.GID, true); err != nil {
			return err
		}
		keep[x.GID] = true
	}
	gids, err := Prepared(ctx, c.cfg.DB.Dialect, c.db, c.prefix)
	if err != nil {
		return fmt.Errorf("jdbc table %s: listing prepared transactions: %w", c.cfg.Table, err)
	}
	for _, g := range gids {
		if keep[g] {
			continue
		}
		if err := c.end(ctx, g, false); err != nil {
			return err
		}
	}
	return nil
}

// Close closes the committer's connections.
func (c *Committer) Close() error { return c.db.Close() }
