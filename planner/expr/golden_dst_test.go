package expr

import (
	"github.com/streamsql/streamsql/types"
)

// dstCases run in America/New_York, whose clocks jump forward on
// 2024-03-10 at 02:00 (02:00-03:00 does not exist) and back on 2024-11-03
// at 02:00 (01:00-02:00 happens twice). Ids start with "more/dst/".
func dstCases() []gcase {
	const ny = "America/New_York"
	local := rows1(vts("2024-03-10 01:30:00"), vts("2024-03-10 02:30:00"), vts("2024-03-10 03:30:00"),
		vts("2024-11-03 00:30:00"), vts("2024-11-03 01:30:00"), vts("2024-11-03 02:30:00"))
	// Instants around the transitions: 2024-03-10 06:59:59Z, 07:00:00Z,
	// 2024-11-03 05:30:00Z and 06:30:00Z (both 01:30 local).
	instants := rows1(vltz(1710053999000), vltz(1710054000000), vltz(1730611800000), vltz(1730615400000))
	cs := []gcase{
		unary("more/dst/ts-to-ltz", tTs3, local, castTo(tLTZ3)),
		unary("more/dst/ltz-to-string", tLTZ3, instants, castTo(tStr)),
		unary("more/dst/ltz-to-ts", tLTZ3, instants, castTo(tTs3)),
		unary("more/dst/ltz-to-date", tLTZ3, instants, castTo(tDate)),
		unary("more/dst/unix-timestamp", tStr, rows1(vs("2024-03-10 02:30:00"), vs("2024-11-03 01:30:00"), vs("2024-07-01 12:00:00")), func(x Expr) Expr { return Fn("UNIX_TIMESTAMP", x) }),
		unary("more/dst/from-unixtime", tBig, rows1(vi(1710053999), vi(1710054000), vi(1730611800), vi(1730615400)), func(x Expr) Expr { return Fn("FROM_UNIXTIME", x) }),
		unary("more/dst/date-format-ltz", tLTZ3, instants, func(x Expr) Expr { return Fn("DATE_FORMAT", x, ls("yyyy-MM-dd HH:mm:ss XXX")) }),
		unary("more/dst/ceil-day", tLTZ3, instants, func(x Expr) Expr { return FnUnit("CEIL", UnitDay, x) }),
		unary("more/dst/floor-hour", tLTZ3, instants, func(x Expr) Expr { return FnUnit("FLOOR", UnitHour, x) }),
		binary("more/dst/add-day", tInt, tLTZ3, [][]types.Value{{vi(1), vltz(1710025200000)}, {vi(1), vltz(1730606400000)}}, func(a, b Expr) Expr { return FnUnit("TIMESTAMPADD", UnitDay, a, b) }),
		binary("more/dst/add-hour", tInt, tLTZ3, [][]types.Value{{vi(1), vltz(1710053999000)}, {vi(1), vltz(1730611800000)}}, func(a, b Expr) Expr { return FnUnit("TIMESTAMPADD", UnitHour, a, b) }),
		unary("more/dst/extract-hour", tLTZ3, instants, func(x Expr) Expr { return FnUnit("EXTRACT", UnitHour, x) }),
		binary("more/dst/diff-hour", tLTZ3, tLTZ3, [][]types.Value{{vltz(1710025200000), vltz(1710111600000)}, {vltz(1730606400000), vltz(1730692800000)}},
			func(a, b Expr) Expr { return FnUnit("TIMESTAMPDIFF", UnitHour, a, b) }),
		binary("more/dst/diff-day", tLTZ3, tLTZ3, [][]types.Value{{vltz(1710025200000), vltz(1710108000000)}},
			func(a, b Expr) Expr { return FnUnit("TIMESTAMPDIFF", UnitDay, a, b) }),
		binary("more/dst/add-month", tInt, tLTZ3, [][]types.Value{{vi(1), vltz(1707624000000)}},
			func(a, b Expr) Expr { return FnUnit("TIMESTAMPADD", UnitMonth, a, b) }),
		unary("more/dst/from-unixtime-zone", tBig, rows1(vi(1710054000)), func(x Expr) Expr { return Fn("FROM_UNIXTIME", x, ls("yyyy-MM-dd HH:mm:ss Z")) }),
		unary("more/dst/to-timestamp-zone", tStr, rows1(vs("2024-03-10 12:00:00 +01:00")), func(x Expr) Expr { return Fn("TO_TIMESTAMP", x, ls("yyyy-MM-dd HH:mm:ss XXX")) }),
		unary("more/dst/ltz-to-time", tLTZ3, instants, castTo(types.Time(0))),
		unary("more/dst/string-to-ltz", tStr, rows1(vs("2024-03-10 02:30:00"), vs("2024-11-03 01:30:00")), castTo(tLTZ3)),
		unary("more/dst/localtimestamp", tInt, rows1(vi(1)), func(x Expr) Expr { return Fn("IS NOT NULL", Fn("LOCALTIMESTAMP")) }),
	}
	for i := range cs {
		cs[i].zone = ny
	}
	return cs
}
