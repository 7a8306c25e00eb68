package jdbc

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/streamsql/streamsql/types"
)

// arg converts a field value of type t into a driver argument. Decimals,
// dates, times and timestamps go as text the server casts to the column's
// type (PostgreSQL's simple protocol and MySQL's interpolated parameters
// send them as literals), so that no precision is lost on the way.
func arg(d *Dialect, t types.Type, v types.Value) (any, error) {
	if v.IsNull() {
		return nil, nil
	}
	switch t.Kind {
	case types.KindBoolean:
		return v.Bool(), nil
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
		return v.Int64(), nil
	case types.KindFloat, types.KindDouble:
		return v.Float64(), nil
	case types.KindDecimal:
		return v.Decimal().String(), nil
	case types.KindChar, types.KindVarChar:
		return v.Str(), nil
	case types.KindBinary, types.KindVarBinary:
		return append([]byte(nil), v.Bytes()...), nil
	case types.KindDate:
		return time.Unix(int64(v.Date())*86400, 0).UTC().Format("2006-01-02"), nil
	case types.KindTime:
		n := v.Time()
		return time.Unix(0, n).UTC().Format("15:04:05.999999999"), nil
	case types.KindTimestamp:
		return v.Timestamp().Time().Format("2006-01-02 15:04:05.999999999"), nil
	case types.KindTimestampLTZ:
		s := v.Timestamp().Time().Format("2006-01-02 15:04:05.999999999")
		if d == postgres {
			s += "+00"
		}
		return s, nil
	}
	return nil, fmt.Errorf("jdbc: type %s is not supported yet", t.Kind)
}

// fromDB converts a value scanned from the database (as database/sql hands
// it over: int64, float64, bool, []byte, string, time.Time or nil) into a
// field value of type t.
func fromDB(t types.Type, src any) (types.Value, error) {
	if src == nil {
		return types.Value{}, nil
	}
	text := func() string {
		switch x := src.(type) {
		case []byte:
			return string(x)
		case string:
			return x
		case time.Time:
			return x.Format(time.RFC3339Nano)
		}
		return fmt.Sprint(src)
	}
	switch t.Kind {
	case types.KindBoolean:
		switch x := src.(type) {
		case bool:
			return types.Bool(x), nil
		case int64:
			return types.Bool(x != 0), nil
		}
		b, err := strconv.ParseBool(text())
		if err != nil {
			return types.Value{}, fmt.Errorf("not a boolean: %q", text())
		}
		return types.Bool(b), nil
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
		if x, ok := src.(int64); ok {
			return types.Int64(x), nil
		}
		n, err := strconv.ParseInt(strings.TrimSpace(text()), 10, 64)
		if err != nil {
			return types.Value{}, fmt.Errorf("not an integer: %q", text())
		}
		return types.Int64(n), nil
	case types.KindFloat, types.KindDouble:
		switch x := src.(type) {
		case float64:
			return types.Float64(x), nil
		case float32:
			return types.Float64(float64(x)), nil
		case int64:
			return types.Float64(float64(x)), nil
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(text()), 64)
		if err != nil {
			return types.Value{}, fmt.Errorf("not a number: %q", text())
		}
		return types.Float64(f), nil
	case types.KindDecimal:
		d, err := types.ParseDecimal(strings.TrimSpace(text()))
		if err != nil {
			return types.Value{}, fmt.Errorf("not a decimal: %q", text())
		}
		d, err = d.Rescale(t.Precision, t.Scale)
		if err != nil {
			return types.Value{}, fmt.Errorf("does not fit DECIMAL(%d, %d): %q", t.Precision, t.Scale, text())
		}
		return types.DecimalValue(d), nil
	case types.KindChar, types.KindVarChar:
		return types.Str(text()), nil
	case types.KindBinary, types.KindVarBinary:
		switch x := src.(type) {
		case []byte:
			return types.BytesValue(append([]byte(nil), x...)), nil
		case string:
			return types.BytesValue([]byte(x)), nil
		}
	case types.KindDate:
		tm, err := asTime(src, "2006-01-02")
		if err != nil {
			return types.Value{}, err
		}
		return types.DateValue(int32(tm.Unix() / 86400)), nil
	case types.KindTime:
		tm, err := asTime(src, "15:04:05.999999999")
		if err != nil {
			return types.Value{}, err
		}
		h, m, s := tm.Clock()
		return types.TimeValue(int64(h)*int64(time.Hour) + int64(m)*int64(time.Minute) + int64(s)*int64(time.Second) + int64(tm.Nanosecond())), nil
	case types.KindTimestamp:
		tm, err := asTime(src, "2006-01-02 15:04:05.999999999")
		if err != nil {
			return types.Value{}, err
		}
		return types.TimestampValue(types.TimestampFromLocal(tm).Truncate(t.Precision)), nil
	case types.KindTimestampLTZ:
		tm, err := asTime(src, "2006-01-02 15:04:05.999999999Z07")
		if err != nil {
			return types.Value{}, err
		}
		return types.TimestampValue(types.TimestampFromTime(tm).Truncate(t.Precision)), nil
	}
	return types.Value{}, fmt.Errorf("type %s is not supported yet (value %T)", t.Kind, src)
}

func asTime(src any, layout string) (time.Time, error) {
	switch x := src.(type) {
	case time.Time:
		return x, nil
	case []byte:
		return parseTime(string(x), layout)
	case string:
		return parseTime(x, layout)
	}
	return time.Time{}, fmt.Errorf("not a date/time: %v (%T)", src, src)
}

func parseTime(s, layout string) (time.Time, error) {
	for _, l := range []string{layout, "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02T15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999", "15:04:05.999999999", "2006-01-02"} {
		if t, err := time.Parse(l, strings.TrimSpace(s)); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("not a date/time: %q", s)
}
