// Package datagen is the datagen connector: a source of generated rows,
// configured with Flink's options plus a seed that makes runs reproducible.
// Importing the package registers it in factory.Default as 'datagen'.
//
//	CREATE TABLE orders (
//	  id     BIGINT,
//	  amount DECIMAL(10, 2),
//	  note   VARCHAR(20)
//	) WITH (
//	  'connector'            = 'datagen',
//	  'number-of-rows'       = '1000',
//	  'fields.id.kind'       = 'sequence',
//	  'fields.id.start'      = '1',
//	  'fields.id.end'        = '1000',
//	  'fields.amount.min'    = '0',
//	  'fields.amount.max'    = '500',
//	  'fields.note.null-rate' = '0.1'
//	)
//
// # Options
//
//   - rows-per-second (Long, default 10000): the emit rate of all readers
//     together; 0 emits as fast as possible (Flink rejects 0).
//   - number-of-rows (Long, default none): the total number of rows; the
//     source is bounded when it is set.
//   - scan.parallelism (Integer, default 1): the number of splits.
//   - seed (Long, default 0; not a Flink option): the seed of random values.
//
// Per column, 'fields.<column>.<key>', where column is a physical column of
// the table and key one of:
//
//   - kind: random (the default) or sequence.
//   - min, max (random numeric columns): the bounds, inclusive; by default
//     the type's range. In the column's type: integers for integer columns.
//   - max-past (random DATE, TIMESTAMP and TIMESTAMP_LTZ columns, a
//     duration, default 0): values lie between now minus max-past and now.
//   - length (random VARCHAR, STRING, VARBINARY, BYTES, ARRAY, MAP and
//     MULTISET columns): the length of strings and bytes (default 100,
//     capped by the declared length) or the size of collections (default
//     3). CHAR and BINARY always have their declared length.
//   - var-len (random VARCHAR, STRING, VARBINARY and BYTES columns,
//     default false): lengths vary from 1 to length.
//   - start, end (sequence columns, both required): the sequence's first
//     and last value, inclusive, as integers; sequences are supported for
//     integer, DECIMAL, FLOAT, DOUBLE and string columns.
//   - null-rate (0 to 1, default 0): the proportion of NULLs.
//
// A key that names no column or no known sub-key is reported with the
// nearest valid key; a key that does not suit the column's type or kind
// (min on a string, start on a random column), an unparsable value and a
// sequence without start or end are reported with the factory's typed
// errors (see package factory).
//
// # Rows and checkpoints
//
// Rows are numbered globally 0, 1, 2, ...; with parallelism P, split i
// produces the rows i, i+P, i+2P, ... . Every value of row n is a function
// of the seed, the field and n alone, so a restarted job that resumes from a
// checkpoint's position (the next row number of each split) produces exactly
// the rows it would have produced without the restart — except for
// timestamps and dates, which are drawn relative to the current time.
// Sequence fields give row n the value start+n; the source ends after
// number-of-rows rows, or when a sequence field passes its end, whichever
// comes first.
package datagen

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/types"
)

// Kind is how a field's values are generated.
type Kind uint8

// The field kinds of Flink's fields.#.kind.
const (
	Random Kind = iota
	Sequence
)

// Config is the validated configuration of a datagen source.
type Config struct {
	// RowsPerSecond is rows-per-second, for all readers together
	// (Flink's default 10000). Zero or less means as fast as possible.
	RowsPerSecond float64
	// NumberOfRows is number-of-rows; negative means unbounded.
	NumberOfRows int64
	// Parallelism is the number of splits (scan.parallelism; default 1).
	Parallelism int
	// Seed seeds the random values.
	Seed int64
	// Fields configures each physical column, in order.
	Fields []Field
}

// Field configures one column.
type Field struct {
	Name string
	Type types.Type
	Kind Kind
	// Min and Max bound random numbers (and are ignored otherwise); unset
	// (HasMin/HasMax false) means the type's range.
	Min, Max       float64
	HasMin, HasMax bool
	// MaxPast bounds how far in the past random dates and timestamps lie.
	MaxPast time.Duration
	// Length is the length of random strings, bytes and collections
	// (default 100 strings/bytes, 3 collections).
	Length int
	// VarLen makes random strings and bytes of length 1..Length.
	VarLen bool
	// Start and End bound a sequence (inclusive).
	Start, End int64
	// NullRate is the probability of NULL, 0..1.
	NullRate float64
}

// ErrConfig is wrapped by configuration errors.
var ErrConfig = errors.New("invalid datagen configuration")

// Validate checks cfg and fills defaults.
func (cfg *Config) Validate() error {
	if cfg.Parallelism <= 0 {
		cfg.Parallelism = 1
	}
	for i := range cfg.Fields {
		f := &cfg.Fields[i]
		if f.NullRate < 0 || f.NullRate > 1 {
			return fmt.Errorf("%w: fields.%s.null-rate must be between 0 and 1, not %v", ErrConfig, f.Name, f.NullRate)
		}
		if f.Length == 0 {
			switch f.Type.Kind {
			case types.KindArray, types.KindMap, types.KindMultiset:
				f.Length = 3
			default:
				f.Length = 100
			}
		}
		if f.Length < 0 {
			return fmt.Errorf("%w: fields.%s.length must not be negative", ErrConfig, f.Name)
		}
		if f.Kind == Sequence {
			switch {
			case f.Type.IsInteger(), f.Type.Kind == types.KindDecimal, f.Type.Kind == types.KindFloat,
				f.Type.Kind == types.KindDouble, f.Type.IsString():
			default:
				return fmt.Errorf("%w: fields.%s.kind 'sequence' is not supported for type %s (supported: integer, decimal, float, double and string types)", ErrConfig, f.Name, f.Type)
			}
			if f.End < f.Start {
				return fmt.Errorf("%w: fields.%s.end (%d) is below fields.%s.start (%d)", ErrConfig, f.Name, f.End, f.Name, f.Start)
			}
		}
		if f.HasMin && f.HasMax && f.Max < f.Min {
			return fmt.Errorf("%w: fields.%s.max (%v) is below fields.%s.min (%v)", ErrConfig, f.Name, f.Max, f.Name, f.Min)
		}
	}
	return nil
}

// Source generates rows. It implements connector.Source.
type Source struct {
	cfg   Config
	total int64 // rows in all, or -1
}

// Source is a connector.Source (checked by the compiler).
var _ connector.Source = (*Source)(nil)

// New returns a datagen source for a validated config.
func New(cfg Config) (*Source, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	total := cfg.NumberOfRows
	for _, f := range cfg.Fields {
		if f.Kind == Sequence {
			n := f.End - f.Start + 1
			if total < 0 || n < total {
				total = n
			}
		}
	}
	return &Source{cfg: cfg, total: total}, nil
}

// Bounded reports whether the source ends: with number-of-rows or a
// sequence field.
func (s *Source) Bounded() bool { return s.total >= 0 }

// Splits returns one split per configured parallelism.
func (s *Source) Splits(context.Context) ([]connector.Split, error) {
	out := make([]connector.Split, s.cfg.Parallelism)
	for i := range out {
		out[i] = connector.Split{ID: "datagen-" + strconv.Itoa(i) + "-of-" + strconv.Itoa(s.cfg.Parallelism)}
	}
	return out, nil
}

// Open returns a reader of the given splits; a split's state is the next
// row number it produces (8 bytes, big endian).
func (s *Source) Open(_ context.Context, _ connector.TaskInfo, splits []connector.SplitState) (connector.Reader, error) {
	r := &reader{src: s, start: time.Now()}
	for _, sp := range splits {
		idx, err := splitIndex(sp.ID, s.cfg.Parallelism)
		if err != nil {
			return nil, err
		}
		next := int64(idx)
		if sp.State != nil {
			if len(sp.State) != 8 {
				return nil, fmt.Errorf("datagen: split %s: checkpoint state has %d bytes, want 8", sp.ID, len(sp.State))
			}
			next = int64(binary.BigEndian.Uint64(sp.State))
		}
		r.splits = append(r.splits, &splitPos{id: sp.ID, next: next})
	}
	if len(splits) > 0 {
		r.rate = s.cfg.RowsPerSecond * float64(len(splits)) / float64(s.cfg.Parallelism)
	}
	return r, nil
}

func splitIndex(id string, parallelism int) (int, error) {
	var idx, of int
	if _, err := fmt.Sscanf(id, "datagen-%d-of-%d", &idx, &of); err != nil || of != parallelism || idx < 0 || idx >= of {
		return 0, fmt.Errorf("datagen: split %q does not belong to a source of parallelism %d (the checkpoint was taken with other options)", id, parallelism)
	}
	return idx, nil
}

type splitPos struct {
	id   string
	next int64 // next row number
}

type reader struct {
	src     *Source
	splits  []*splitPos
	rate    float64 // rows per second for this reader
	start   time.Time
	emitted int64
	turn    int
}

// reader is a connector.Reader (checked by the compiler).
var _ connector.Reader = (*reader)(nil)

// batchRows is the most rows one Read returns.
const batchRows = 512

// Read returns the rows that are due at the configured rate.
func (r *reader) Read(ctx context.Context) ([]types.Row, error) {
	want := int64(batchRows)
	if r.rate > 0 {
		for {
			due := int64(time.Since(r.start).Seconds()*r.rate) + 1 - r.emitted
			if due > 0 {
				want = min(want, due)
				break
			}
			wait := time.Duration(float64(time.Second) / r.rate)
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			case <-t.C:
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rows := make([]types.Row, 0, want)
	// One allocation for the fields of the whole batch; rows slice it.
	nf := len(r.src.cfg.Fields)
	slab := make([]types.Value, int(want)*nf)
	p := int64(r.src.cfg.Parallelism)
	for int64(len(rows)) < want {
		live := false
		for range r.splits {
			sp := r.splits[r.turn%len(r.splits)]
			r.turn++
			if r.src.total >= 0 && sp.next >= r.src.total {
				continue
			}
			live = true
			i := len(rows)
			rows = append(rows, r.src.row(sp.next, slab[i*nf:(i+1)*nf:(i+1)*nf]))
			sp.next += p
			if int64(len(rows)) >= want {
				break
			}
		}
		if !live {
			break
		}
	}
	r.emitted += int64(len(rows))
	if len(rows) == 0 {
		return nil, io.EOF
	}
	return rows, nil
}

// Snapshot returns each split's next row number.
func (r *reader) Snapshot(int64) ([]connector.SplitState, error) {
	out := make([]connector.SplitState, len(r.splits))
	for i, sp := range r.splits {
		out[i] = connector.SplitState{ID: sp.id, State: binary.BigEndian.AppendUint64(nil, uint64(sp.next))}
	}
	return out, nil
}

func (r *reader) Close() error { return nil }

// row generates row number n into fields, which has one zero entry per
// field.
func (s *Source) row(n int64, fields []types.Value) types.Row {
	row := types.Row{Fields: fields}
	for i := range s.cfg.Fields {
		f := &s.cfg.Fields[i]
		rng := newRNG(uint64(s.cfg.Seed), uint64(n), uint64(i))
		if f.NullRate > 0 && rng.float() < f.NullRate {
			continue
		}
		if f.Kind == Sequence {
			row.Fields[i] = sequenceValue(f, f.Start+n)
			continue
		}
		row.Fields[i] = randomValue(&rng, f, f.Type)
	}
	return row
}

func sequenceValue(f *Field, v int64) types.Value {
	switch {
	case f.Type.Kind == types.KindDecimal:
		d, err := types.NewDecimal(v, 0).Rescale(f.Type.Precision, f.Type.Scale)
		if err != nil {
			return types.Value{}
		}
		return types.DecimalValue(d)
	case f.Type.Kind == types.KindFloat || f.Type.Kind == types.KindDouble:
		return types.Float64(float64(v))
	case f.Type.IsString():
		return types.Str(strconv.FormatInt(v, 10))
	}
	return types.Int64(v)
}

// rng is splitmix64 seeded by (seed, row, field): cheap, and the same
// inputs always give the same values.
type rng struct{ s uint64 }

func newRNG(seed, row, field uint64) rng {
	r := rng{s: seed ^ row*0x9E3779B97F4A7C15 ^ (field+1)*0xC2B2AE3D27D4EB4F}
	r.next()
	return r
}

func (r *rng) next() uint64 {
	r.s += 0x9E3779B97F4A7C15
	z := r.s
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// float returns a number in [0, 1).
func (r *rng) float() float64 { return float64(r.next()>>11) / (1 << 53) }

// intn returns a number in [lo, hi].
func (r *rng) intn(lo, hi int64) int64 {
	span := uint64(hi - lo)
	if span == math.MaxUint64 {
		return int64(r.next())
	}
	return lo + int64(r.next()%(span+1))
}

const alphanumeric = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

func randomValue(r *rng, f *Field, t types.Type) types.Value {
	switch t.Kind {
	case types.KindBoolean:
		return types.Bool(r.next()&1 == 1)
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
		lo, hi := t.Kind.IntRange()
		if f.HasMin {
			lo = max(lo, int64(f.Min))
		}
		if f.HasMax {
			hi = min(hi, int64(f.Max))
		}
		return types.Int64(r.intn(lo, hi))
	case types.KindFloat, types.KindDouble:
		lo, hi := -math.MaxFloat32, math.MaxFloat32
		if t.Kind == types.KindDouble {
			lo, hi = -math.MaxFloat64/2, math.MaxFloat64/2
		}
		if f.HasMin {
			lo = f.Min
		}
		if f.HasMax {
			hi = f.Max
		}
		v := lo + r.float()*(hi-lo)
		if t.Kind == types.KindFloat {
			v = float64(float32(v))
		}
		return types.Float64(v)
	case types.KindDecimal:
		lo, hi := -math.Pow10(t.Precision-t.Scale)+1, math.Pow10(t.Precision-t.Scale)-1
		if f.HasMin {
			lo = f.Min
		}
		if f.HasMax {
			hi = f.Max
		}
		v := lo + r.float()*(hi-lo)
		d, err := types.ParseDecimal(strconv.FormatFloat(v, 'f', t.Scale, 64))
		if err == nil {
			d, err = d.Rescale(t.Precision, t.Scale)
		}
		if err != nil {
			return types.Value{}
		}
		return types.DecimalValue(d)
	case types.KindChar, types.KindVarChar:
		n := fieldLength(r, f, t)
		b := make([]byte, n)
		for i := range b {
			b[i] = alphanumeric[r.next()%uint64(len(alphanumeric))]
		}
		return types.Str(string(b))
	case types.KindBinary, types.KindVarBinary:
		b := make([]byte, fieldLength(r, f, t))
		for i := range b {
			b[i] = byte(r.next())
		}
		return types.BytesValue(b)
	case types.KindDate:
		now := time.Now().UTC()
		past := time.Duration(r.intn(0, int64(f.MaxPast)))
		return types.DateValue(int32(now.Add(-past).Unix() / 86400))
	case types.KindTime:
		return types.TimeValue(r.intn(0, 86400*1e9-1) / pow10(9-t.Precision) * pow10(9-t.Precision))
	case types.KindTimestamp, types.KindTimestampLTZ:
		past := time.Duration(r.intn(0, int64(f.MaxPast)))
		at := time.Now().Add(-past)
		ts := types.TimestampFromTime(at)
		if t.Kind == types.KindTimestamp {
			ts = types.TimestampFromLocal(at.Local())
		}
		return types.TimestampValue(ts.Truncate(t.Precision))
	case types.KindArray:
		elems := make([]types.Value, f.Length)
		sub := Field{Length: 0}
		for i := range elems {
			elems[i] = randomValue(r, &sub, *t.Elem)
		}
		return types.List(elems)
	case types.KindMap, types.KindMultiset:
		m := &types.MapData{Keys: make([]types.Value, f.Length), Values: make([]types.Value, f.Length)}
		sub := Field{Length: 0}
		valType := types.Int()
		if t.Value != nil {
			valType = *t.Value
		}
		for i := range m.Keys {
			m.Keys[i] = randomValue(r, &sub, *t.Elem)
			if t.Kind == types.KindMultiset {
				m.Values[i] = types.Int64(r.intn(1, 3))
			} else {
				m.Values[i] = randomValue(r, &sub, valType)
			}
		}
		return types.MapValue(m)
	case types.KindRow:
		vals := make([]types.Value, len(t.Fields))
		sub := Field{}
		for i, ft := range t.Fields {
			vals[i] = randomValue(r, &sub, ft.Type)
		}
		return types.List(vals)
	}
	return types.Value{}
}

// fieldLength is the length of a random string or byte value: the field's
// length option, capped by the type's declared length, 1..length with var-len.
func fieldLength(r *rng, f *Field, t types.Type) int {
	n := f.Length
	if n == 0 {
		n = 100
	}
	if t.Length > 0 && t.Length < n {
		n = t.Length
	}
	if t.Kind == types.KindChar || t.Kind == types.KindBinary {
		return t.Length
	}
	if f.VarLen && n > 1 {
		n = int(r.intn(1, int64(n)))
	}
	return n
}

func pow10(n int) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}
