package nexmark

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/types"
)

// Source generates Nexmark events as rows. It implements connector.Source.
type Source struct {
	model *Model
	cols  []column
	// need[t] says whether the strings the generator builds for events
	// of type t are read (builtStrings).
	need [3]bool
}

// builtStrings are, per event type, the fields of its ROW whose strings
// the generator builds for each event (the others are cut from shared
// text or tables): person's emailAddress and creditCard, auction's
// itemName and description.
var builtStrings = [3][]int{{2, 3}, {1, 2}, nil}

var (
	_ connector.Source      = (*Source)(nil)
	_ connector.Reader      = (*reader)(nil)
	_ connector.RowRecycler = (*reader)(nil)
)

// NewSource returns a source of cfg's events with the public connector's
// four columns (Schema), every one read.
func NewSource(cfg Config) (*Source, error) {
	cols := make([]column, len(Schema))
	for i := range cols {
		cols[i] = column{field: i, read: true}
	}
	return newSourceFor(cfg, cols)
}

func newSourceFor(cfg Config, cols []column) (*Source, error) {
	m, err := NewModel(cfg)
	if err != nil {
		return nil, err
	}
	s := &Source{model: m, cols: cols}
	for _, c := range cols {
		if c.field > 0 && c.read {
			// The event's strings are built when one of them is read.
			for _, j := range builtStrings[c.field-1] {
				s.need[c.field-1] = s.need[c.field-1] || c.rows.Reads(j)
			}
		}
	}
	return s, nil
}

// Bounded reports whether the source ends: with events.num or stop-at
// set, unless keep-alive.
func (s *Source) Bounded() bool {
	cfg := s.model.cfg
	return (cfg.NumEvents > 0 || cfg.StopAtEvent >= 0) && !cfg.KeepAlive
}

// Splits returns one split per generator.
func (s *Source) Splits(context.Context) ([]connector.Split, error) {
	n := s.model.cfg.Generators
	out := make([]connector.Split, n)
	for i := range out {
		out[i] = connector.Split{ID: splitID(i, n)}
	}
	return out, nil
}

func splitID(i, n int) string {
	return "nexmark-" + strconv.Itoa(i) + "-of-" + strconv.Itoa(n)
}

func splitIndex(id string, n int) (int, error) {
	var idx, of int
	if _, err := fmt.Sscanf(id, "nexmark-%d-of-%d", &idx, &of); err != nil || of != n || idx < 0 || idx >= of || splitID(idx, of) != id {
		return 0, fmt.Errorf("nexmark: split %q does not belong to a source of %d generators (the checkpoint was taken with another scan.parallelism)", id, n)
	}
	return idx, nil
}

// stateVersion is the first byte of a split's checkpoint state; the rest
// are the events produced, the random state and the base time, each 8
// bytes big endian.
const (
	stateVersion = 1
	stateLen     = 1 + 3*8
)

func encodeState(st GeneratorState) []byte {
	b := make([]byte, 0, stateLen)
	b = append(b, stateVersion)
	b = binary.BigEndian.AppendUint64(b, uint64(st.Count))
	b = binary.BigEndian.AppendUint64(b, st.Rand)
	return binary.BigEndian.AppendUint64(b, uint64(st.BaseTime))
}

func decodeState(b []byte) (GeneratorState, error) {
	if len(b) != stateLen || b[0] != stateVersion {
		return GeneratorState{}, fmt.Errorf("checkpoint state has %d bytes of version %d, want %d of version %d", len(b), firstByte(b), stateLen, stateVersion)
	}
	return GeneratorState{
		Count:    int64(binary.BigEndian.Uint64(b[1:])),
		Rand:     binary.BigEndian.Uint64(b[9:]),
		BaseTime: int64(binary.BigEndian.Uint64(b[17:])),
	}, nil
}

func firstByte(b []byte) int {
	if len(b) == 0 {
		return -1
	}
	return int(b[0])
}

// Open returns a reader of the given splits. A split's state is its
// generator's position (GeneratorState): a restored reader produces the
// same events, with the same values, as the run that took the checkpoint
// did after it.
func (s *Source) Open(_ context.Context, _ connector.TaskInfo, splits []connector.SplitState) (connector.Reader, error) {
	r := &reader{src: s}
	for _, sp := range splits {
		idx, err := splitIndex(sp.ID, s.model.cfg.Generators)
		if err != nil {
			return nil, err
		}
		g := s.model.NewGenerator(idx)
		if sp.State != nil {
			st, err := decodeState(sp.State)
			if err != nil {
				return nil, fmt.Errorf("nexmark: split %s: %w", sp.ID, err)
			}
			g.Restore(st)
		}
		for t := range s.need {
			g.Skip(EventType(t), !s.need[t])
		}
		r.splits = append(r.splits, &splitGen{id: sp.ID, gen: g})
	}
	cfg := s.model.cfg
	if !cfg.MaxEmitSpeed && len(splits) > 0 {
		r.rate = float64(cfg.FirstEventRate) * float64(len(splits)) / float64(cfg.Generators)
	}
	return r, nil
}

type splitGen struct {
	id  string
	gen *Generator
}

type reader struct {
	src    *Source
	splits []*splitGen
	turn   int
	ev     Event
	// rate is this reader's emit rate (events/s), 0 for as fast as
	// possible; start and emitted pace it.
	rate    float64
	start   time.Time
	emitted int64
	// free holds the slab and rows of a recycled batch; last is the slab
	// of the batch Read returned last.
	free     []types.Value
	freeRows []types.Row
	last     []types.Value
	// nested is the current chunk nested rows are cut from.
	nested []types.Value
}

// batchEvents is the most events one Read returns.
const batchEvents = 512

// nestedChunk is how many nested fields one allocation holds.
const nestedChunk = 4096

// Read returns the next events as rows: up to batchEvents, fewer when
// they are paced and not due yet.
func (r *reader) Read(ctx context.Context) ([]types.Row, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	want := int64(batchEvents)
	if r.rate > 0 {
		if r.start.IsZero() {
			r.start = time.Now()
		}
		for {
			due := int64(time.Since(r.start).Seconds()*r.rate) + 1 - r.emitted
			if due > 0 {
				want = min(want, due)
				break
			}
			t := time.NewTimer(time.Duration(float64(time.Second) / r.rate))
			select {
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			case <-t.C:
			}
		}
	}
	width := len(r.src.cols)
	slab, rows := r.batchMemory(int(want), width)
	n := 0
	for n < int(want) {
		live := false
		for range r.splits {
			sp := r.splits[r.turn%len(r.splits)]
			r.turn++
			if !sp.gen.HasNext() {
				continue
			}
			live = true
			sp.gen.Next(&r.ev)
			rows = append(rows, r.row(slab[n*width:(n+1)*width:(n+1)*width]))
			n++
			if n >= int(want) {
				break
			}
		}
		if !live {
			break
		}
	}
	r.emitted += int64(n)
	if n == 0 {
		r.last = nil
		if r.src.model.cfg.KeepAlive {
			// Exhausted but kept alive, as the public connector does:
			// nothing more, until the job stops.
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return nil, io.EOF
	}
	return rows, nil
}

// batchMemory returns a slab of n*width cleared fields and an empty row
// slice of capacity n: the recycled batch's when there is one.
func (r *reader) batchMemory(n, width int) ([]types.Value, []types.Row) {
	var slab []types.Value
	if cap(r.free) >= n*width {
		slab = r.free[:n*width]
		clear(slab)
	} else {
		slab = make([]types.Value, n*width)
	}
	rows := r.freeRows[:0]
	if cap(rows) < n {
		rows = make([]types.Row, 0, n)
	}
	r.free, r.freeRows, r.last = nil, nil, slab
	return slab, rows
}

// Recycle implements connector.RowRecycler: the next batch reuses the
// rows and top-level fields of the last one. Nested rows are never
// reused (a projection passes them on as they are).
func (r *reader) Recycle(rows []types.Row) {
	slab := r.last
	r.last = nil
	if len(rows) == 0 || len(slab) == 0 || len(rows[0].Fields) == 0 || &rows[0].Fields[0] != &slab[0] {
		return
	}
	clear(rows)
	r.free, r.freeRows = slab, rows[:0]
}

// take returns n zero fields for a nested row.
func (r *reader) take(n int) []types.Value {
	if len(r.nested) < n {
		r.nested = make([]types.Value, nestedChunk)
	}
	out := r.nested[:n:n]
	r.nested = r.nested[n:]
	return out
}

func ts(ms int64) types.Value { return types.TimestampValue(types.Timestamp{Millis: ms}) }

// row builds the row of r.ev into fields.
func (r *reader) row(fields []types.Value) types.Row {
	e := &r.ev
	for i, c := range r.src.cols {
		if !c.read {
			continue
		}
		switch {
		case c.field == 0:
			fields[i] = types.Int64(int64(e.Type))
		case c.field-1 != int(e.Type):
			// NULL: the event is of another type.
		case e.Type == PersonEvent:
			p := &e.Person
			f := r.take(8)
			f[0] = types.Int64(p.ID)
			f[1] = types.Str(p.Name)
			f[2] = types.Str(p.EmailAddress)
			f[3] = types.Str(p.CreditCard)
			f[4] = types.Str(p.City)
			f[5] = types.Str(p.State)
			f[6] = ts(p.DateTime)
			f[7] = types.Str(p.Extra)
			fields[i] = types.List(f)
		case e.Type == AuctionEvent:
			a := &e.Auction
			f := r.take(10)
			f[0] = types.Int64(a.ID)
			f[1] = types.Str(a.ItemName)
			f[2] = types.Str(a.Description)
			f[3] = types.Int64(a.InitialBid)
			f[4] = types.Int64(a.Reserve)
			f[5] = ts(a.DateTime)
			f[6] = ts(a.Expires)
			f[7] = types.Int64(a.Seller)
			f[8] = types.Int64(a.Category)
			f[9] = types.Str(a.Extra)
			fields[i] = types.List(f)
		default:
			b := &e.Bid
			f := r.take(7)
			f[0] = types.Int64(b.Auction)
			f[1] = types.Int64(b.Bidder)
			f[2] = types.Int64(b.Price)
			f[3] = types.Str(b.Channel)
			f[4] = types.Str(b.URL)
			f[5] = ts(b.DateTime)
			f[6] = types.Str(b.Extra)
			fields[i] = types.List(f)
		}
		if c.rows != nil && !fields[i].IsNull() {
			// Read in part: the unread fields are NULL.
			f := fields[i].List()
			for j := range f {
				if !c.rows.Reads(j) {
					f[j] = types.Value{}
				}
			}
		}
	}
	return types.Row{Fields: fields}
}

// Snapshot returns each split's generator position.
func (r *reader) Snapshot(int64) ([]connector.SplitState, error) {
	out := make([]connector.SplitState, len(r.splits))
	for i, sp := range r.splits {
		out[i] = connector.SplitState{ID: sp.id, State: encodeState(sp.gen.State())}
	}
	return out, nil
}

func (r *reader) Close() error { return nil }

// Parallelism returns the number of generators: scan.parallelism, 1 by
// default.
func (s *Source) Parallelism() int { return s.model.cfg.Generators }
