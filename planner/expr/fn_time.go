package expr

import (
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"github.com/streamsql/streamsql/internal/javatime"
	"github.com/streamsql/streamsql/types"
)

// Temporal functions. TIMESTAMP values are wall-clock date-times;
// TIMESTAMP_LTZ values are instants shown in the session time zone.

const defaultTimeFormat = "yyyy-MM-dd HH:mm:ss"

func checkCurrentTimestamp(*Call) (types.Type, error) {
	return types.TimestampLTZ(3).NotNullable(), nil
}

func buildCurrentTimestamp(b *builder, c *Call, a []evalFn) (evalFn, error) {
	return func([]types.Value) (types.Value, error) {
		return types.TimestampValue(types.TimestampFromTime(b.now()).Truncate(3)), nil
	}, nil
}

func checkLocalTimestamp(*Call) (types.Type, error) { return types.TimestampType(3).NotNullable(), nil }

func buildLocalTimestamp(b *builder, c *Call, a []evalFn) (evalFn, error) {
	return func([]types.Value) (types.Value, error) {
		return types.TimestampValue(types.TimestampFromLocal(b.now().In(b.loc)).Truncate(3)), nil
	}, nil
}

func checkCurrentDate(*Call) (types.Type, error) { return types.Date().NotNullable(), nil }

func buildCurrentDate(b *builder, c *Call, a []evalFn) (evalFn, error) {
	return func([]types.Value) (types.Value, error) {
		t := b.now().In(b.loc)
		return types.DateValue(javatime.EpochDays(t.Year(), int(t.Month()), t.Day())), nil
	}, nil
}

func checkToTimestamp(c *Call) (types.Type, error) {
	if _, err := checkStrings(types.String())(c); err != nil {
		return types.Type{}, err
	}
	return types.TimestampType(3), nil
}

func checkFromUnixtime(c *Call) (types.Type, error) {
	if !is(c.Args[0].Type(), famNumeric) || c.Args[0].Type().Kind == types.KindDecimal ||
		(len(c.Args) == 2 && !is(c.Args[1].Type(), famString)) {
		return types.Type{}, errArgs
	}
	return types.String(), nil // always nullable in Flink
}

func checkUnixTimestamp(c *Call) (types.Type, error) {
	if _, err := checkStrings(types.String())(c); err != nil {
		return types.Type{}, err
	}
	return withNull(types.BigInt(), allNotNull(c)), nil
}

// civilOf returns the wall-clock time of a DATE, TIMESTAMP or
// TIMESTAMP_LTZ value (in the session zone for the last).
func (b *builder) civilOf(t types.Type) func(types.Value) time.Time {
	switch t.Kind {
	case types.KindDate:
		return func(v types.Value) time.Time { return time.Unix(int64(v.Date())*86400, 0).UTC() }
	case types.KindTimestampLTZ:
		loc := b.loc
		return func(v types.Value) time.Time { return javatime.ToLocal(v.Timestamp(), loc).Time() }
	}
	return func(v types.Value) time.Time { return v.Timestamp().Time() }
}

// fromCivil is the inverse of civilOf.
func (b *builder) fromCivil(t types.Type) func(time.Time) types.Value {
	switch t.Kind {
	case types.KindDate:
		return func(c time.Time) types.Value {
			return types.DateValue(javatime.EpochDays(c.Year(), int(c.Month()), c.Day()))
		}
	case types.KindTimestampLTZ:
		loc := b.loc
		return func(c time.Time) types.Value {
			return types.TimestampValue(javatime.FromLocal(types.TimestampFromTime(c), loc))
		}
	}
	return func(c time.Time) types.Value { return types.TimestampValue(types.TimestampFromTime(c)) }
}

// compileFormat compiles a Java date-time pattern; a bad pattern is an
// invalid argument.
func compileFormat(p string) (*javatime.Pattern, error) {
	f, err := javatime.Compile(p)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
	}
	return f, nil
}

// formatCache compiles a constant pattern once.
func (b *builder) format(c *Call, i int, args []evalFn, def string) (func(row []types.Value) (*javatime.Pattern, bool, error), error) {
	if i >= len(args) {
		f, err := compileFormat(def)
		if err != nil {
			return nil, err
		}
		return func([]types.Value) (*javatime.Pattern, bool, error) { return f, false, nil }, nil
	}
	if isConstant(c.Args[i]) {
		v, err := args[i](nil)
		if err != nil {
			return nil, err
		}
		if v.IsNull() {
			return func([]types.Value) (*javatime.Pattern, bool, error) { return nil, true, nil }, nil
		}
		f, err := compileFormat(v.Str())
		if err != nil {
			return nil, err
		}
		return func([]types.Value) (*javatime.Pattern, bool, error) { return f, false, nil }, nil
	}
	fn := args[i]
	return func(row []types.Value) (*javatime.Pattern, bool, error) {
		v, err := fn(row)
		if err != nil || v.IsNull() {
			return nil, true, err
		}
		f, err := compileFormat(v.Str())
		return f, false, err
	}, nil
}

func checkDateFormat(c *Call) (types.Type, error) {
	if !is(c.Args[0].Type(), famTimestamp, famString) || !is(c.Args[1].Type(), famString) {
		return types.Type{}, errArgs
	}
	return types.String(), nil // always nullable in Flink
}

// buildDateFormat formats a timestamp (or a string parsed as one) with a
// Java pattern; a string that does not parse gives NULL.
func buildDateFormat(b *builder, c *Call, a []evalFn) (evalFn, error) {
	t := c.Args[0].Type()
	fmtFn, err := b.format(c, 1, a, defaultTimeFormat)
	if err != nil {
		return nil, err
	}
	if fn := b.dateFormatTimestamp(c, a, fmtFn); fn != nil {
		return fn, nil
	}
	civ := b.civilOf(t)
	isStr := t.IsString()
	// The text of the last period of the pattern's span (a day for a
	// date-only pattern, a minute for 'HH:mm': javatime.Pattern.Span)
	// printed: the rows of a stream mostly share it (Nexmark q10 writes
	// DATE_FORMAT(dateTime, 'yyyy-MM-dd') and 'HH:mm', q17 groups by the
	// first), and formatting costs more than comparing. The compiled
	// expression may run in several tasks at once: the entry is immutable
	// and swapped atomically.
	var last atomic.Pointer[spanText]
	return func(row []types.Value) (types.Value, error) {
		v, err := a[0](row)
		if err != nil || v.IsNull() {
			return types.Value{}, err
		}
		f, null, err := fmtFn(row)
		if err != nil || null {
			return types.Value{}, err
		}
		if f.Zoned() {
			// Flink formats a LocalDateTime and fails on offset fields.
			return types.Value{}, fmt.Errorf("%w: DATE_FORMAT cannot print a time-zone offset (Z, X, x)", ErrInvalidArgument)
		}
		var ct time.Time
		if isStr {
			ts, ok := javatime.ParseSQLTimestamp(v.Str())
			if !ok {
				return types.Value{}, nil
			}
			ct = ts.Time()
		} else {
			ct = civ(v)
		}
		span := f.Span()
		if span == 0 {
			return types.Str(f.Format(ct)), nil
		}
		// The period of the wall clock ct shows: its seconds since the
		// epoch as if its zone were UTC, floored to the span.
		_, off := ct.Zone()
		wall := ct.Unix() + int64(off)
		k := wall / span
		if wall%span < 0 {
			k--
		}
		if e := last.Load(); e != nil && e.f == f && e.k == k {
			return types.Str(e.text), nil
		}
		e := &spanText{f: f, k: k, text: f.Format(ct)}
		last.Store(e)
		return types.Str(e.text), nil
	}, nil
}

// dateFormatTimestamp is buildDateFormat's evaluator, specialised for a
// TIMESTAMP (not LTZ) with a constant pattern that has a span and no
// offset field (q10's DATE_FORMAT(dateTime, 'HH:mm'), q17's 'yyyy-MM-dd'):
// the timestamp is read in place when it is a column or a ROW's field
// (also as the branch of a CASE the filter decides: q10's dateTime), the
// text written in place into a projection's output (setDst), and the
// period is computed from its milliseconds (its wall clock is
// UTC: Timestamp.Time), so that a row in the last period printed costs
// no time.Time and no types.Value passed between closures. The results
// are buildDateFormat's. Nil when that does not apply.
func (b *builder) dateFormatTimestamp(c *Call, a []evalFn, fmtFn func([]types.Value) (*javatime.Pattern, bool, error)) evalFn {
	if b.viaArgs || c.Args[0].Type().Kind != types.KindTimestamp || (len(c.Args) > 1 && !isConstant(c.Args[1])) {
		return nil
	}
	f, null, err := fmtFn(nil)
	if err != nil || null || f.Zoned() || f.Span() <= 0 {
		return nil
	}
	span := f.Span()
	var last atomic.Pointer[spanText]
	// text returns the text of ts's period.
	text := func(ts types.Timestamp) string {
		k := floorDiv(floorDiv(ts.Millis, 1000), span)
		if e := last.Load(); e != nil && e.k == k {
			return e.text
		}
		e := &spanText{f: f, k: k, text: f.Format(ts.Time())}
		last.Store(e)
		return e.text
	}
	format := func(ts types.Timestamp) types.Value { return types.Str(text(ts)) }
	x := b.operandOf(c.Args[0], a[0])
	if x.direct() {
		// The timestamp read where it is (a column, a ROW's field), the
		// text written into the projection's output.
		b.setDst(c, func(row []types.Value, dst *types.Value) error {
			p, err := x.ptr(row)
			if err != nil {
				return err
			}
			if p == nil || p.IsNull() {
				*dst = types.Value{}
				return nil
			}
			*dst = types.Str(text(p.Timestamp()))
			return nil
		})
	}
	switch {
	case x.field:
		col, idx := x.fcol, x.fidx
		return func(row []types.Value) (types.Value, error) {
			if col >= len(row) {
				return types.Value{}, errColumn(col, len(row))
			}
			if row[col].IsNull() {
				return types.Value{}, nil
			}
			l := row[col].List()
			if idx >= len(l) || l[idx].IsNull() {
				return types.Value{}, nil
			}
			return format(l[idx].Timestamp()), nil
		}
	case x.col >= 0:
		col := x.col
		return func(row []types.Value) (types.Value, error) {
			if col >= len(row) {
				return types.Value{}, errColumn(col, len(row))
			}
			if row[col].IsNull() {
				return types.Value{}, nil
			}
			return format(row[col].Timestamp()), nil
		}
	}
	xf := a[0]
	return func(row []types.Value) (types.Value, error) {
		v, err := xf(row)
		if err != nil || v.IsNull() {
			return types.Value{}, err
		}
		return format(v.Timestamp()), nil
	}
}

// floorDiv is a / b rounded toward negative infinity (b > 0).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}

// spanText is what a pattern printed for period k of its span
// (DATE_FORMAT's memo).
type spanText struct {
	f    *javatime.Pattern
	k    int64
	text string
}

// buildToTimestamp parses a string with a Java pattern ('yyyy-MM-dd
// HH:mm:ss' by default) into TIMESTAMP(3); a string that does not parse
// gives NULL. With ltz, the wall clock is read in the session zone.
func buildToTimestamp(ltz bool) func(*builder, *Call, []evalFn) (evalFn, error) {
	return func(b *builder, c *Call, a []evalFn) (evalFn, error) {
		fmtFn, err := b.format(c, 1, a, defaultTimeFormat)
		if err != nil {
			return nil, err
		}
		loc := b.loc
		if len(a) == 1 {
			// Without a pattern Flink accepts 'yyyy-MM-dd[ HH:mm[:ss[.f...]]]'.
			return strict1(a[0], func(v types.Value) (types.Value, error) {
				ts, ok := javatime.ParseSQLTimestamp(strings.TrimSpace(v.Str()))
				if !ok {
					return types.Value{}, nil
				}
				if ltz {
					ts = javatime.FromLocal(ts, loc)
				}
				return types.TimestampValue(ts.Truncate(3)), nil
			}), nil
		}
		return parseWithPattern(a[0], fmtFn, func(p javatime.Fields) types.Value {
			if ltz {
				return types.TimestampValue(types.TimestampFromTime(p.Instant(loc)).Truncate(3))
			}
			return types.TimestampValue(types.TimestampFromTime(p.LocalTime()).Truncate(3))
		}), nil
	}
}

// parseWithPattern returns the function that parses the string text gives
// with the Java pattern pattern gives and converts the parsed fields with
// conv: NULL when either is NULL or the text does not parse (TO_DATE,
// TO_TIMESTAMP, TO_TIMESTAMP_LTZ with a pattern).
func parseWithPattern(text evalFn, pattern func(row []types.Value) (*javatime.Pattern, bool, error), conv func(javatime.Fields) types.Value) evalFn {
	return func(row []types.Value) (types.Value, error) {
		v, err := text(row)
		if err != nil || v.IsNull() {
			return types.Value{}, err
		}
		f, null, err := pattern(row)
		if err != nil || null {
			return types.Value{}, err
		}
		p, ok := f.Parse(v.Str())
		if !ok {
			return types.Value{}, nil
		}
		return conv(p), nil
	}
}

func checkToTimestampLTZ(c *Call) (types.Type, error) {
	t := c.Args[0].Type()
	if !is(t, famNumeric) {
		return types.Type{}, errArgs
	}
	if len(c.Args) == 2 {
		l, ok := c.Args[1].(*Literal)
		if !ok || !l.Typ.IsInteger() || (l.Val.Int64() != 0 && l.Val.Int64() != 3) {
			return types.Type{}, &ArgumentError{Function: c.Name, Given: argTypes(c), Expected: "precision literal 0 (seconds) or 3 (milliseconds)"}
		}
	}
	return types.TimestampLTZ(3), nil // always nullable in Flink
}

// buildToTimestampLTZ converts epoch seconds (precision 0) or milliseconds
// (precision 3, the default) to an instant.
func buildToTimestampLTZ(b *builder, c *Call, a []evalFn) (evalFn, error) {
	t := c.Args[0].Type()
	scale := int64(1)
	if len(c.Args) == 2 && c.Args[1].(*Literal).Val.Int64() == 0 {
		scale = 1000
	}
	if t.IsInteger() {
		return strict1(a[0], func(v types.Value) (types.Value, error) {
			return types.TimestampValue(types.Timestamp{Millis: v.Int64() * scale}), nil
		}), nil
	}
	f := floatConv(t)
	return strict1(a[0], func(v types.Value) (types.Value, error) {
		ms := f(v) * float64(scale)
		if math.IsNaN(ms) || math.IsInf(ms, 0) {
			return types.Value{}, nil
		}
		return types.TimestampValue(types.Timestamp{Millis: int64(math.Floor(ms))}), nil
	}), nil
}

// buildFromUnixtime formats epoch seconds in the session zone.
func buildFromUnixtime(b *builder, c *Call, a []evalFn) (evalFn, error) {
	fmtFn, err := b.format(c, 1, a, defaultTimeFormat)
	if err != nil {
		return nil, err
	}
	loc := b.loc
	f := floatConv(c.Args[0].Type())
	isInt := c.Args[0].Type().IsInteger()
	return func(row []types.Value) (types.Value, error) {
		v, err := a[0](row)
		if err != nil || v.IsNull() {
			return types.Value{}, err
		}
		jf, null, err := fmtFn(row)
		if err != nil || null {
			return types.Value{}, err
		}
		secs := v.Int64()
		if !isInt {
			secs = int64(f(v))
		}
		return types.Str(jf.Format(time.Unix(secs, 0).In(loc))), nil
	}, nil
}

// buildUnixTimestamp: without arguments, the current epoch second; with a
// string, its epoch second read in the session zone (or the zone the
// string names), or math.MinInt64 when it does not parse, as Flink does.
func buildUnixTimestamp(b *builder, c *Call, a []evalFn) (evalFn, error) {
	if len(a) == 0 {
		return func([]types.Value) (types.Value, error) { return types.Int64(b.now().Unix()), nil }, nil
	}
	fmtFn, err := b.format(c, 1, a, defaultTimeFormat)
	if err != nil {
		return nil, err
	}
	loc := b.loc
	return func(row []types.Value) (types.Value, error) {
		v, err := a[0](row)
		if err != nil || v.IsNull() {
			return types.Value{}, err
		}
		f, null, err := fmtFn(row)
		if err != nil || null {
			return types.Value{}, err
		}
		p, ok := f.Parse(v.Str())
		if !ok {
			return types.Int64(math.MinInt64), nil
		}
		return types.Int64(p.Instant(loc).Unix()), nil
	}, nil
}

func checkExtract(c *Call) (types.Type, error) {
	t := c.Args[0].Type()
	if !is(t, famDate, famTime, famTimestamp) {
		return types.Type{}, errArgs
	}
	if c.Unit == UnitNone {
		return types.Type{}, &ArgumentError{Function: "EXTRACT", Given: argTypes(c), Expected: "EXTRACT(unit FROM value) with a unit"}
	}
	return withNull(types.BigInt(), t.NotNull), nil
}

func buildExtract(b *builder, c *Call, a []evalFn) (evalFn, error) {
	t := c.Args[0].Type()
	unit := c.Unit
	if t.Kind == types.KindTime {
		return strict1(a[0], func(v types.Value) (types.Value, error) {
			n := v.Time()
			switch unit {
			case UnitHour:
				return types.Int64(n / 3600e9), nil
			case UnitMinute:
				return types.Int64(n / 60e9 % 60), nil
			case UnitSecond:
				return types.Int64(n / 1e9 % 60), nil
			case UnitMillisecond:
				return types.Int64(n / 1e6 % 60000), nil
			case UnitMicrosecond:
				return types.Int64(n / 1e3 % 60000000), nil
			case UnitNanosecond:
				return types.Int64(n % 60e9), nil
			}
			return types.Value{}, fmt.Errorf("%w: EXTRACT(%s FROM TIME)", ErrInvalidArgument, unit)
		}), nil
	}
	civ := b.civilOf(t)
	civil := func(v types.Value) (types.Value, error) {
		ct := civ(v)
		var r int64
		switch unit {
		case UnitMillennium:
			r = int64((ct.Year() + 999) / 1000)
		case UnitCentury:
			r = int64((ct.Year() + 99) / 100)
		case UnitDecade:
			r = int64(ct.Year() / 10)
		case UnitYear:
			r = int64(ct.Year())
		case UnitQuarter:
			r = int64((ct.Month()-1)/3 + 1)
		case UnitMonth:
			r = int64(ct.Month())
		case UnitWeek:
			_, w := ct.ISOWeek()
			r = int64(w)
		case UnitDay:
			r = int64(ct.Day())
		case UnitDayOfWeek:
			r = int64(ct.Weekday()) + 1
		case UnitDayOfYear:
			r = int64(ct.YearDay())
		case UnitHour:
			r = int64(ct.Hour())
		case UnitMinute:
			r = int64(ct.Minute())
		case UnitSecond:
			r = int64(ct.Second())
		case UnitMillisecond:
			// Within the second, as Flink (not Calcite's seconds*1000+ms).
			r = int64(ct.Nanosecond() / 1e6)
		case UnitMicrosecond:
			r = int64(ct.Nanosecond() / 1e3)
		case UnitNanosecond:
			r = int64(ct.Nanosecond())
		case UnitEpoch:
			if t.Kind == types.KindTimestampLTZ {
				r = javatime.FloorDiv(v.Timestamp().Millis, 1000)
			} else {
				r = javatime.FloorDiv(ct.UnixMilli(), 1000)
			}
		default:
			return types.Value{}, fmt.Errorf("%w: EXTRACT(%s ...)", ErrInvalidArgument, unit)
		}
		return types.Int64(r), nil
	}
	if div, mod := clockUnit(unit); t.Kind == types.KindTimestamp && div > 0 && !b.viaArgs {
		return b.extractClock(c, b.operandOf(c.Args[0], a[0]), div, mod, civil), nil
	}
	return strict1(a[0], civil), nil
}

// clockUnit returns, for a time-of-day unit of EXTRACT, the divisor and
// modulus of the milliseconds of the day that give it (0: another unit).
func clockUnit(u TimeUnit) (div, mod int64) {
	switch u {
	case UnitHour:
		return 3_600_000, 24
	case UnitMinute:
		return 60_000, 60
	case UnitSecond:
		return 1000, 60
	case UnitMillisecond:
		return 1, 1000
	}
	return 0, 0
}

// extractClock is EXTRACT(unit FROM ts) of a TIMESTAMP for a time-of-day
// unit (clockUnit's div and mod): from ts's milliseconds of the day, read
// in place when ts is a column or a field, without the time.Time civil
// builds (q14's HOUR(dateTime)); with civil for a nanosecond part out of
// range. Its dstFn is recorded for c.
func (b *builder) extractClock(c *Call, x operand, div, mod int64, civil func(types.Value) (types.Value, error)) evalFn {
	of := func(v *types.Value) (int64, bool) {
		ts := v.Timestamp()
		if ts.NanoOfMilli < 0 || ts.NanoOfMilli >= 1_000_000 {
			return 0, false
		}
		return javatime.FloorMod(ts.Millis, 86_400_000) / div % mod, true
	}
	read := x.ptr
	if !x.direct() {
		xf := x.fn
		read = nil
		b.setDst(c, func(row []types.Value, dst *types.Value) error {
			v, err := xf(row)
			if err != nil || v.IsNull() {
				*dst = types.Value{}
				return err
			}
			if r, ok := of(&v); ok {
				*dst = types.Int64(r)
				return nil
			}
			r, err := civil(v)
			*dst = r
			return err
		})
		return func(row []types.Value) (types.Value, error) {
			v, err := xf(row)
			if err != nil || v.IsNull() {
				return types.Value{}, err
			}
			if r, ok := of(&v); ok {
				return types.Int64(r), nil
			}
			return civil(v)
		}
	}
	b.setDst(c, func(row []types.Value, dst *types.Value) error {
		v, err := read(row)
		if err != nil || v == nil || v.IsNull() {
			*dst = types.Value{}
			return err
		}
		if r, ok := of(v); ok {
			*dst = types.Int64(r)
			return nil
		}
		r, err := civil(*v)
		*dst = r
		return err
	})
	return func(row []types.Value) (types.Value, error) {
		v, err := read(row)
		if err != nil || v == nil || v.IsNull() {
			return types.Value{}, err
		}
		if r, ok := of(v); ok {
			return types.Int64(r), nil
		}
		return civil(*v)
	}
}

// buildTruncTime is FLOOR/CEIL(x TO unit).
func (b *builder) buildTruncTime(c *Call, a evalFn, ceil bool) (evalFn, error) {
	t := c.Args[0].Type()
	civ, back := b.civilOf(t), b.fromCivil(t)
	unit := c.Unit
	if t.Kind == types.KindTimestampLTZ {
		// Flink rounds the local time and converts back with the offset
		// of the original instant, not the one in force at the result.
		loc := b.loc
		return strict1(a, func(v types.Value) (types.Value, error) {
			ts := v.Timestamp()
			off := javatime.OffsetMillis(ts.Millis, loc)
			ct := types.Timestamp{Millis: ts.Millis + off, NanoOfMilli: ts.NanoOfMilli}.Time()
			fl := floorTime(ct, unit)
			if ceil && !fl.Equal(ct) {
				fl = addUnit(fl, unit, 1)
			}
			r := types.TimestampFromTime(fl)
			r.Millis -= off
			return types.TimestampValue(r), nil
		}), nil
	}
	return strict1(a, func(v types.Value) (types.Value, error) {
		ct := civ(v)
		fl := floorTime(ct, unit)
		if ceil && !fl.Equal(ct) {
			fl = addUnit(fl, unit, 1)
		}
		return back(fl), nil
	}), nil
}

func floorTime(t time.Time, u TimeUnit) time.Time {
	y, m, d := t.Date()
	switch u {
	case UnitYear:
		return time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
	case UnitQuarter:
		return time.Date(y, (m-1)/3*3+1, 1, 0, 0, 0, 0, time.UTC)
	case UnitMonth:
		return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
	case UnitWeek:
		// Weeks start on Sunday, as Calcite's FLOOR(x TO WEEK).
		day := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		return day.AddDate(0, 0, -int(day.Weekday()))
	case UnitDay:
		return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	case UnitHour:
		return t.Truncate(time.Hour)
	case UnitMinute:
		return t.Truncate(time.Minute)
	case UnitSecond:
		return t.Truncate(time.Second)
	case UnitMillisecond:
		return t.Truncate(time.Millisecond)
	}
	return t
}

// addUnit adds n units; months and years clamp the day to the month's end,
// as Java's plusMonths.
func addUnit(t time.Time, u TimeUnit, n int64) time.Time {
	switch u {
	case UnitYear:
		return addMonths(t, n*12)
	case UnitQuarter:
		return addMonths(t, n*3)
	case UnitMonth:
		return addMonths(t, n)
	case UnitWeek:
		return t.AddDate(0, 0, int(n*7))
	case UnitDay:
		return t.AddDate(0, 0, int(n))
	case UnitHour:
		return t.Add(time.Duration(n) * time.Hour)
	case UnitMinute:
		return t.Add(time.Duration(n) * time.Minute)
	case UnitSecond:
		return t.Add(time.Duration(n) * time.Second)
	case UnitMillisecond:
		return t.Add(time.Duration(n) * time.Millisecond)
	case UnitMicrosecond:
		return t.Add(time.Duration(n) * time.Microsecond)
	case UnitNanosecond:
		return t.Add(time.Duration(n))
	}
	return t
}

func addMonths(t time.Time, n int64) time.Time {
	y, m, d := t.Date()
	total := int64(y)*12 + int64(m-1) + n
	ny, nm := int(javatime.FloorDiv(total, 12)), time.Month(javatime.FloorMod(total, 12)+1)
	d = min(d, javatime.DaysInMonth(ny, int(nm)))
	return time.Date(ny, nm, d, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
}

func timeUnitSupported(u TimeUnit) bool {
	switch u {
	case UnitYear, UnitQuarter, UnitMonth, UnitWeek, UnitDay, UnitHour, UnitMinute, UnitSecond, UnitMillisecond, UnitMicrosecond, UnitNanosecond:
		return true
	}
	return false
}

func checkTimestampAdd(c *Call) (types.Type, error) {
	if !timeUnitSupported(c.Unit) || !c.Args[0].Type().IsInteger() && c.Args[0].Type().Kind != types.KindNull ||
		!is(c.Args[1].Type(), famDate, famTimestamp) {
		return types.Type{}, errArgs
	}
	t := c.Args[1].Type()
	if t.Kind == types.KindDate {
		switch c.Unit {
		case UnitYear, UnitQuarter, UnitMonth, UnitWeek, UnitDay:
		default:
			t = withNull(types.TimestampType(types.DefaultTimestampPrecision), t.NotNull)
		}
	}
	return withNull(t, allNotNull(c)), nil
}

func buildTimestampAdd(b *builder, c *Call, a []evalFn) (evalFn, error) {
	in := c.Args[1].Type()
	civ, back := b.civilOf(in), b.fromCivil(c.typ)
	unit := c.Unit
	if in.Kind == types.KindTimestampLTZ {
		// Flink adds to the instant as if it were a UTC date-time: a day
		// is always 24 hours, whatever DST does to the session zone.
		return strict2(a[0], a[1], func(n, v types.Value) (types.Value, error) {
			return types.TimestampValue(types.TimestampFromTime(addUnit(v.Timestamp().Time(), unit, n.Int64()))), nil
		}), nil
	}
	add := func(n, v types.Value) (types.Value, error) {
		return back(addUnit(civ(v), unit, n.Int64())), nil
	}
	if fn := b.timestampAddConst(c, a); fn != nil {
		return fn, nil
	}
	return strict2(a[0], a[1], add), nil
}

// unitDurations are the units TIMESTAMPADD adds to a TIMESTAMP as a fixed
// number of whole milliseconds.
var unitDurations = map[TimeUnit]time.Duration{UnitHour: time.Hour, UnitMinute: time.Minute, UnitSecond: time.Second, UnitMillisecond: time.Millisecond}

// timestampAddConst returns TIMESTAMPADD(unit, n, ts) for a constant n,
// a TIMESTAMP ts and a unit of whole milliseconds (a watermark's
// ts - INTERVAL '4' SECOND): the milliseconds added to ts's without a
// trip through time.Time, ts read as an operand. It is nil when the call
// is not of that form. (Where the sum overflows, it wraps as the general
// path's time.Time.UnixMilli does.)
func (b *builder) timestampAddConst(c *Call, a []evalFn) evalFn {
	if b.viaArgs || c.Args[1].Type().Kind != types.KindTimestamp || c.typ.Kind != types.KindTimestamp || !b.constant(c.Args[0]) {
		return nil
	}
	unit, ok := unitDurations[c.Unit]
	if !ok {
		return nil
	}
	nv, err := a[0](nil)
	if err != nil || nv.IsNull() {
		return nil
	}
	n := nv.Int64()
	d := time.Duration(n) * unit // as addUnit computes it
	if d/unit != time.Duration(n) {
		return nil
	}
	ms := int64(d / time.Millisecond)
	return unop(b.operandOf(c.Args[1], a[1]), func(v types.Value) (types.Value, error) {
		ts := v.Timestamp()
		return types.TimestampValue(types.Timestamp{Millis: ts.Millis + ms, NanoOfMilli: ts.NanoOfMilli}), nil
	})
}

func checkTimestampDiff(c *Call) (types.Type, error) {
	if !timeUnitSupported(c.Unit) || !is(c.Args[0].Type(), famDate, famTimestamp) || !is(c.Args[1].Type(), famDate, famTimestamp) {
		return types.Type{}, errArgs
	}
	return withNull(types.Int(), allNotNull(c)), nil
}

// buildTimestampDiff returns the number of whole units from the first to
// the second argument (negative when the second is earlier).
func buildTimestampDiff(b *builder, c *Call, a []evalFn) (evalFn, error) {
	// TIMESTAMP_LTZ arguments count in UTC, as Flink does (24 hours
	// between two instants are one day whatever DST does locally).
	utc := &builder{loc: time.UTC, now: b.now}
	ca, cb := utc.civilOf(c.Args[0].Type()), utc.civilOf(c.Args[1].Type())
	unit := c.Unit
	return strict2(a[0], a[1], func(x, y types.Value) (types.Value, error) {
		t1, t2 := ca(x), cb(y)
		var r int64
		switch unit {
		case UnitYear, UnitQuarter, UnitMonth:
			months := int64(t2.Year()-t1.Year())*12 + int64(t2.Month()-t1.Month())
			// Drop a month not completed.
			rest1 := t1.AddDate(0, 0, 0)
			shifted := addMonths(rest1, months)
			if months > 0 && shifted.After(t2) {
				months--
			} else if months < 0 && shifted.Before(t2) {
				months++
			}
			switch unit {
			case UnitYear:
				r = months / 12
			case UnitQuarter:
				r = months / 3
			default:
				r = months
			}
		default:
			d := t2.Sub(t1)
			var per time.Duration
			switch unit {
			case UnitWeek:
				per = 7 * 24 * time.Hour
			case UnitDay:
				per = 24 * time.Hour
			case UnitHour:
				per = time.Hour
			case UnitMinute:
				per = time.Minute
			case UnitSecond:
				per = time.Second
			case UnitMillisecond:
				per = time.Millisecond
			case UnitMicrosecond:
				per = time.Microsecond
			default:
				per = 1
			}
			r = int64(d / per)
		}
		return types.Int64(int64(int32(r))), nil
	}), nil
}
