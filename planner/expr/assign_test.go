package expr

import (
	"errors"
	"testing"

	"github.com/streamsql/streamsql/types"
)

func TestAssignTo(t *testing.T) {
	i := Col(0, "i", types.Int())
	s := Col(1, "s", types.VarChar(5))
	d := Col(2, "d", types.DecimalType(10, 2).NotNullable())
	ok := []struct {
		e      Expr
		target types.Type
		want   string
	}{
		{i, types.BigInt(), "BIGINT"},
		{i, types.DecimalType(5, 1), "DECIMAL(5, 1)"},
		{i, types.Double(), "DOUBLE"},
		{s, types.String(), "STRING"},
		{s, types.Char(2), "CHAR(2)"},
		{d, types.DecimalType(10, 2).NotNullable(), "DECIMAL(10, 2) NOT NULL"},
		{d, types.Double(), "DOUBLE NOT NULL"},
		{NullLit(), types.Int(), "INT"},
		{CastTo(i, types.BigInt()), types.BigInt().NotNullable(), "BIGINT"},
	}
	for _, c := range ok {
		r, err := AssignTo(c.e, c.target)
		if err != nil {
			t.Errorf("AssignTo(%s, %s): %v", c.e, c.target, err)
			continue
		}
		if got := r.Type().String(); got != c.want {
			t.Errorf("AssignTo(%s, %s) has type %s, want %s", c.e, c.target, got, c.want)
		}
	}
	bad := []struct {
		e       Expr
		target  types.Type
		notNull bool
	}{
		{Col(0, "b", types.BigInt()), types.Int(), false},
		{s, types.Int(), false},
		{Col(0, "f", types.Double()), types.DecimalType(10, 2), false},
		{Col(0, "t", types.TimestampType(3)), types.Date(), false},
		{i, types.Int().NotNullable(), true},
	}
	for _, c := range bad {
		_, err := AssignTo(c.e, c.target)
		var ae *AssignmentError
		if !errors.As(err, &ae) || ae.NotNull != c.notNull {
			t.Errorf("AssignTo(%s, %s) = %v, want AssignmentError (NotNull %v)", c.e, c.target, err, c.notNull)
		}
	}
}
