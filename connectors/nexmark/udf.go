package nexmark

import (
	"strings"
	"unicode/utf8"

	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/types"
)

// CountChar is Nexmark q14's function count_char(s, c): the number of
// times the first character of c occurs in s. q14 defines it with CREATE
// FUNCTION count_char AS 'com.github.nexmark.flink.udf.CountChar', a Java
// class; a program that registers this Go function (job.Options.Functions)
// runs the file unchanged.
var CountChar = &expr.Function{
	Name:    "count_char",
	Classes: []string{"com.github.nexmark.flink.udf.CountChar"},
	Args:    []types.Type{types.String(), types.String()},
	Result:  types.BigInt().NotNullable(),
	Eval: func(args []types.Value) (types.Value, error) {
		c, _ := utf8.DecodeRuneInString(args[1].Str())
		if c == utf8.RuneError {
			return types.Int64(0), nil
		}
		return types.Int64(int64(strings.Count(args[0].Str(), string(c)))), nil
	},
}
