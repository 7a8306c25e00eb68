package planner

import (
	"testing"

	"github.com/streamsql/streamsql/types"
)

func TestCommonTypeNeverTruncates(t *testing.T) {
	cases := []struct{ a, b, want types.Type }{
		{types.Char(14).NotNullable(), types.Char(16).NotNullable(), types.Char(16).NotNullable()},
		{types.Char(3), types.VarChar(2), types.VarChar(3)},
		{types.Binary(4), types.Bytes(), types.Bytes()},
		{types.DecimalType(5, 2), types.DecimalType(10, 0), types.DecimalType(12, 2)},
		{types.TimestampType(3), types.TimestampType(6).NotNullable(), types.TimestampType(6)},
		{types.Int(), types.BigInt(), types.BigInt()},
	}
	for _, c := range cases {
		for _, order := range [][2]types.Type{{c.a, c.b}, {c.b, c.a}} {
			got, ok := commonType(order[0], order[1])
			if !ok || !got.Equal(c.want) {
				t.Errorf("commonType(%s, %s) = %s, %v; want %s", order[0], order[1], got, ok, c.want)
			}
		}
	}
}
